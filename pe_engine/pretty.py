"""JAX's jaxpr text format: a small Wadler-style document printer and the jaxpr layout.

A group is laid out flat when its own flat text fits in what is left of the line
(JAX checks the group alone, not the text after it), otherwise its breaks become
newlines at the group's indentation.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .core import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Primitive,
    Var,
    dtype_name,
    gc_paused,
)

WIDTH = 80

# ---------------------------------------------------------------------------- documents


class Text(NamedTuple):
    text: str


class Concat(NamedTuple):
    children: tuple


class Brk(NamedTuple):
    text: str


class Name(NamedTuple):
    """A variable's name: laid out as text, and where it lands is reported (see layout)."""
    text: str


class Group(NamedTuple):
    child: Any


class Nest(NamedTuple):
    n: int
    child: Any


class Line(NamedTuple):
    """A document known by its flat text: laid out as `text` (its variables' names at
    `names`, (offset, name) pairs) where that fits, else as the document `doc()` makes,
    whose flat text it is. An equation is one: most fit, and text is cheaper than a
    document to build and to lay out. Lines with equal `key`s make equal documents."""
    text: str
    names: tuple
    doc: Callable[[], Any]
    key: tuple


def concat(*docs: Any) -> Concat:
    return Concat(tuple(docs))


def join(sep: Any, docs: Sequence[Any]) -> Concat:
    out: list[Any] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return Concat(tuple(out))


def _flat(doc: Any, width: int) -> tuple[list[str], list[tuple[int, str]], int] | None:
    """The document laid out flat: its texts in order, its Names with their offsets, and
    its length; None when that is over `width` (the walk stops there)."""
    if width < 0:
        return None
    texts: list[str] = []
    names: list[tuple[int, str]] = []
    n = 0
    agenda = [doc]
    while agenda:
        d = agenda.pop()
        t = type(d)
        if t is Concat:
            agenda.extend(reversed(d.children))
        elif t is Group or t is Nest:  # flat regardless
            agenda.append(d.child)
        else:
            text = d.text
            if t is Name:
                names.append((n, text))
            elif t is Line:
                names.extend([(n + at, name) for at, name in d.names])
            n += len(text)
            if n > width:
                return None
            texts.append(text)
    return texts, names, n


class _PartEnd(NamedTuple):
    """Agenda marker: the part numbered `slot` is laid out up to here."""
    slot: int


class _LineEnd(NamedTuple):
    """Agenda marker: the document of the Line keyed `key` is laid out up to here, from
    `start` in the output, `names_start` in the names and offset `pos` in the text."""
    key: tuple
    start: int
    names_start: int
    pos: int


# A Line that does not fit, laid out breaking: (key, indentation, column, width) -> (its
# pieces of output, which of them are breaks, its names at their offsets from its start,
# its length, the column after it). Every answer prints mostly the programs of the answer
# before it, and their long equations (dot_general's params alone fill most of a line)
# cost several times more to lay out breaking than to look up. Bounded: emptied when full.
_BROKEN: dict[tuple, tuple] = {}
_BROKEN_MAX = 2048


def layout(doc: Any, width: int = WIDTH,
           names: list[tuple[int, int, str]] | None = None) -> str:
    """The document as text; every Name's (start, end, text) is appended to `names`."""
    return layout_parts(doc, (), width, width, names)[0]


def layout_parts(doc: Any, parts: Sequence[Any], part_width: int, width: int = WIDTH,
                 names: list[tuple[int, int, str]] | None = None) -> tuple[str, list[str]]:
    """layout(doc, width, names), and each of `parts` (documents inside doc) as
    layout(part, part_width) would lay it out alone.

    A part met breaking at the start of a line indented width - part_width lays out
    alone as it does in place, its breaks' indentation less that much, so it is cut out of
    the whole; a part met elsewhere is laid out again. The agenda holds what is laid out
    breaking; a group that fits is laid out flat at once from the leaves its fitting test
    collected, so nothing inside it is walked twice."""
    out: list[str] = []
    k = 0  # column
    pos = 0  # offset in the text
    indent = width - part_width
    slot_of = {id(p): n for n, p in enumerate(parts)}
    starts: dict[int, int] = {}  # part slot -> where in `out` it starts
    part_texts: list[str | None] = [None] * len(parts)
    brks: list[int] = []  # where in `out` the breaks are (each "\n" and indentation)
    agenda: list[tuple[int, Any]] = [(0, doc)]
    while agenda:
        i, d = agenda.pop()
        t = type(d)
        if slot_of and i == indent == k and id(d) in slot_of:
            slot = slot_of[id(d)]
            if t is Line and len(d.text) <= width - k:
                part_texts[slot] = d.text  # flat here, so flat alone (most equations)
            else:
                starts[slot] = len(out)
                agenda.append((i, _PartEnd(slot)))
        if t is Concat:
            agenda.extend([(i, c) for c in reversed(d.children)])
        elif t is Line:
            if len(d.text) > width - k:
                key = (d.key, i, k, width)
                kept = _BROKEN.get(key)
                if kept is None:
                    agenda.append((i, _LineEnd(key, len(out), len(names or ()), pos)))
                    agenda.append((i, d.doc()))
                    continue
                pieces, breaks, names_in, n, k = kept
                brks.extend([len(out) + j for j in breaks])
                out.extend(pieces)
                if names is not None:
                    names.extend([(pos + a, pos + b, name) for a, b, name in names_in])
                pos += n
                continue
            if names is not None:
                names.extend([(pos + at, pos + at + len(name), name) for at, name in d.names])
            out.append(d.text)
            k += len(d.text)
            pos += len(d.text)
        elif t is Group:
            flat = _flat(d.child, width - k)
            if flat is None:
                agenda.append((i, d.child))
                continue
            texts_in, names_in, n = flat
            if names is not None:
                names.extend([(pos + at, pos + at + len(name), name) for at, name in names_in])
            out.extend(texts_in)
            k += n
            pos += n
        elif t is Nest:
            agenda.append((i + d.n, d.child))
        elif t is Brk:
            brks.append(len(out))
            out.append("\n" + " " * i)
            k = i
            pos += 1 + i
        elif t is _LineEnd:
            if names is not None:  # kept only with its names, which a later layout may ask
                if len(_BROKEN) >= _BROKEN_MAX:
                    _BROKEN.clear()
                first = d.start
                _BROKEN[d.key] = (
                    out[first:], [j - first for j in brks[bisect_left(brks, first):]],
                    [(a - d.pos, b - d.pos, name) for a, b, name in names[d.names_start:]],
                    pos - d.pos, k)
        elif t is _PartEnd:
            first = starts[d.slot]
            piece = out[first:]
            for j in brks[bisect_left(brks, first):]:
                piece[j - first] = "\n" + out[j][1 + indent:]
            part_texts[d.slot] = "".join(piece)
        else:  # Text or Name
            if t is Name and names is not None:
                names.append((pos, pos + len(d.text), d.text))
            out.append(d.text)
            k += len(d.text)
            pos += len(d.text)
    return "".join(out), [layout(p, part_width) if text is None else text
                          for p, text in zip(parts, part_texts)]


# ---------------------------------------------------------------------------- names


def encode_name(n: int) -> str:
    """Base 26 with 'a' as zero: a..z, ba, bb, ... (there is no 'aa')."""
    if n < len(_ENCODED):
        return _ENCODED[n]
    s = ""
    m = n
    while not s or m:
        m, i = divmod(m, 26)
        s = chr(97 + i) + s
    if n == len(_ENCODED):  # names are handed out in order: each program asks a, b, c, ...
        _ENCODED.append(s)
    return s


# encode_name(n) at n: every program printed names its variables from `a` again. It holds
# nothing of the code printed (the same list in every run), so no request needs it emptied.
_ENCODED: list[str] = []


class PpContext:
    """Names handed out in the order the printer meets variables."""

    def __init__(self, names: dict[Var, str] | None = None):
        self.names: dict[Var, str] = dict(names or {})
        self.count = 0
        self.shared: dict[Jaxpr, str] = {}  # jaxprs printed once, up front, by name

    def name(self, v: Var) -> str:
        n = self.names.get(v)
        if n is None:
            if type(v) is DropVar:
                return "_"
            n = encode_name(self.count)
            self.count += 1
            # a letter never shadows a shared jaxpr's name
            while self.shared and n in self.shared.values():
                n = encode_name(self.count)
                self.count += 1
            self.names[v] = n
        return n

    def suggest_same(self, inner: Sequence[Any], outer: Sequence[Any]) -> None:
        """Give a call's inner binders the names of the outer atoms they alias."""
        if len(inner) != len(outer):
            return
        used: set[Var] = set()
        for vi, vo in zip(inner, outer):
            if (isinstance(vo, Var) and vo not in used and isinstance(vi, Var)
                    and vi not in self.names):
                used.add(vo)
                self.names[vi] = self.name(vo)


def _dropvars(jaxpr: Jaxpr) -> dict[Var, str]:
    """Equation outputs nothing reads print as `_` (a print-time decision in JAX)."""
    used: set[Var] = {v for v in jaxpr.outvars if isinstance(v, Var)}
    for eqn in jaxpr.eqns:
        used.update(v for v in eqn.invars if isinstance(v, Var))
    return {v: "_" for eqn in jaxpr.eqns for v in eqn.outvars if v not in used}


def jaxprs_in_params(params: dict) -> list[Jaxpr]:
    out = []
    for val in params.values():
        for v in val if isinstance(val, tuple) else (val,):
            if isinstance(v, _JAXPRS):  # most params are none: one test for them
                out.append(v if isinstance(v, Jaxpr) else v.jaxpr)
    return out


_JAXPRS = (Jaxpr, ClosedJaxpr)


# ---------------------------------------------------------------------------- atoms and params


def pp_literal(lit: Literal) -> str:
    if type(lit.val) in _PYTHON_SCALARS:  # its own item: no numpy call (most literals)
        val = str(lit.val)
    elif not np.shape(lit.val):
        val = str(np.asarray(lit.val).item())
    else:
        val = "[...]"
    return f"{val}:{lit.aval.str_short(short_dtypes=True)}"


_PYTHON_SCALARS = (bool, int, float)


def pp_atom(a: Any, ctx: PpContext) -> str:
    return pp_literal(a) if type(a) is Literal else ctx.name(a)


def pp_name(a: Any, ctx: PpContext) -> Any:
    """An atom's document: a literal's text, or a variable's Name (`_` is no variable)."""
    if type(a) is Literal:
        return Text(pp_literal(a))
    name = ctx.name(a)
    return Text(name) if name == "_" else Name(name)


def pp_vars(vs: Sequence[Any], ctx: PpContext, sep: str = "", shapes: bool = False) -> Any:
    """The variables, breaking after a separator where they do not fit: a Line, as most of
    them fit (a header's binders, an equation's outputs), and a fitting group's test would
    walk every name of it."""
    pieces: list[str] = []
    names: list[tuple[int, str]] = []
    _atoms_line(vs, ctx, shapes, pieces, names, 0, sep + " ")
    text = "".join(pieces)
    # no key of an equation's Line (a tuple of texts) starts with None
    return Nest(2, Line(text, tuple(names), lambda: _vars_doc(vs, ctx, sep, shapes),
                        (None, sep, shapes, text)))


# The separators between variables: a list of them is a hot spot of printing.
_SEPARATORS = {sep: concat(Text(sep), Group(Brk(" "))) for sep in ("", ",")}


def _vars_doc(vs: Sequence[Any], ctx: PpContext, sep: str, shapes: bool) -> Any:
    """pp_vars' document, whose flat text its Line holds."""
    between = _SEPARATORS.get(sep) or concat(Text(sep), Group(Brk(" ")))
    items: list[Any] = []
    for v in vs:
        if items:
            items.append(between)
        doc = pp_name(v, ctx)
        items.append(Concat((doc, Text(":" + v.aval.str_short(short_dtypes=True))))
                     if shapes else doc)
    return Concat(tuple(items))


def _param_text(v: Any) -> str | None:
    """A param's text, None for a jaxpr or a tuple of them (documents of their own)."""
    if isinstance(v, (Jaxpr, ClosedJaxpr)) or type(v) is tuple and v and all(
            isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v):
        return None
    if isinstance(v, np.dtype) or isinstance(v, type) and issubclass(v, np.generic):
        return dtype_name(v)
    # Object addresses change from run to run; JAX masks them, digit for digit, so that
    # printouts compare. Addresses are 12 hex digits on 64-bit hosts but fewer in wasm:
    # mask to the 64-bit width so the page prints what JAX prints on a workstation.
    text = str(v)
    return _ADDRESS.sub(" at 0x" + "X" * 12, text) if " at 0x" in text else text


def pp_param_value(v: Any, ctx: PpContext) -> Any:
    text = _param_text(v)
    if text is not None:
        return Text(text)
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        return pp_jaxpr_doc(v.jaxpr if isinstance(v, ClosedJaxpr) else v, ctx)
    # JAX's pp_jaxprs: the jaxprs one per line (or all on one), no commas between.
    return Group(concat(Nest(2, concat(Text("("), Brk(""), join(
        Brk(" "), [pp_param_value(j, ctx) for j in v]))), Brk(""), Text(")")))


_ADDRESS = re.compile(r" at 0x([0-9a-fA-F]+)")


def pp_kv_pairs(kvs: Sequence[tuple[str, Any]], ctx: PpContext) -> Any:
    if not kvs:
        return Text("")
    pairs = [concat(Text(f"{k}="), pp_param_value(v, ctx)) for k, v in kvs]
    return Group(concat(Nest(2, concat(Text("["), Brk(""), join(Brk(" "), pairs))),
                        Brk(""), Text("]")))


# Per-primitive printing: which params a primitive shows (JAX hides some, such as
# broadcast_in_dim's shape, implied by the binder's type) and call-like naming.
pp_param_rules: dict[Primitive, Callable[[dict], dict]] = {}
pp_eqn_rules: dict[Primitive, Callable[[JaxprEqn, PpContext], Any]] = {}


def pp_eqn_default(eqn: JaxprEqn, ctx: PpContext, order: Sequence[str] | None = None) -> Any:
    rule = pp_param_rules.get(eqn.primitive)
    params = rule(dict(eqn.params)) if rule else eqn.params
    keys = [k for k in order if k in params] if order is not None else sorted(params)
    kvs = [(k, params[k]) for k in keys]
    texts = [_param_text(v) for _, v in kvs]
    if None in texts:
        return _eqn_doc(eqn, ctx, kvs)
    # The document's flat text, names handed out in the same order (outputs, then inputs):
    # the document made when the text does not fit finds them taken and reuses them.
    pieces: list[str] = []
    names: list[tuple[int, str]] = []
    _atoms_line(eqn.outvars, ctx, True, pieces, names, 0, " ")
    if eqn.outvars:
        pieces.append(" = ")
    pieces.append(eqn.primitive.name)
    params_text = [f"{k}={t}" for (k, _), t in zip(kvs, texts)]
    if kvs:
        pieces.append("[" + " ".join(params_text) + "]")
    pieces.append(" ")
    n = sum(map(len, pieces))
    _atoms_line(eqn.invars, ctx, False, pieces, names, n, " ")
    text = "".join(pieces)
    # The text and each param's text make the document: no atom's text holds a space, so
    # only a param's could have made two equations' texts alike.
    return Line(text, tuple(names), lambda: _eqn_doc(eqn, ctx, kvs), (text, *params_text))


def _atoms_line(vs: Sequence[Any], ctx: PpContext, typed: bool, pieces: list[str],
                names: list[tuple[int, str]], n: int, between: str) -> int:
    """pp_vars' flat text (`between`: its separator laid out flat), appended to `pieces` at
    offset `n` (its Names to `names`); the offset after it."""
    known = ctx.names
    for j, v in enumerate(vs):
        if j:
            pieces.append(between)
            n += len(between)
        if type(v) is Literal:
            text = pp_literal(v)
        else:
            # most variables are named already (an equation's inputs): one lookup
            text = known.get(v) or ctx.name(v)
            if text != "_":
                names.append((n, text))
        if typed:
            text += ":" + v.aval.str_short(True)
        pieces.append(text)
        n += len(text)
    return n


def _eqn_doc(eqn: JaxprEqn, ctx: PpContext, kvs: Sequence[tuple[str, Any]]) -> Any:
    lhs = pp_vars(eqn.outvars, ctx, shapes=True)
    rhs = [Text(eqn.primitive.name), pp_kv_pairs(kvs, ctx),
           concat(Text(" "), pp_vars(eqn.invars, ctx))]
    if eqn.outvars:
        return concat(lhs, Text(" = "), *rhs)
    return concat(*rhs)


def pp_eqn(eqn: JaxprEqn, ctx: PpContext) -> Any:
    rule = pp_eqn_rules.get(eqn.primitive)
    return rule(eqn, ctx) if rule else pp_eqn_default(eqn, ctx)


def pp_jaxpr_doc(jaxpr: Jaxpr, ctx: PpContext, eqn_docs: list | None = None) -> Any:
    """The jaxpr's document; its equations' documents are also appended to `eqn_docs`
    (names are handed out as the document is built, so they cannot be built apart)."""
    shared = ctx.shared.get(jaxpr)
    if shared is not None:
        return Text(shared)
    constvars = pp_vars(jaxpr.constvars, ctx, shapes=True)
    invars = pp_vars(jaxpr.invars, ctx, shapes=True)
    docs = [pp_eqn(e, ctx) for e in jaxpr.eqns]
    if eqn_docs is not None:
        eqn_docs.extend(docs)
    eqns = join(Brk("; "), docs)
    outs = concat(Text("("), pp_vars(jaxpr.outvars, ctx, sep=","),
                  Text(")" if len(jaxpr.outvars) != 1 else ",)"))
    return Group(concat(Nest(2, concat(
        Text("{ "), Text("lambda "), constvars, Text("; "), invars, Text(". "), Text("let"),
        Nest(2, concat(Brk(" "), eqns)), Brk(" "), Text("in "), outs)), Text(" }")))


def _share(top: Jaxpr, ctx: PpContext) -> list[tuple[str, Jaxpr]]:
    """Inner jaxprs used twice, or longer than ten equations, print once up front by name."""
    counts: dict[Jaxpr, int] = {}
    names: dict[Jaxpr, str] = {}
    queue = [top]
    while queue:
        j = queue.pop(0)
        counts[j] = counts.get(j, 0) + (2 if j is not top and len(j.eqns) > 10 else 1)
        for eqn in j.eqns:
            subs = jaxprs_in_params(eqn.params)
            name = eqn.params.get("name")
            for sub in subs:
                queue.append(sub)
                if name is not None:
                    names.setdefault(sub, str(name).strip("<>"))
    taken: dict[str, int] = {}
    shared = []
    for j, c in counts.items():
        if c == 1:
            continue
        name = names.get(j, "jaxpr")
        n = taken.get(name, 0)
        taken[name] = n + 1
        if n:
            name += str(n)
            taken[name] = taken.get(name, 0) + 1
        ctx.shared[j] = name
        shared.append((name, j))
    return shared


def pp_toplevel_doc(jaxpr: Jaxpr, ctx: PpContext, eqn_docs: list | None = None) -> Any:
    shared = _share(jaxpr, ctx)
    docs = []
    for name, j in shared:
        del ctx.shared[j]  # print its body here, then refer to it by name
        body = pp_jaxpr_doc(j, ctx)
        ctx.shared[j] = name
        docs.append(concat(Text(f"let {name} = "), body, Text(" in"), Brk(" ")))
    docs.append(pp_jaxpr_doc(jaxpr, ctx, eqn_docs))
    return concat(*docs)


def toplevel_context(jaxpr: Jaxpr) -> PpContext:
    return PpContext(_dropvars(jaxpr))


def pp_jaxpr_text(jaxpr: Jaxpr, width: int = WIDTH) -> str:
    with gc_paused():
        return layout(pp_toplevel_doc(jaxpr, toplevel_context(jaxpr)), width)


def pp_eqn_text(eqn: JaxprEqn) -> str:
    return layout(pp_eqn(eqn, PpContext()))

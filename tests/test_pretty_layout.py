"""The printer's layout: the fast paths (a fitting group laid out from the leaves its test
collected, equations cut out of the whole program, an equation known by its flat text)
print what the plain Wadler walk does with the documents alone."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import pe_engine
import pe_engine.numpy as jnp
from pe_engine import lax
from pe_engine.pretty import (
    Brk,
    Concat,
    Group,
    Line,
    Name,
    Nest,
    Text,
    concat,
    layout,
    layout_parts,
    pp_toplevel_doc,
    toplevel_context,
)


def _walk_layout(doc: Any, width: int, names: list) -> str:
    """The printer as the seed wrote it: every group's fit tested on its own, then its
    contents walked again, flat or breaking, and a Line taken as its document (the oracle
    the fast paths must match)."""
    def fits(d: Any, w: int) -> bool:
        agenda = [d]
        while agenda and w >= 0:
            d = agenda.pop()
            if type(d) in (Text, Brk, Name):
                w -= len(d.text)
            elif type(d) is Concat:
                agenda.extend(reversed(d.children))
            elif type(d) is Line:
                agenda.append(d.doc())
            else:
                agenda.append(d.child)
        return w >= 0

    out: list[str] = []
    k = pos = 0
    agenda: list[tuple[int, bool, Any]] = [(0, False, doc)]
    while agenda:
        i, flat, d = agenda.pop()
        t = type(d)
        if t in (Text, Name) or t is Brk and flat:
            if t is Name:
                names.append((pos, pos + len(d.text), d.text))
            out.append(d.text)
            k += len(d.text)
            pos += len(d.text)
        elif t is Brk:
            out.append("\n" + " " * i)
            k, pos = i, pos + 1 + i
        elif t is Concat:
            agenda.extend((i, flat, c) for c in reversed(d.children))
        elif t is Nest:
            agenda.append((i + d.n, flat, d.child))
        elif t is Line:
            agenda.append((i, flat, d.doc()))
        else:
            agenda.append((i, flat or fits(d.child, width - k), d.child))
    return "".join(out)


def _mlp(w1: Any, w2: Any, x: Any) -> Any:
    h = jnp.tanh(jnp.dot(w1, x))
    return jnp.sum(jnp.dot(w2, h) ** 2)


def _scan(w: Any, xs: Any) -> Any:
    def step(h: Any, x: Any) -> tuple:
        h = jnp.tanh(h * w + x)
        return h, h
    return lax.scan(step, 0.0, xs)[0]


def _long_chain(x: Any) -> Any:
    for _ in range(12):
        x = jnp.sin(x) * 2.0 + x
    return x


PROGRAMS = {
    "tiny": (lambda x: jnp.sin(x), (1.0,)),
    "mlp": (_mlp, (np.ones((4, 3), np.float32), np.ones((2, 4), np.float32),
                   np.ones(3, np.float32))),
    "grad-mlp": (pe_engine.grad(_mlp), (np.ones((4, 3), np.float32),
                                        np.ones((2, 4), np.float32), np.ones(3, np.float32))),
    "scan": (_scan, (0.5, np.ones(3, np.float32))),
    "grad-scan": (pe_engine.grad(_scan), (0.5, np.ones(3, np.float32))),
    "chain": (_long_chain, (np.ones(2, np.float32),)),
    "jit-inside": (lambda x: pe_engine.jit(_long_chain)(x) + x, (np.ones(2, np.float32),)),
    "many-outputs": (lambda *xs: [x * 2.0 for x in xs], tuple(np.ones(3, np.float32)
                                                              for _ in range(9))),
}


def _assert_parts_match_the_plain_walk(jaxpr, width: int):
    """The program's layout, its names and each equation's text, as the plain walk has them;
    returns the program's document and that layout."""
    eqn_docs: list = []
    doc = pp_toplevel_doc(jaxpr, toplevel_context(jaxpr), eqn_docs)
    want_names: list = []
    want = _walk_layout(doc, width, want_names)
    names: list = []
    text, eqns = layout_parts(doc, eqn_docs, width - 4, width, names)
    assert (text, names) == (want, want_names)
    assert eqns == [_walk_layout(d, width - 4, []) for d in eqn_docs]
    return doc, want


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("width", [80, 40, 20])
def test_layout_matches_the_plain_walk(name: str, width: int) -> None:
    fun, args = PROGRAMS[name]
    doc, want = _assert_parts_match_the_plain_walk(pe_engine.make_jaxpr(fun)(*args).jaxpr, width)
    assert layout(doc, width) == want


def test_a_part_met_off_its_indentation_is_laid_out_again() -> None:
    part = concat(Text("x ="), Group(Nest(2, concat(Brk(" "), Text("y" * 30)))))
    doc = concat(Text("ab"), part)  # the part starts at column 2, not at indent 0
    assert layout_parts(doc, [part], 20, 20) == (layout(doc, 20), [layout(part, 20)])
    assert layout(part, 20) == "x =\n  " + "y" * 30


@pytest.mark.parametrize("width", [80, 40, 20])
def test_a_long_equation_laid_out_again_prints_as_it_did(width: int) -> None:
    """The breaking layout of an equation that does not fit is kept and served again: the
    second program printed (every long equation found kept) matches the plain walk too."""
    jaxpr = pe_engine.make_jaxpr(PROGRAMS["grad-mlp"][0])(*PROGRAMS["grad-mlp"][1]).jaxpr
    for _ in range(2):
        _assert_parts_match_the_plain_walk(jaxpr, width)


def test_equations_alike_in_flat_text_keep_their_own_layouts() -> None:
    """A param whose text holds a space can make two equations print alike flat (one param
    `a=1 b=2` or two); broken, they differ, and neither is served the other's layout."""
    from pe_engine.core import JaxprEqn, Primitive, ShapedArray, Var
    from pe_engine.pretty import PpContext, pp_eqn
    prim = Primitive("p")
    x = Var(ShapedArray((3,), np.float32))
    outs = []
    for params in ({"a": "1 b=" + "2" * 20}, {"a": "1", "b": "2" * 20}):
        eqn = JaxprEqn([x], [Var(ShapedArray((3,), np.float32))], prim, params)
        doc = pp_eqn(eqn, PpContext())
        for _ in range(2):
            names: list = []
            outs.append(layout_parts(doc, (), 20, 20, names)[0])
            assert outs[-1] == _walk_layout(doc, 20, [])
    assert outs[0] == outs[1] != outs[2] == outs[3]

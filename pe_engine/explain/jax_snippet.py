""""Copy as JAX": a Python program that, run with real JAX 0.10.2, prints the programs a
record's panes show, each after a line `# pane: <pane id>`.

One entry per mode in `BODIES`; every snippet is the imports (the user's and its own, each
once), the user's code without its imports, the inputs as the page parsed them, then the
mode's body. Where the page shows an internal split, the body uses JAX's own internals:
`jax.make_jaxpr` of `jax.jvp`, then `partial_eval_jaxpr_nounits`, and `backward_pass`.
"""
from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .record import POLICY_NAMES
from .requests import differentiated
from .sandbox import signature
from .values import parse_value

_IMPORTS = {
    "np": "import numpy as np",
    "jax": "import jax",
    "pe": "from jax._src.interpreters import partial_eval as pe",
    "ad": "from jax._src.interpreters import ad",
}


def _split(args: Sequence[dict[str, Any]], record: Mapping[str, Any]) -> str:
    mask = [not a.get("known", True) for a in args]
    # JAX's instantiate: one bool per output, or False when the page forces none
    forced = record.get("instantiate") or []
    instantiate = forced if any(forced) else False
    return (f"closed = jax.make_jaxpr(f)(*args)\n"
            f"known, unknown, _, _ = pe.partial_eval_jaxpr_nounits(closed, {mask}, "
            f"{instantiate})\n"
            + _prints(record, ["known", "unknown"]))


# JAX's linearize of `fun` in the inputs `argnums`, as the page splits it: the jaxpr of its JVP
# split with the tangents unknown (shared by grad's and checkpoint's snippets and their masks)
_JVP_SPLIT = '''def jvp_split(argnums):
    """The JVP of fun in argnums, split: (forward, linear, out_unknowns, residuals)."""
    n, k = len(args), len(argnums)

    def jvp_program(*xs):
        """Every primal, then the tangents of the differentiated inputs (the others held)."""
        primals = list(xs[:n])

        def differentiated(*d):
            full = list(primals)
            for i, x in zip(argnums, d):
                full[i] = x
            return fun(*full)
        return jax.jvp(differentiated, tuple(primals[i] for i in argnums), tuple(xs[n:]))

    closed = jax.make_jaxpr(jvp_program)(*args, *(args[i] for i in argnums))
    return pe.partial_eval_jaxpr_nounits(closed, [False] * n + [True] * k, False)


'''

_MASKS_LINEARIZED = _JVP_SPLIT + '''print('# mask known_eqns unknown_eqns residuals residual_bytes')
for bits in range({count}):
    mask = format(bits, '0{n}b')  # one digit per argument: 1 held fixed, 0 differentiated
    argnums = [i for i, c in enumerate(mask) if c == '0']
    if not argnums:
        print(mask, 'error: nothing to differentiate')
        continue
    forward, linear, _, res = jvp_split(argnums)
    print(mask, len(forward.jaxpr.eqns), len(linear.jaxpr.eqns), len(res),
          sum(a.size * a.dtype.itemsize for a in res))
'''

# the function a linearized mask differentiates, by the mode the cells count
_MASKS_FUN: dict[str, Callable[[str], str]] = {
    "grad": lambda policy: "fun = f\n",
    "checkpoint": lambda policy: (
        "names = sorted({e.params['name'] for e in jax.make_jaxpr(f)(*args).jaxpr.eqns\n"
        "                if e.primitive.name == 'name'})  # checkpoint_name's\n"
        f"fun = jax.checkpoint(f, policy=jax.checkpoint_policies.{policy}"
        + ("(*names))\n" if policy.startswith("save_") else ")\n")),
}


def _masks(args: Sequence[dict[str, Any]], record: Mapping[str, Any]) -> str:
    n = len(args)
    fun = _MASKS_FUN.get(record.get("as_mode", "split"))
    if fun:  # grad's or checkpoint's linearized split of each mask, as the cells count it
        return fun(record.get("policy") or "") + _MASKS_LINEARIZED.format(count=2 ** n, n=n)
    return (f"closed = jax.make_jaxpr(f)(*args)\n"
            f"print('# mask known_eqns unknown_eqns residuals residual_bytes')\n"
            f"for bits in range({2 ** n}):\n"
            f"    mask = format(bits, '0{n}b')  # one digit per argument: 1 known, 0 unknown\n"
            f"    unknowns = [c == '0' for c in mask]\n"
            f"    known, unknown, _, res = pe.partial_eval_jaxpr_nounits(closed, unknowns, False)\n"
            f"    print(mask, len(known.jaxpr.eqns), len(unknown.jaxpr.eqns), len(res),\n"
            f"          sum(a.size * a.dtype.itemsize for a in res))\n")


def _jit(args: Sequence[dict[str, Any]], record: Mapping[str, Any]) -> str:
    if record.get("eager_constant_folding"):
        return ("with jax.ensure_compile_time_eval():\n"
                "    staged = jax.make_jaxpr(f)(*args)\n" + _prints(record, ["staged"]))
    return "staged = jax.make_jaxpr(f)(*args)\n" + _prints(record, ["staged"])


_LINEARIZE = _JVP_SPLIT + '''argnums = {argnums}  # the inputs marked unknown: differentiated
forward, linear, _, res = jvp_split(argnums)
num_res = len(res)

'''

_TRANSPOSE = '''def transposed(*rc):
    """The linear program transposed: (residuals, output cotangents) -> input cotangents."""
    undefined = [ad.UndefinedPrimal(a) for a in linear.in_avals[num_res:]]
    cts = ad.backward_pass(linear.jaxpr, False, linear.consts,
                           [*rc[:num_res], *undefined], list(rc[num_res:]))
    return [ad.instantiate_zeros(c) for c in cts[num_res:]]


try:
    backward = jax.make_jaxpr(transposed)(*(
        jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
        for a in [*linear.in_avals[:num_res], *linear.out_avals]))
except Exception as e:
    # JAX cannot transpose every linear program (a scan whose ys include a carry): the panes
    # above printed, and the page's {pane} pane is the engine's own transpose
    why = next((line for line in str(e).splitlines() if line.strip()), "")
    print(f"# no pane: {pane}: {{type(e).__name__}}: {{why}}")
    print("# (JAX cannot transpose this linear program; the page shows the engine's transpose)")
else:
    print("# pane: {pane}")
    print(backward)
'''


def _autodiff(fun: str, args: Sequence[dict[str, Any]], record: Mapping[str, Any]) -> str:
    """JAX's linearization split, then its transpose; each pane printed once JAX has made it.
    JAX cannot transpose every linear program: the snippet then says why in a `# no pane:`
    line instead of raising, the panes before it printed."""
    split = (fun + _LINEARIZE.format(argnums=tuple(differentiated(args)))
             + _prints(record, ["forward", "linear"]))
    ids = [p["id"] for p in record.get("panes", [])]
    return split + ("\n\n" + _TRANSPOSE.format(pane=ids[2]) if len(ids) > 2 else "")


def _grad(args: Sequence[dict[str, Any]], record: Mapping[str, Any]) -> str:
    return _autodiff("fun = f\n", args, record)


def _checkpoint(args: Sequence[dict[str, Any]], record: Mapping[str, Any]) -> str:
    name = record["selected"]
    if name not in POLICY_NAMES:
        fun = "fun = f\n"
    else:
        names = ", ".join(repr(n) for n in record["names"])
        policy = f"jax.checkpoint_policies.{name}"
        if name.startswith("save_"):
            policy += f"({names})"
        fun = f"fun = jax.checkpoint(f, policy={policy})\n"
    return _autodiff(fun, args, record)


def _interpreters(args: Sequence[dict[str, Any]], record: Mapping[str, Any]) -> str:
    return "print(jax.make_jaxpr(f)(*args))\n"


_Body = Callable[[Sequence[dict[str, Any]], Mapping[str, Any]], str]
BODIES: dict[str, tuple[tuple[str, ...], _Body]] = {
    "split": (("np", "jax", "pe"), _split),
    "jit": (("np", "jax"), _jit),
    "grad": (("np", "jax", "pe", "ad"), _grad),
    "linearize": (("np", "jax", "pe"), _grad),  # two panes: the split, no transpose
    "checkpoint": (("np", "jax", "pe", "ad"), _checkpoint),
    "interpreters": (("np", "jax"), _interpreters),
    "masks": (("np", "jax", "pe"), _masks),
}


def _prints(record: Mapping[str, Any], variables: Sequence[str]) -> str:
    """Print each pane's program after its `# pane:` line; `variables` name the programs
    of the first panes, in pane order."""
    ids = [p["id"] for p in record.get("panes", [])]
    return "".join(f'print("# pane: {pid}")\nprint({var})\n'
                   for pid, var in zip(ids, variables))


@functools.lru_cache(maxsize=32)
def _value(text: str) -> str:
    """An input as the page parses it (values.parse_value): a plain scalar stays a Python
    scalar; an array holds the dtype the page gave it (float32, int32 or bool)."""
    text = text.strip()
    value = parse_value(text)
    if not isinstance(value, np.ndarray):
        return text
    node = ast.parse(text, mode="eval").body
    if isinstance(node, ast.Call):
        func = ast.unparse(node.func).removeprefix("np.").removeprefix("jnp.")
        text = f"np.{func}({', '.join(ast.unparse(a) for a in node.args)})"
    return f"np.asarray({text}, dtype=np.{value.dtype.name})"


def _imports_and_code(source: str, fn: str | None) -> tuple[list[str], str]:
    """The user's import statements, and the code without them (where they are: from the
    sandbox's parse of the source, which the request made already)."""
    lines = source.splitlines()
    spans = signature(source, fn).imports
    drop = {i for start, end in spans for i in range(start - 1, end)}
    imports = ["\n".join(lines[start - 1:end]) for start, end in spans]
    code = "\n".join(line for i, line in enumerate(lines) if i not in drop).strip("\n")
    return imports, code


def snippet(mode: str, record: Mapping[str, Any], source: str, args: Sequence[dict[str, Any]],
            fn: str | None = None) -> str:
    """The snippet of `record`, made from the request it answers."""
    needed, body = BODIES[mode]
    user_imports, code = _imports_and_code(source, fn)
    # The snippet's own imports first: a name the user's imports bind again is theirs.
    imports = list(dict.fromkeys([*(_IMPORTS[n] for n in needed), *user_imports]))
    inputs = "".join(f"    {_value(str(a.get('value', '')))},\n" for a in args)
    return ("\n".join(imports) + "\n\n" + code + "\n\n\n"
            f"f = {record['fn']}\nargs = [\n{inputs}]\n" + body(args, record))

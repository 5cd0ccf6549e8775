"""The command line's `--check-jax`: the same request run by real JAX, pane for pane.

Each mode's panes are made as the engine makes them, with JAX's own functions: split mode is
`partial_eval_jaxpr_nounits` of `make_jaxpr` (with the request's per-output instantiate),
jit mode `make_jaxpr` (under `ensure_compile_time_eval` when folding is on), grad and
checkpoint mode the JVP program split with primals known and tangents unknown, then JAX's
`backward_pass` over the linear half (checkpoint: of `jax.checkpoint(f, policy=...)`). The
user's file is run by JAX as plain Python: it is the user's own code on their own machine.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .record import DEFAULT_POLICY
from .values import parse_value


class JaxMissing(Exception):
    """JAX is not installed in this interpreter."""


class NoJaxText(Exception):
    """JAX raised making a pane: it has no text to compare (README, "Differences from JAX")."""


@dataclass(frozen=True)
class PaneCheck:
    title: str
    engine: str
    jax: str | NoJaxText

    @property
    def agrees(self) -> bool:
        return self.engine == self.jax

    @property
    def compared(self) -> bool:
        return isinstance(self.jax, str)


def check(mode: str, kwargs: dict, record: dict) -> list[PaneCheck]:
    """Each of the record's panes beside the text JAX prints for it."""
    try:
        import jax
    except ImportError as e:
        raise JaxMissing(f"--check-jax needs JAX (pip install 'jax==0.10.2'): {e}") from None
    namespace: dict = {}
    exec(compile(kwargs["source"], "<user>", "exec"), namespace)  # noqa: S102 - see docstring
    fn = namespace[record["fn"]]
    values = [parse_value(a["value"]) for a in kwargs["args"]]
    try:
        texts = _PANES[mode](jax, fn, values, kwargs, record)
    except Exception as e:  # noqa: BLE001 - JAX refusing the function is an outcome to show
        texts = [_no_text(e)] * len(record["panes"])
    return [PaneCheck(p["title"], p["program"]["text"], t)
            for p, t in zip(record["panes"], texts, strict=True)]


def _split(jax: Any, fn: Callable, values: Sequence, kwargs: dict,
           record: dict) -> list[str]:
    from jax._src.interpreters import partial_eval as jpe

    closed = jax.make_jaxpr(fn)(*values)
    unknowns = [not a["known"] for a in kwargs["args"]]
    known, unknown, _, _ = jpe.partial_eval_jaxpr_nounits(
        closed, unknowns, list(kwargs.get("instantiate") or [False] * len(closed.out_avals)))
    return [str(known), str(unknown)]


def _jit(jax: Any, fn: Callable, values: Sequence, kwargs: dict,
         record: dict) -> list[str]:
    if kwargs.get("eager_constant_folding"):
        with jax.ensure_compile_time_eval():
            return [str(jax.make_jaxpr(fn)(*values))]
    return [str(jax.make_jaxpr(fn)(*values))]


def _autodiff(jax: Any, fn: Callable, values: Sequence) -> list[str]:
    """Forward, linear and backward programs, as the page's grad mode makes them."""
    import numpy as np
    from jax._src.interpreters import ad as jad
    from jax._src.interpreters import partial_eval as jpe

    n = len(values)

    def jvp_program(*xs: Any) -> list:
        p, t = jax.jvp(fn, tuple(xs[:n]), tuple(xs[n:]))
        return [*jax.tree_util.tree_leaves(p), *jax.tree_util.tree_leaves(t)]

    zeros = [0.0 if isinstance(v, float) else np.zeros_like(np.asarray(v)) for v in values]
    closed = jax.make_jaxpr(jvp_program)(*values, *zeros)
    known, linear, _, res = jpe.partial_eval_jaxpr_nounits(closed, [False] * n + [True] * n,
                                                           False)
    num_res = len(res)

    def transposed(*args: Any) -> list:
        undefined = [jad.UndefinedPrimal(a) for a in linear.in_avals[num_res:]]
        out = jad.backward_pass(linear.jaxpr, False, linear.consts,
                                [*args[:num_res], *undefined], list(args[num_res:]))
        return [jad.instantiate_zeros(c) for c in out[num_res:]]

    structs = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
               for a in [*linear.in_avals[:num_res], *linear.out_avals]]
    try:
        backward: str | NoJaxText = str(jax.make_jaxpr(transposed)(*structs))
    except Exception as e:  # noqa: BLE001 - e.g. a scan whose ys include a carry
        backward = _no_text(e)
    return [str(known), str(linear), backward]


def _no_text(e: Exception) -> NoJaxText:
    first = next((line for line in str(e).splitlines() if line.strip()), "")
    return NoJaxText(f"{type(e).__name__}: {first}")


def _grad(jax: Any, fn: Callable, values: Sequence, kwargs: dict,
          record: dict) -> list[str]:
    return _autodiff(jax, fn, values)


def _checkpoint(jax: Any, fn: Callable, values: Sequence, kwargs: dict,
                record: dict) -> list[str]:
    name = kwargs.get("policy") or DEFAULT_POLICY
    policy = getattr(jax.checkpoint_policies, name)
    if name.startswith("save_"):  # the names the function gives with checkpoint_name
        policy = policy(*record["names"])
    return _autodiff(jax, jax.checkpoint(fn, policy=policy), values)


_PANES: dict[str, Callable[..., list[str]]] = {
    "split": _split, "jit": _jit, "grad": _grad, "checkpoint": _checkpoint}


def verdict(checks: Sequence[PaneCheck]) -> bool:
    """Agreement: every pane JAX made is the engine's, and JAX made at least one."""
    return any(c.compared for c in checks) and all(c.agrees for c in checks if c.compared)


def report(checks: Sequence[PaneCheck], version: str) -> str:
    """One line per pane, a diff under each that differs, and the verdict last."""
    lines = []
    for c in checks:
        if not c.compared:
            lines.append(f"{c.title}: JAX makes no such program ({c.jax})")
            continue
        if c.agrees:
            lines.append(f"{c.title}: same as JAX")
            continue
        lines.append(f"{c.title}: differs from JAX")
        lines += ["  " + d for d in difflib.unified_diff(
            str(c.jax).splitlines(), c.engine.splitlines(), f"JAX {version}", "pe_engine",
            lineterm="")]
    if verdict(checks):
        lines.append(f"agrees: every program JAX {version} makes here is the engine's")
    elif not any(c.compared for c in checks):
        lines.append(f"no comparison: JAX {version} makes none of these programs")
    else:
        lines.append(f"DIFFERS: the engine's programs are not JAX {version}'s")
    return "\n".join(lines) + "\n"

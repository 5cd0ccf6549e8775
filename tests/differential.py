"""The differential harness: one workload, written once against a namespace `M` that is either
the engine or JAX, looked at through views (the printed programs and values a reader sees).

A view maps (M, fn, args) to text. `compare(view, impl, fn, args)` runs the view under `impl`
and under JAX and returns both texts; the suite runs every comparison twice, once with the
engine as `impl` and once with JAX itself, so that a harness that does not reproduce JAX's
own output (a view that is not deterministic, an API used wrongly) fails on its own and a
failure with the engine is the engine's.
"""
from __future__ import annotations

import itertools
import re
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jjnp  # noqa: E402
from jax._src import ad_checkpoint as jax_adc  # noqa: E402
from jax._src.interpreters import ad as jax_ad  # noqa: E402
from jax._src.interpreters import partial_eval as jax_pe  # noqa: E402

import pe_engine as pe  # noqa: E402
from pe_engine import ad as pe_ad  # noqa: E402
from pe_engine import partial_eval as pe_pe  # noqa: E402


def _jax_backward(linear: Any, num_res: int) -> Any:
    """JAX's backward pass over a linear program, staged: (residuals, cts) -> input cts."""
    def transposed(*args: Any) -> list:
        res, cts = args[:num_res], args[num_res:]
        undefined = [jax_ad.UndefinedPrimal(a) for a in linear.in_avals[num_res:]]
        out = jax_ad.backward_pass(linear.jaxpr, False, linear.consts, [*res, *undefined],
                                   list(cts))
        return [jax_ad.instantiate_zeros(c) for c in out[num_res:]]

    avals = [*linear.in_avals[:num_res], *linear.out_avals]
    structs = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals]
    return jax.make_jaxpr(transposed)(*structs)


def _engine_backward(linear: Any, num_res: int) -> Any:
    n_in = len(linear.in_avals) - num_res
    return pe_ad.transpose_jaxpr(linear, [False] * num_res + [True] * n_in,
                                 [True] * len(linear.out_avals))[0]


def _jax_folding() -> Any:
    return jax.ensure_compile_time_eval()


ENGINE = types.SimpleNamespace(
    name="engine", jnp=pe.numpy, lax=pe.lax, nn=pe.nn, jit=pe.jit, grad=pe.grad,
    value_and_grad=pe.value_and_grad, vjp=pe.vjp, jvp=pe.jvp, linearize=pe.linearize,
    checkpoint=pe.checkpoint, policies=pe.checkpoint_policies, make_jaxpr=pe.make_jaxpr,
    checkpoint_name=pe.ad_checkpoint.checkpoint_name,
    saved_residuals=pe.ad_checkpoint.saved_residuals,
    ensure_compile_time_eval=pe.ensure_compile_time_eval, tree_leaves=pe.tree_util.tree_leaves,
    partial_eval_jaxpr_nounits=pe_pe.partial_eval_jaxpr_nounits, backward=_engine_backward,
    vmap=pe.vmap, jacfwd=pe.jacfwd, jacrev=pe.jacrev, hessian=pe.hessian,
    custom_jvp=pe.custom_jvp, array_type=pe.core.Array)
JAX = types.SimpleNamespace(
    name="jax", jnp=jjnp, lax=jax.lax, nn=jax.nn, jit=jax.jit, grad=jax.grad,
    value_and_grad=jax.value_and_grad, vjp=jax.vjp, jvp=jax.jvp, linearize=jax.linearize,
    checkpoint=jax.checkpoint, policies=jax.checkpoint_policies, make_jaxpr=jax.make_jaxpr,
    checkpoint_name=jax_adc.checkpoint_name, saved_residuals=jax_adc.saved_residuals,
    ensure_compile_time_eval=_jax_folding, tree_leaves=jax.tree_util.tree_leaves,
    partial_eval_jaxpr_nounits=jax_pe.partial_eval_jaxpr_nounits, backward=_jax_backward,
    vmap=jax.vmap, jacfwd=jax.jacfwd, jacrev=jax.jacrev, hessian=jax.hessian,
    custom_jvp=jax.custom_jvp, array_type=jax.Array)
IMPLS = {"engine": ENGINE, "jax": JAX}

Fn = Callable[..., Any]
View = Callable[[Any, Fn, Sequence[Any]], str]


def from_source(source: str, name: str = "f") -> Fn:
    """A workload written as the page's user writes it (`jnp.sin(x)`, `lax.cond`, `jax.jit`,
    no imports) as a function of `M`: the same text can go to the page's engine as source."""
    def fn(M: Any, *args: Any) -> Any:
        jax_ns = types.SimpleNamespace(jit=M.jit, lax=M.lax, nn=M.nn, numpy=M.jnp)
        namespace = {"jnp": M.jnp, "lax": M.lax, "jax": jax_ns}
        exec(source, namespace)  # noqa: S102 - the tests' own workloads
        return namespace[name](*args)
    return fn


def _bound(M: Any, fn: Fn) -> Fn:
    return lambda *a: fn(M, *a)


def _zero(a: Any) -> Any:
    return 0.0 if isinstance(a, float) else np.zeros_like(np.asarray(a))


# --------------------------------------------------------------------------- views


def staged(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """make_jaxpr: what jit stages."""
    return str(M.make_jaxpr(_bound(M, fn))(*args))


def folded(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """make_jaxpr under eager constant folding."""
    with M.ensure_compile_time_eval():
        return str(M.make_jaxpr(_bound(M, fn))(*args))


def _split_text(M: Any, closed: Any, mask: Sequence[bool], instantiate: Any = False) -> str:
    known, unknown, out_uk, res = M.partial_eval_jaxpr_nounits(closed, list(mask), instantiate)
    return (f"mask={list(mask)}\nknown: {known}\nunknown: {unknown}\nout_unknowns={out_uk}\n"
            f"residuals={[repr(a) for a in res]}")


def split(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """The known/unknown split of the staged program, under every mask."""
    closed = M.make_jaxpr(_bound(M, fn))(*args)
    return "\n".join(_split_text(M, closed, mask)
                     for mask in itertools.product([False, True], repeat=len(args)))


def masks_of(n: int) -> list[tuple[bool, ...]]:
    """Every known/unknown mask of n inputs (True: known), in the mask explorer's order."""
    return list(itertools.product([False, True], repeat=n))


def mask_string(known: Sequence[bool]) -> str:
    return "".join("1" if k else "0" for k in known)


def mask_counts(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """The mask explorer's cells: per mask ("1" known), the known and unknown programs'
    equations, the residuals and their bytes."""
    closed = M.make_jaxpr(_bound(M, fn))(*args)
    lines = []
    for known in masks_of(len(args)):
        k, u, _, res = M.partial_eval_jaxpr_nounits(closed, [not x for x in known], False)
        nbytes = sum(a.size * a.dtype.itemsize for a in res)
        lines.append(f"{mask_string(known)} {len(k.jaxpr.eqns)} {len(u.jaxpr.eqns)} "
                     f"{len(res)} {nbytes}")
    return "\n".join(lines)


def split_instantiate(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """The split under every mask and every `instantiate` of the outputs (JAX's per-output
    flag: a known output forced into the unknown program)."""
    closed = M.make_jaxpr(_bound(M, fn))(*args)
    n_out = len(closed.jaxpr.outvars)
    return "\n".join(f"instantiate={list(inst)}\n" + _split_text(M, closed, mask, list(inst))
                     for mask in itertools.product([False, True], repeat=len(args))
                     for inst in itertools.product([False, True], repeat=n_out))


def jvp_program(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """make_jaxpr of jvp: the program forward mode stages."""
    def prog(*xs: Any) -> list:
        n = len(args)
        p, t = M.jvp(_bound(M, fn), tuple(xs[:n]), tuple(xs[n:]))
        return [*M.tree_leaves(p), *M.tree_leaves(t)]
    return str(M.make_jaxpr(prog)(*args, *map(_zero, args)))


def _grad_split(M: Any, fn: Fn, args: Sequence[Any]) -> tuple:
    n = len(args)

    def prog(*xs: Any) -> list:
        p, t = M.jvp(_bound(M, fn), tuple(xs[:n]), tuple(xs[n:]))
        return [*M.tree_leaves(p), *M.tree_leaves(t)]
    closed = M.make_jaxpr(prog)(*args, *map(_zero, args))
    return M.partial_eval_jaxpr_nounits(closed, [False] * n + [True] * n, False)


def grad_record(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """The page's grad mode: the JVP program split with primals known and tangents unknown,
    the forward and the linear programs."""
    known, linear, out_uk, _ = _grad_split(M, fn, args)
    return f"forward: {known}\nlinear: {linear}\n{out_uk}"


def backward(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """The page's grad mode, last pane: the linear program transposed."""
    _, linear, _, res = _grad_split(M, fn, args)
    return str(M.backward(linear, len(res)))


def grad_program(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """make_jaxpr of grad with respect to every argument."""
    return str(M.make_jaxpr(M.grad(_bound(M, fn), argnums=tuple(range(len(args)))))(*args))


def _describe(x: Any) -> str:
    val = np.asarray(x)
    weak = getattr(x, "weak_type", False)
    return f"{val.dtype.name}{list(val.shape)}{' weak' if weak else ''} " \
           f"{np.array2string(val, precision=4, suppress_small=True)}"


def grad_values(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """value_and_grad's values, with dtypes and weak types."""
    v, g = M.value_and_grad(_bound(M, fn), argnums=tuple(range(len(args))))(*args)
    return "\n".join(_describe(x) for x in [v, *g])


def aux_values(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """value_and_grad(has_aux=True), run now and under jit: the aux comes back as plain
    values, never a tracer of the differentiation."""
    out = []
    for wrap in (lambda g: g, M.jit):
        (v, aux), g = wrap(M.value_and_grad(_bound(M, fn), has_aux=True))(*args)
        out += [_describe(x) for x in [v, *M.tree_leaves(aux), *M.tree_leaves(g)]]
    return "\n".join(out)


def _kind(M: Any, x: Any) -> str:
    """What a value is to its user: the library's Array, a Python scalar (JAX's typed
    scalars are Python scalars too) or a NumPy value, with its dtype and weak type."""
    if isinstance(x, M.array_type):
        kind = "Array"
    elif isinstance(x, (bool, int, float, complex)):
        kind = next(t.__name__ for t in (bool, int, float, complex) if isinstance(x, t))
    else:
        kind = "numpy" if isinstance(x, (np.ndarray, np.generic)) else type(x).__name__
    return f"{kind} {_describe(x)}"


def output_types(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """The outputs run now, leaf by leaf: JAX's jit, cond and switch return Arrays with
    their dtype and weak type, even for a literal or an input passed through."""
    return "\n".join(_kind(M, x) for x in M.tree_leaves(fn(M, *args)))


def saved(M: Any, fn: Fn, args: Sequence[Any]) -> str:
    """saved_residuals: what reverse mode keeps, and where it comes from (line numbers
    stripped: the engine names the user's frame, JAX its own file's), as a sorted list:
    JAX's direct linearize orders them by its own traversal, and can save a Python scalar
    ("from a literal") that linearizing as JVP + partial eval inlines as a literal."""
    out = []
    for aval, src in M.saved_residuals(_bound(M, fn), *args):
        if src != "from a literal":
            out.append(f"{aval.str_short(short_dtypes=True)} {re.sub(r' from .*', '', src)}")
    return "\n".join(sorted(out))


def compare(view: View, impl: str, fn: Fn, args: Sequence[Any]) -> tuple[str, str]:
    """(the view under `impl`, the view under JAX)."""
    return _run(view, IMPLS[impl], fn, args), _run(view, JAX, fn, args)


def _run(view: View, M: Any, fn: Fn, args: Sequence[Any]) -> str:
    try:
        return view(M, fn, args)
    except Exception as e:  # noqa: BLE001 - an error is an outcome to compare
        return f"{type(e).__name__}: {e}"

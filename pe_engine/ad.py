"""Automatic differentiation: JVP, linearize = JVP + partial evaluation, transpose, vjp, grad.

This is the classic three-stage design JAX used until direct linearize (jax-facts §6):

1. `jvp` pushes (primal, tangent) pairs through every primitive with a JVP rule.
2. `linearize` runs that JVP under the partial evaluator with the primals known and
   the tangents unknown: primal work runs now, tangent work is staged into a linear
   jaxpr, and the known values the tangent work reads become its residuals.
3. `vjp` transposes the linear jaxpr (`backward_pass`): it walks the equations
   backwards, turning each linear primitive into its transpose.

The per-primitive rules live in two tables keyed by primitive, `primitive_jvps`
and `primitive_transposes`, filled by the module that defines each primitive (with
`defjvp`, `defjvp_zero` and `deflinear` below).
"""
from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from . import lax_base as lax
from .caches import memo_table
from .core import (
    ClosedJaxpr,
    Jaxpr,
    Literal,
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    Var,
    as_array,
    bind,
    eval_jaxpr,
    get_aval,
    jaxpr_as_fun,
    new_main,
    scalar_constant,
    trace_stack,
    weakref_lru_cache,
)
from .partial_eval import JaxprTracer, PartialVal, trace_to_jaxpr_nounits
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic

# primitive -> rule(primals, tangents, **params) -> (primal out(s), tangent out(s));
# a tangent may be a symbolic `Zero`.
primitive_jvps: dict[Primitive, Callable[..., tuple[Any, Any]]] = {}
# primitive -> rule(ct, *invals, **params) -> one cotangent (or None) per input;
# an input being transposed is an `UndefinedPrimal`, the others are values.
primitive_transposes: dict[Primitive, Callable[..., list[Any]]] = {}


# --------------------------------------------------------------------------- symbolic zeros


class Zero:
    """A tangent or cotangent known to be zero: no array is built, no equation staged."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


class UndefinedPrimal:
    """A linear input of a jaxpr being transposed: only its aval is known. Its cotangent
    may start from a value (JAX's `ValAccum(aval, val)`): what the backward pass finds for
    it is added to that, as it is found."""

    __slots__ = ("aval", "ct")

    def __init__(self, aval: ShapedArray, ct: Any = None):
        self.aval = aval
        self.ct = ct

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined_primal(x: Any) -> bool:
    return type(x) is UndefinedPrimal


def zeros_like_aval(aval: ShapedArray) -> Any:
    # A rank-0 zero is a literal of the aval's type; a bigger one a broadcast of it.
    return lax.full(aval.shape, scalar_constant(0, aval.dtype, aval.weak_type))


def instantiate_zeros(t: Any) -> Any:
    """A symbolic zero made an array. In a JVP rule (scatter's, concatenate's) that array is
    known work, so linearizing saves it as a residual, as JAX's linearize does."""
    if type(t) is not Zero:
        return t
    return zeros_like_aval(t.aval)


# Zero tangents JAX makes on the tangent side (a scan's carried tangent, a linearized
# function's zero output), by identity: linearizing as JVP + partial eval makes them known
# work, hence residuals, so they are remembered here for saved_residuals to leave out.
_tangent_side_zeros: weakref.WeakValueDictionary = memo_table("ad._tangent_side_zeros",
                                                              weakref.WeakValueDictionary())


def instantiate_tangent_side_zeros(t: Any) -> Any:
    if type(t) is not Zero:
        return t
    z = zeros_like_aval(t.aval)
    with contextlib.suppress(TypeError):  # a literal or an array held now: never a residual
        _tangent_side_zeros[id(z)] = z
    return z


def is_tangent_side_zero(x: Any) -> bool:
    return _tangent_side_zeros.get(id(x)) is x


def add_tangents(x: Any, y: Any) -> Any:
    """Tangents and cotangents are summed with `add_any`, skipping symbolic zeros."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return bind(lax.add_any_p, x, y)


# --------------------------------------------------------------------------- forward mode


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")
    _trace: JVPTrace

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        return get_aval(self.primal)

    def to_concrete_value(self) -> Any:
        p = self.primal
        return p.to_concrete_value() if isinstance(p, Tracer) else p

    def note_decision(self, kind: str, value: Any) -> None:
        if isinstance(self.primal, Tracer):
            self.primal.note_decision(kind, value)

    def full_lower(self) -> Any:
        # A value with a zero tangent no longer needs this trace.
        if type(self.tangent) is Zero:
            p = self.primal
            return p.full_lower() if isinstance(p, Tracer) else p
        return self


class JVPTrace(Trace):
    __slots__ = ()

    def pure(self, val: Any) -> JVPTracer:
        return JVPTracer(self, val, Zero(get_aval(val).to_tangent_aval()))

    lift = pure

    def process_primitive(self, primitive: Primitive, tracers: list, params: dict) -> list:
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(type(t) is Zero for t in tangents):
            outs = bind(primitive, *primals, **params)
            return [self.pure(o) for o in (outs if primitive.multiple_results else [outs])]
        rule = primitive_jvps.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{primitive}' not implemented")
        p_out, t_out = rule(primals, tangents, **params)
        if not primitive.multiple_results:
            p_out, t_out = [p_out], [t_out]
        return [JVPTracer(self, p, t) for p, t in zip(p_out, t_out, strict=True)]


def jvp_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any],
             tangents: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Run `fun` (flat lists in and out) on dual numbers; output tangents may be `Zero`."""
    with new_main(JVPTrace) as main:
        trace = JVPTrace(main)
        tracers_in = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents, strict=True)]
        outs = [trace.full_raise(o) for o in fun(*tracers_in)]
        return [o.primal for o in outs], [o.tangent for o in outs]


def jvp_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool],
              instantiate: bool | Sequence[bool]) -> tuple[ClosedJaxpr, list[bool]]:
    """The JVP of a jaxpr as a jaxpr: (primals, nonzero tangents) -> (primals, tangents).

    Output tangents that come out zero are left out unless `instantiate` asks for
    them; the second result says which output tangents are present. Cached per jaxpr.
    """
    inst = instantiate if isinstance(instantiate, bool) else tuple(instantiate)
    return _jvp_jaxpr(closed, tuple(nonzeros), inst)


@weakref_lru_cache
def _jvp_jaxpr(closed: ClosedJaxpr, nonzeros: tuple[bool, ...],
               instantiate: bool | tuple[bool, ...]) -> tuple[ClosedJaxpr, list[bool]]:
    n_out = len(closed.out_avals)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    fun = jaxpr_as_fun(closed)
    out_nz: list[bool] = []

    def jvp_fun(*args: Any) -> list[Any]:
        primals, nz_tangents = args[:len(nonzeros)], iter(args[len(nonzeros):])
        tangents = [next(nz_tangents) if nz else Zero(a.to_tangent_aval())
                    for nz, a in zip(nonzeros, closed.in_avals, strict=True)]
        p_out, t_out = jvp_flat(fun, primals, tangents)
        t_out = [instantiate_tangent_side_zeros(t) if i else t
                 for i, t in zip(inst, t_out, strict=True)]
        out_nz[:] = [type(t) is not Zero for t in t_out]
        return [*p_out, *(t for t in t_out if type(t) is not Zero)]

    tangent_avals = [a.to_tangent_aval() for a, nz in zip(closed.in_avals, nonzeros) if nz]
    return trace_to_jaxpr_dynamic(jvp_fun, [*closed.in_avals, *tangent_avals]), out_nz


# --------------------------------------------------------------------------- linearize


def linearize_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any],
                   observer: Any = None) -> tuple[list[Any], Jaxpr, list[Any]]:
    """JVP under the partial evaluator: primals known, tangents unknown.

    Returns (primal outputs, the linear jaxpr, residuals). The linear jaxpr's
    constvars are the residuals, its inputs the tangents, its outputs the output
    tangents.
    """
    n = len(primals)
    pvals = ([PartialVal.known(p) for p in primals]
             + [PartialVal.unknown(get_aval(p).to_tangent_aval()) for p in primals])
    primals_out: list[Any] = []

    def jvp_fun(*args: Any) -> list[Any]:
        p_out, t_out = jvp_flat(fun, args[:n], args[n:])
        primals_out[:] = p_out
        return [instantiate_tangent_side_zeros(t) for t in t_out]

    jaxpr, _, residuals = trace_to_jaxpr_nounits(jvp_fun, pvals, instantiate=True,
                                                 observer=observer)
    return [_lower(p) for p in primals_out], jaxpr, residuals


def _lower(x: Any) -> Any:
    return x.full_lower() if isinstance(x, Tracer) else x


def linearize(fun: Callable, *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """`jax.linearize`: the primal output and the JVP as a linear function of tangents."""
    flat, in_tree = tree_flatten(primals)
    flat_fun, out_tree = _flatten_fun(fun, in_tree)
    out, jaxpr, residuals = linearize_flat(flat_fun, flat)

    def f_jvp(*tangents: Any) -> Any:
        t_flat, t_tree = tree_flatten(tangents)
        if t_tree != in_tree:
            raise TypeError(f"linearized function expected tangents {in_tree}, got {t_tree}")
        outs = eval_jaxpr(jaxpr, residuals, *t_flat)
        # a zero tangent JAX makes now, an array; the linear jaxpr holds it as a literal
        outs = [as_array(o, v.aval) if type(v) is Literal else o
                for o, v in zip(outs, jaxpr.outvars)]
        return tree_unflatten(out_tree[0], outs)

    f_jvp.jaxpr = jaxpr  # type: ignore[attr-defined]
    f_jvp.residuals = residuals  # type: ignore[attr-defined]
    return tree_unflatten(out_tree[0], out), f_jvp


def _flatten_fun(fun: Callable, in_tree: Any) -> tuple[Callable[..., list], list]:
    out_tree: list = []

    def flat_fun(*flat_args: Any) -> list:
        out = fun(*tree_unflatten(in_tree, flat_args))
        leaves, tree = tree_flatten(out)
        out_tree[:] = [tree]
        return leaves

    return flat_fun, out_tree


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """`jax.jvp`: primals and tangents are tuples (or lists) of pytrees of the same shape."""
    p_flat, in_tree = tree_flatten(tuple(primals))
    t_flat, t_tree = tree_flatten(tuple(tangents))
    if t_tree != in_tree:
        raise TypeError(f"primal and tangent arguments to jvp must have the same tree "
                        f"structure; got {in_tree} and {t_tree}")
    flat_fun, out_tree = _flatten_fun(fun, in_tree)
    p_out, t_out = jvp_flat(flat_fun, p_flat, t_flat)
    t_out = [instantiate_zeros(t) for t in t_out]
    return tree_unflatten(out_tree[0], p_out), tree_unflatten(out_tree[0], t_out)


# --------------------------------------------------------------------------- transposition


def backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any],
                  cts_out: Sequence[Any]) -> list[Any]:
    """Transpose a jaxpr linear in its `UndefinedPrimal` args; returns their cotangents.

    Equations that read no linear value (a recomputation, say) are evaluated
    forwards first; the rest are walked backwards, each through its transpose rule.
    Cotangents are accumulated with `add_any`; a missing one is a symbolic `Zero`.
    """
    primal_env: dict[Var, Any] = {}
    ct_env: dict[Var, Any] = {}
    # A linear input is typed as the caller's UndefinedPrimal says (as JAX types its
    # accumulator), which may differ from the binder's type in weak type only.
    linear_in = {v: x for v, x in zip(jaxpr.invars, args) if is_undefined_primal(x)}

    def is_linear(a: Any) -> bool:
        return type(a) is not Literal and a not in primal_env

    def read_primal(a: Any) -> Any:
        if type(a) is Literal:
            return a.val
        if a in primal_env:
            return primal_env[a]
        return linear_in.get(a) or UndefinedPrimal(a.aval)

    def write_ct(v: Any, ct: Any) -> None:
        if type(v) is Literal or ct is None or type(ct) is Zero:
            return
        ct_env[v] = add_tangents(ct_env[v], ct) if v in ct_env else ct

    def pop_ct(v: Var) -> Any:
        ct = ct_env.pop(v, None)
        return Zero(v.aval) if ct is None else ct

    for v, x in zip(jaxpr.constvars, consts, strict=True):
        primal_env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        if not is_undefined_primal(x):
            primal_env[v] = x
        elif x.ct is not None:
            ct_env[v] = x.ct
    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(is_linear(a) for a in eqn.invars):
            linear_eqns.append(eqn)
        else:
            outs = bind(eqn.primitive, *map(read_primal, eqn.invars), **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            primal_env.update(zip(eqn.outvars, outs, strict=True))
    for out, ct in zip(jaxpr.outvars, cts_out, strict=True):
        write_ct(out, ct)
    for eqn in reversed(linear_eqns):
        cts = [pop_ct(v) for v in eqn.outvars]
        if all(type(c) is Zero for c in cts):
            continue
        rule = primitive_transposes.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) "
                                      f"for '{eqn.primitive}' not implemented")
        ct_arg = cts if eqn.primitive.multiple_results else cts[0]
        cts_in = rule(ct_arg, *map(read_primal, eqn.invars), **eqn.params)
        for a, ct in zip(eqn.invars, cts_in, strict=True):
            if is_linear(a):
                write_ct(a, ct)
    return [pop_ct(v) if is_undefined_primal(x) else None
            for v, x in zip(jaxpr.invars, args, strict=True)]


def transpose_jaxpr(closed: ClosedJaxpr, undefined: Sequence[bool],
                    ct_nonzero: Sequence[bool], instantiate: bool = True,
                    in_avals: Sequence[ShapedArray] | None = None,
                    ct_avals: Sequence[ShapedArray] | None = None
                    ) -> tuple[ClosedJaxpr, list[bool]]:
    """The transpose of a jaxpr as a jaxpr, for call-like primitives (jit, checkpoint).

    It takes (the defined inputs, the nonzero output cotangents) and returns the
    cotangents of the undefined inputs: all of them with `instantiate`, else only those
    not symbolically zero (the second result says which). `in_avals` and `ct_avals` type
    the inputs and cotangents as the values handed to it are typed (the jaxpr's own types
    by default). Cached per jaxpr, as JAX caches it.
    """
    in_avals = tuple(closed.in_avals if in_avals is None else in_avals)
    ct_avals = tuple(closed.out_avals if ct_avals is None else ct_avals)
    return _transpose_jaxpr(closed, tuple(undefined), tuple(ct_nonzero), instantiate,
                            in_avals, ct_avals)


@weakref_lru_cache
def _transpose_jaxpr(closed: ClosedJaxpr, undefined: tuple[bool, ...],
                     ct_nonzero: tuple[bool, ...], instantiate: bool,
                     in_avals: tuple[ShapedArray, ...], ct_avals: tuple[ShapedArray, ...]
                     ) -> tuple[ClosedJaxpr, list[bool]]:
    out_nz: list[bool] = []

    def transposed(*args: Any) -> list[Any]:
        n_def = len(undefined) - sum(undefined)
        defined, cts = args[:n_def], iter(args[n_def:])
        cts_full = [next(cts) if nz else Zero(a) for a, nz in zip(ct_avals, ct_nonzero)]
        it = iter(defined)
        args_full = [UndefinedPrimal(a) if u else next(it)
                     for a, u in zip(in_avals, undefined, strict=True)]
        cts_out = [c for c, u in zip(backward_pass(closed.jaxpr, closed.consts, args_full,
                                                   cts_full), undefined) if u]
        if instantiate:
            cts_out = [instantiate_zeros(c) for c in cts_out]
        out_nz[:] = [type(c) is not Zero for c in cts_out]
        return [c for c in cts_out if type(c) is not Zero]

    avals = ([a for a, u in zip(in_avals, undefined) if not u]
             + [a for a, nz in zip(ct_avals, ct_nonzero) if nz])
    return trace_to_jaxpr_dynamic(transposed, avals), out_nz


def vjp_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any], observer: Any = None
             ) -> tuple[list[Any], Callable[..., list[Any]], Jaxpr, list[Any]]:
    """Linearize, then transpose the linear jaxpr on demand."""
    out, jaxpr, residuals = linearize_flat(fun, primals, observer)
    in_avals = [get_aval(p).to_tangent_aval() for p in primals]

    def f_vjp(*cts: Any) -> list[Any]:
        cts_in = backward_pass(jaxpr, residuals, [UndefinedPrimal(a) for a in in_avals], cts)
        return [instantiate_zeros(c) for c in cts_in]

    return out, f_vjp, jaxpr, residuals


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """`jax.vjp`: (out, f_vjp[, aux]); f_vjp maps an output cotangent to input cotangents."""
    flat, in_tree = tree_flatten(primals)
    aux_box: list = []
    own_level = len(trace_stack)  # the traces this vjp makes start here
    flat_fun, out_tree = _flatten_fun(_split_aux(fun, aux_box) if has_aux else fun, in_tree)
    out, f_vjp_flat, jaxpr, residuals = vjp_flat(flat_fun, flat)

    def f_vjp(ct: Any) -> tuple[Any, ...]:
        ct_flat, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree[0]:
            raise TypeError(f"Tree structure of cotangent input {ct_tree} does not match "
                            f"structure of primal output {out_tree[0]}.")
        return tree_unflatten(in_tree, f_vjp_flat(*ct_flat))

    f_vjp.jaxpr = jaxpr  # type: ignore[attr-defined]
    f_vjp.residuals = residuals  # type: ignore[attr-defined]
    result = tree_unflatten(out_tree[0], out)
    return (result, f_vjp, _primal_tree(aux_box[0], own_level)) if has_aux else (result, f_vjp)


def _split_aux(fun: Callable, box: list) -> Callable:
    def main_only(*args: Any) -> Any:
        out, aux = fun(*args)
        box[:] = [aux]
        return out
    return main_only


def _primal_tree(tree: Any, own_level: int) -> Any:
    """The auxiliary output without this differentiation's tracers: aux is computed from
    the primals alone, so it is the primal of each of its JVP tracers, known to its partial
    evaluator. The tracers of enclosing transformations (levels below `own_level`) stay:
    an outer jvp or grad differentiates through aux as JAX's does."""
    def primal(x: Any) -> Any:
        while isinstance(x, (JVPTracer, JaxprTracer)) and x._trace.main.level >= own_level:
            if isinstance(x, JVPTracer):
                x = x.primal
            elif x.is_known():
                x = x.pval.get_known()
            else:
                break
        return x
    leaves, treedef = tree_flatten(tree)
    return tree_unflatten(treedef, [primal(x) for x in leaves])


# --------------------------------------------------------------------------- grad


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """`jax.value_and_grad`: differentiate a scalar function w.r.t. the `argnums` arguments."""
    single = isinstance(argnums, int)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def vg(*args: Any, **kwargs: Any) -> Any:
        nums_ = tuple(i % len(args) for i in nums)
        diff_args = tuple(args[i] for i in nums_)

        def f_partial(*dargs: Any) -> Any:
            full = list(args)
            for i, a in zip(nums_, dargs):
                full[i] = a
            return fun(*full, **kwargs)  # keyword arguments are not differentiated, as in JAX

        for leaf in tree_flatten(diff_args)[0]:
            _check_input_dtype(leaf)
        res = vjp(f_partial, *diff_args, has_aux=has_aux)
        ans, f_vjp = res[0], res[1]
        _check_output(ans)
        g = f_vjp(lax.full_like(ans, 1, shape=()))  # the seed keeps ans's weak type
        g = g[0] if single else g
        return ((ans, res[2]), g) if has_aux else (ans, g)

    vg.__name__ = f"value_and_grad({getattr(fun, '__name__', 'fun')})"
    return vg


def _check_input_dtype(x: Any) -> None:
    dtype = get_aval(x).dtype
    if dtype.kind in "biu":
        raise TypeError(f"grad requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {dtype.name}. If you want to use "
                        "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_output(ans: Any) -> None:
    aval = get_aval(ans)
    if aval.shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had "
                        f"shape: {aval.shape}.")
    if aval.dtype.kind != "f":
        raise TypeError(f"grad requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {aval.dtype.name}. For differentiation of "
                        "functions with integer outputs, use jax.vjp directly.")


def grad(fun: Callable, argnums: int | Sequence[int] = 0,
         has_aux: bool = False) -> Callable[..., Any]:
    """`jax.grad`: the gradient of a scalar function w.r.t. the `argnums` arguments."""
    vg = value_and_grad(fun, argnums, has_aux)

    def g(*args: Any, **kwargs: Any) -> Any:
        (ans, grads) = vg(*args, **kwargs)
        return (grads, ans[1]) if has_aux else grads

    g.__name__ = f"grad({getattr(fun, '__name__', 'fun')})"
    return g


# --------------------------------------------------------------------------- rule helpers


def defjvp(prim: Primitive, *jvp_fns: Callable[..., Any] | None) -> None:
    """One tangent contribution per input, `fn(g, ans, *primals, **params)`, summed."""
    def rule(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        ans = bind(prim, *primals, **params)
        out: Any = Zero(get_aval(ans).to_tangent_aval())
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                out = add_tangents(out, fn(t, ans, *primals, **params))
        return ans, out
    primitive_jvps[prim] = rule


def defjvp_zero(prim: Primitive) -> None:
    def rule(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        ans = bind(prim, *primals, **params)
        return ans, Zero(get_aval(ans).to_tangent_aval())
    primitive_jvps[prim] = rule


def deflinear(prim: Primitive, transpose: Callable[..., list[Any]]) -> None:
    """A primitive linear in its (single) operand: its JVP applies it to the tangent."""
    def rule(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        return bind(prim, *primals, **params), bind(prim, *tangents, **params)
    primitive_jvps[prim] = rule
    primitive_transposes[prim] = transpose

"""`jax.jacfwd`, `jax.jacrev` and `jax.hessian`: vmap over a standard basis of jvp / vjp,
unravelled back into the argument and output pytrees, as JAX builds them."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import jnp_arrays
from . import jnp_base as jnp
from . import lax_base as lax
from .ad import jvp, vjp
from .batching import vmap
from .core import bind, get_aval
from .pytree import tree_flatten, tree_map, tree_structure, tree_unflatten


def _partial(fun: Callable, argnums: int | Sequence[int], args: tuple
             ) -> tuple[Callable, tuple]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    dyn = tuple(args[i] for i in nums)

    def f(*dyn_args: Any) -> Any:
        full = list(args)
        for i, a in zip(nums, dyn_args):
            full[i] = a
        return fun(*full)
    return f, dyn


def _check_float(name: str, x: Any) -> None:
    if get_aval(x).dtype.kind != "f":
        raise TypeError(f"{name} requires real-valued inputs (input dtype that is a sub-dtype "
                        f"of np.floating), but got {get_aval(x).dtype.name}. For "
                        "differentiation of non-real inputs use the holomorphic option.")


# JAX casts each piece of the basis with a sharding of its own, one that never equals the
# piece's (its spec nests a list), so that cast is an equation even to the same type; the
# pieces of a Jacobian are cast only to change their type.
_BASIS_SHARDING = "the basis piece's"


def _std_basis(tree: Any) -> Any:
    leaves, _ = tree_flatten(tree)
    n = sum(int(np.size(np.zeros(get_aval(x).shape))) for x in leaves)
    dtype = jnp.weak_result_type(*leaves)[0]
    return _unravel(tree, 1, None, jnp_arrays.eye(n, dtype=dtype), _BASIS_SHARDING)


def _unravel(tree: Any, axis: int, example: Any, arr: Any, sharding: Any = None) -> Any:
    """`arr` cut along `axis` into one piece per leaf of `tree` (always by `split`, even into
    one piece, as JAX cuts it), reshaped, cast to the example's type (or the leaf's)."""
    leaves, treedef = tree_flatten(tree)
    shape = get_aval(arr).shape
    shapes = [shape[:axis] + get_aval(x).shape + shape[axis + 1:] for x in leaves]
    sizes = [get_aval(x).size for x in leaves]
    parts = jnp_arrays.split(arr, list(np.cumsum(sizes[:-1])), axis)
    out = []
    for part, s, leaf in zip(parts, shapes, leaves):
        ex = get_aval(leaf if example is None else example)
        part = jnp.reshape(part, s)
        out.append(lax.convert_element_type(part, ex.dtype, ex.weak_type) if sharding is None
                   else bind(lax.convert_element_type_p, part, new_dtype=ex.dtype,
                             weak_type=ex.weak_type, sharding=sharding))
    return tree_unflatten(treedef, out)


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian by forward mode: one jvp per input basis vector, batched."""
    if has_aux:
        raise NotImplementedError("jacfwd(has_aux=True) is not supported by this engine")

    @functools.wraps(fun)
    def jacfun(*args: Any) -> Any:
        f, dyn = _partial(fun, argnums, args)
        tree_map(functools.partial(_check_float, "jacfwd"), dyn)

        def pushfwd(tangents: tuple) -> Any:
            return jvp(f, dyn, tangents)

        y, jac = vmap(pushfwd, out_axes=(None, -1))(_std_basis(dyn))
        example = dyn[0] if isinstance(argnums, int) else dyn
        return tree_map(lambda yl, j: _unravel(example, get_aval(j).ndim - 1, yl, j), y, jac)
    return jacfun


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian by reverse mode: one vjp per output basis vector, batched."""
    @functools.wraps(fun)
    def jacfun(*args: Any) -> Any:
        f, dyn = _partial(fun, argnums, args)
        tree_map(functools.partial(_check_float, "jacrev"), dyn)
        res = vjp(f, *dyn, has_aux=has_aux)
        y, pullback = res[0], res[1]
        jac = vmap(pullback)(_std_basis(y))
        jac = jac[0] if isinstance(argnums, int) else jac
        example = dyn[0] if isinstance(argnums, int) else dyn
        jac_tree = tree_map(lambda xl, j: _unravel(y, 0, xl, j), example, jac)
        jac_tree = _tree_transpose(tree_structure(example), tree_structure(y), jac_tree)
        return (jac_tree, res[2]) if has_aux else jac_tree
    return jacfun


def _tree_transpose(outer: Any, inner: Any, tree: Any) -> Any:
    """An outer tree of inner trees, turned into an inner tree of outer trees."""
    if outer.kind == "leaf" or inner.kind == "leaf":
        return tree
    outer_leaves = tree_flatten(tree)[0]
    n_in = inner.num_leaves
    groups = [outer_leaves[i::n_in] for i in range(n_in)]
    return tree_unflatten(inner, [tree_unflatten(outer, g) for g in groups])


def hessian(fun: Callable, argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    return jacfwd(jacrev(fun, argnums), argnums)


def jacobian(fun: Callable, argnums: int | Sequence[int] = 0,
             has_aux: bool = False) -> Callable[..., Any]:
    """JAX's alias of jacrev."""
    return jacrev(fun, argnums=argnums, has_aux=has_aux)

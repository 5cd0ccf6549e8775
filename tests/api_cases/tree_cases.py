"""jax.tree and jax.tree_util, on the pytrees users pass: dicts, tuples, lists and None."""
from __future__ import annotations

from api_inputs import A, P, V

T = "jax.tree_util."

CASES: dict[str, tuple] = {
    T + "tree_map": (lambda M, x, y: M.tree_util.tree_map(lambda a, b: a * b,
                                                           {"w": x, "b": (y, None)},
                                                           {"w": y, "b": (x, None)}),
                     (V, P), True),
    T + "tree_leaves": (lambda M, x, a: M.tree_util.tree_leaves({"z": [a, x], "a": (x * 2.0,)}),
                        (V, A), True),
    T + "tree_flatten": (lambda M, x, a: M.tree_util.tree_flatten([a, {"k": x}])[0], (V, A),
                         True),
    T + "tree_unflatten": (lambda M, x, y: M.tree_util.tree_unflatten(
        M.tree_util.tree_structure({"b": x, "a": [y, y]}), [x, y, x * y]), (V, P), True),
    T + "tree_structure": (lambda M, x: M.tree_util.tree_unflatten(
        M.tree_util.tree_structure((x, {"u": x})), [x + 1.0, x * 2.0]), (V,), True),
}

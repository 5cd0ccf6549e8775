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

R = "jax.tree."


def _transpose(M, x, y):
    outer = M.tree.structure([0, 0])
    inner = M.tree.structure({"a": 0, "b": 0})
    t = M.tree.transpose(outer, inner, [{"a": x, "b": y}, {"a": y * 2.0, "b": x}])
    return t["a"][0] * t["b"][1] - t["a"][1]


CASES.update({
    R + "map": (lambda M, x, y: M.tree.map(lambda a, b: a * b, {"w": x, "b": [y, None]},
                                           {"w": y, "b": [x, None]}), (V, P), True),
    R + "map/prefix": (lambda M, x, y: M.tree.map(lambda s, t: M.tree.map(lambda a: a * s, t),
                                                  (2.0, 3.0), (x, {"u": y, "v": x})),
                       (V, P), True),
    R + "map/is_leaf": (lambda M, x, y: M.tree.map(lambda p: p[0] * p[1], [(x, y), (y, y)],
                                                   is_leaf=lambda n: isinstance(n, tuple)),
                        (V, P), True),
    R + "leaves": (lambda M, x, a: M.tree.leaves({"z": [a, x], "a": (x * 2.0, None)}), (V, A),
                   True),
    R + "flatten": (lambda M, x, a: M.tree.flatten([a, {"k": x}])[0], (V, A), True),
    R + "structure": (lambda M, x: M.tree.structure((x, {"u": x})).unflatten([x + 1.0, x]),
                      (V,), True),
    R + "unflatten": (lambda M, x, y: M.tree.unflatten(M.tree.structure({"b": x, "a": [y, y]}),
                                                       [x, y, x * y]), (V, P), True),
    R + "all": (lambda M, x: x * M.tree.all({"a": True, "b": (1, [2.0])}), (V,), True),
    R + "reduce": (lambda M, x, y: M.tree.reduce(lambda a, b: a * b, {"p": x, "q": (y, x)}),
                   (V, P), True),
    R + "reduce/init": (lambda M, x, y: M.tree.reduce(lambda a, b: a - b, [x, y], 1.0), (V, P),
                        True),
    R + "reduce_associative": (lambda M, x, y: M.tree.reduce_associative(
        lambda a, b: a - b, [x, y, x * 2.0, y, x]), (V, P), True),
    R + "transpose": (_transpose, (V, P), True),
    R + "broadcast": (lambda M, x, y: M.tree.broadcast((x, y), ({"a": y, "b": x}, [x, x, y])),
                      (V, P), True),
    R + "flatten_with_path": (lambda M, x, y: [v * len(M.tree_util.keystr(p)) for p, v in
                                               M.tree.flatten_with_path({"ab": x, "c": [y]})[0]],
                              (V, P), True),
    R + "leaves_with_path": (lambda M, x, y: [v * len(p) for p, v in
                                              M.tree.leaves_with_path([x, {"k": (y, x)}])],
                             (V, P), True),
    R + "map_with_path": (lambda M, x, y: M.tree.map_with_path(
        lambda p, v: v * len(M.tree_util.keystr(p)), {"w": x, "layer": [y, x]}), (V, P), True),
})

CASES.update({
    T + "tree_all": (lambda M, x: x * M.tree_util.tree_all([True, (1, None)]), (V,), True),
    T + "tree_reduce": (lambda M, x, y: M.tree_util.tree_reduce(lambda a, b: a + b, (x, [y])),
                        (V, P), True),
    T + "tree_reduce_associative": (lambda M, x, y: M.tree_util.tree_reduce_associative(
        lambda a, b: a * b, {"a": x, "b": y, "c": x}), (V, P), True),
    T + "tree_transpose": (lambda M, x, y: M.tree_util.tree_transpose(
        M.tree_util.tree_structure((0, 0)), M.tree_util.tree_structure([0, 0]),
        ([x, y], [y, x * y])), (V, P), True),
    T + "tree_broadcast": (lambda M, x, y: M.tree_util.tree_broadcast([x, y], [(x, y), y]),
                           (V, P), True),
    T + "tree_flatten_with_path": (lambda M, x, y: [
        v * len(str(p)) for p, v in M.tree_util.tree_flatten_with_path([x, {"k": y}])[0]],
        (V, P), True),
    T + "tree_leaves_with_path": (lambda M, x, y: [
        v * len(M.tree_util.keystr(p, simple=True, separator="/"))
        for p, v in M.tree_util.tree_leaves_with_path({"ab": [x, y], "c": y})], (V, P), True),
    T + "tree_map_with_path": (lambda M, x, y: M.tree_util.tree_map_with_path(
        lambda p, a, b: a * b * len(p), [x, (y,)], [y, (x,)]), (V, P), True),
    T + "keystr": (lambda M, x: [x * len(M.tree_util.keystr(p)) for p, _ in
                                 M.tree_util.tree_leaves_with_path({"a": [0, {"b": 1}]})],
                   (V,), True),
})

"""Differential cases for jax.numpy's array manipulation, indexing, creation, sorting and
linear-algebra-ish names (issue 45): name -> (f(M, *args), args, differentiable), as in
tests/test_breadth_vs_jax.py's W table."""
from __future__ import annotations

import numpy as np

rng = np.random.default_rng(45)
V = rng.standard_normal(5).astype(np.float32)
W6 = rng.standard_normal(6).astype(np.float32)
A = rng.standard_normal((2, 3)).astype(np.float32)
S = rng.standard_normal((3, 3)).astype(np.float32)
C = rng.standard_normal((2, 3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)

CASES: dict[str, tuple] = {
    # axes
    "jax.numpy.swapaxes": (lambda M, c: M.jnp.swapaxes(c, 0, 2), (C,), True),
    "jax.numpy.moveaxis": (lambda M, c: M.jnp.moveaxis(c, 0, -1), (C,), True),
    "jax.numpy.moveaxis/many": (lambda M, c: M.jnp.moveaxis(c, (0, 1), (2, 0)), (C,), True),
    "jax.numpy.rollaxis": (lambda M, c: M.jnp.rollaxis(c, 2), (C,), True),
    "jax.numpy.permute_dims": (lambda M, c: M.jnp.permute_dims(c, (1, 0, 2)), (C,), True),
    "jax.numpy.matrix_transpose": (lambda M, c: M.jnp.matrix_transpose(c), (C,), True),
    # at least n-d
    "jax.numpy.atleast_1d": (lambda M, x: M.jnp.atleast_1d(x) * M.jnp.atleast_1d(2.0), (V,), True),
    "jax.numpy.atleast_2d": (lambda M, x, a: M.jnp.atleast_2d(x, a), (V, A), True),
    "jax.numpy.atleast_3d": (lambda M, x, a: M.jnp.atleast_3d(x, a, x[0]), (V, A), True),
    # stacking
    "jax.numpy.hstack": (lambda M, x, y: M.jnp.hstack([x, y * 2.0]), (V, W6), True),
    "jax.numpy.hstack/2d": (lambda M, a: M.jnp.hstack((a, a)), (A,), True),
    "jax.numpy.hstack/array": (lambda M, a: M.jnp.hstack(a), (A,), True),
    "jax.numpy.column_stack/array": (lambda M, a: M.jnp.column_stack(a), (A,), True),
    "jax.numpy.vstack": (lambda M, a, x: M.jnp.vstack([a, x[:3]]), (A, V), True),
    "jax.numpy.dstack": (lambda M, a: M.jnp.dstack([a, a]), (A,), True),
    "jax.numpy.column_stack": (lambda M, x: M.jnp.column_stack([x, x * x]), (V,), True),
    "jax.numpy.concat": (lambda M, a: M.jnp.concat([a, a], axis=1), (A,), True),
    "jax.numpy.append": (lambda M, a, x: M.jnp.append(a, x), (A, V), True),
    "jax.numpy.append/axis": (lambda M, a: M.jnp.append(a, a, axis=0), (A,), True),
    "jax.numpy.block": (lambda M, a, s: M.jnp.block([[s, s[:, :2]], [a, a[:, :2]]]), (A, S), True),
    # splitting
    "jax.numpy.array_split": (lambda M, x: M.jnp.array_split(x, 3), (V,), True),
    "jax.numpy.array_split/even": (lambda M, x: M.jnp.array_split(x, 2), (W6,), True),
    "jax.numpy.hsplit": (lambda M, a: M.jnp.hsplit(a, 3), (A,), True),
    "jax.numpy.vsplit": (lambda M, a: M.jnp.vsplit(a, [1]), (A,), True),
    "jax.numpy.dsplit": (lambda M, c: M.jnp.dsplit(c, 2), (C,), True),
    "jax.numpy.unstack": (lambda M, a: M.jnp.unstack(a, axis=1), (A,), True),
    # triangles and diagonals
    "jax.numpy.tri": (lambda M, s: s * M.jnp.tri(3) + M.jnp.tri(3, 4, 1, M.jnp.int32)[:, :3],
                      (S,), True),
    "jax.numpy.tril": (lambda M, s: M.jnp.tril(s), (S,), True),
    "jax.numpy.tril/batched": (lambda M, c: M.jnp.tril(c, k=-1), (C,), True),
    "jax.numpy.triu": (lambda M, s: M.jnp.triu(s, 1), (S,), True),
    "jax.numpy.trace": (lambda M, s: M.jnp.trace(s), (S,), True),
    "jax.numpy.trace/offset": (lambda M, c: M.jnp.trace(c, 1, axis1=1, axis2=2), (C,), True),
    "jax.numpy.diag": (lambda M, x: M.jnp.diag(x), (V,), True),
    "jax.numpy.diag/k": (lambda M, x: M.jnp.diag(x, k=-1), (V,), True),
    "jax.numpy.diag_indices": (lambda M, s: s[M.jnp.diag_indices(3)], (S,), True),
    "jax.numpy.diag_indices_from": (lambda M, s: s.at[M.jnp.diag_indices_from(s)].set(0.0),
                                    (S,), True),
    # ranges and grids
    "jax.numpy.linspace": (lambda M, x: x * M.jnp.linspace(0.0, 1.0, 5), (V,), True),
    "jax.numpy.linspace/traced": (lambda M, x: M.jnp.linspace(x[0], x[1], 4, endpoint=False),
                                  (V,), True),
    "jax.numpy.linspace/retstep": (lambda M, x, y: M.jnp.linspace(x, y, 3, retstep=True, axis=1),
                                   (V, W6[:5]), True),
    "jax.numpy.logspace": (lambda M, x: M.jnp.logspace(x[0], x[1], 4), (V,), True),
    "jax.numpy.geomspace": (lambda M, x: M.jnp.geomspace(1.0 + x * x, 2.0, 3), (V,), True),
    "jax.numpy.meshgrid": (lambda M, x, y: M.jnp.meshgrid(x, y[:3]), (V, W6), True),
    "jax.numpy.meshgrid/ij_sparse": (lambda M, x, y: M.jnp.meshgrid(x, y, indexing="ij",
                                                                    sparse=True), (V, W6), True),
    "jax.numpy.ix_": (lambda M, a: a[M.jnp.ix_(np.array([1, 0]), np.array([2, 0]))], (A,), True),
    "jax.numpy.indices": (lambda M, a: a * M.jnp.indices((2, 3)), (A,), True),
    "jax.numpy.indices/sparse": (lambda M, a: a * M.jnp.indices((2, 3), sparse=True)[1], (A,),
                                 True),
    "jax.numpy.array/traced_items": (lambda M, x: M.jnp.array([x[0], 1.0]), (V,), True),
    "jax.numpy.array/nested": (lambda M, x: M.jnp.array([[x[0], 1], [2, x[1]]]), (V,), True),
    "jax.numpy.array/dtype": (lambda M, x: M.jnp.array([x[0] * 2, 1.0], dtype=M.jnp.int32),
                              (V,), False),
    "jax.numpy.array/wide": (lambda M, x: M.jnp.array([x[i % 5] for i in range(20)]), (V,), True),
    "jax.numpy.copy": (lambda M, x: M.jnp.copy(x) * 2.0, (V,), True),
    "jax.numpy.empty_like": (lambda M, x: x + M.jnp.empty_like(x, shape=(2, 5)), (V,), True),
    # products
    "jax.numpy.tensordot": (lambda M, c, b: M.jnp.tensordot(c, b, axes=([1, 2], [0, 1])),
                            (C, B), True),
    "jax.numpy.tensordot/int": (lambda M, a, b: M.jnp.tensordot(a, b, 1), (A, B), True),
    "jax.numpy.tensordot/weak": (lambda M, x: M.jnp.tensordot(x, 2.0, 0), (V,), True),
    "jax.numpy.inner": (lambda M, a, b: M.jnp.inner(a, b.T), (A, B), True),
    "jax.numpy.inner/scalar": (lambda M, a: M.jnp.inner(a, 3.0), (A,), True),
    "jax.numpy.vdot": (lambda M, a, s: M.jnp.vdot(a, s[:2]), (A, S), True),
    "jax.numpy.vecdot": (lambda M, c, b: M.jnp.vecdot(c, b), (C, B), True),
    "jax.numpy.vecdot/axis": (lambda M, a: M.jnp.vecdot(a, a * 2.0, axis=0), (A,), True),
    "jax.numpy.matvec": (lambda M, b, x: M.jnp.matvec(b, x[:4]), (B, V), True),
    "jax.numpy.matvec/batched": (lambda M, c: M.jnp.matvec(c, c[:, 0] * 2.0), (C,), True),
    "jax.numpy.vecmat": (lambda M, x, b: M.jnp.vecmat(x[:3], b), (V, B), True),
    "jax.numpy.vecmat/batched": (lambda M, a, b: M.jnp.vecmat(a, b), (A, B), True),
    "jax.numpy.vectorize": (lambda M, a, x: M.jnp.vectorize(lambda u, v: u * v + 1.0)(a, x[:3]),
                            (A, V), True),
    "jax.numpy.vectorize/signature": (
        lambda M, c: M.jnp.vectorize(lambda m: m.sum(0), signature="(n,m)->(m)")(c), (C,), True),
    "jax.numpy.kron": (lambda M, x, a: M.jnp.kron(x[:2], a), (V, A), True),
    "jax.numpy.cross": (lambda M, b: M.jnp.cross(b[:2, :3], b[1:3, :3]), (B,), True),
    "jax.numpy.cross/2d": (lambda M, b: M.jnp.cross(b[:, :2], b[:, 2:]), (B,), True),
    "jax.numpy.cross/mixed": (lambda M, b: M.jnp.cross(b[:, :2], b[:, 1:], axisc=0), (B,), True),
    "jax.numpy.rot90": (lambda M, a: M.jnp.rot90(a), (A,), True),
    "jax.numpy.rot90/k": (lambda M, c: (M.jnp.rot90(c, 2), M.jnp.rot90(c, -1, axes=(1, 2))),
                          (C,), True),
    "jax.numpy.vander": (lambda M, x: M.jnp.vander(x), (V,), True),
    "jax.numpy.vander/increasing": (lambda M, x: M.jnp.vander(x, 3, increasing=True), (V,), True),
    # sorting
    "jax.numpy.sort": (lambda M, x: M.jnp.sort(x), (V,), True),
    "jax.numpy.sort/axis0": (lambda M, a: M.jnp.sort(a, axis=0), (A,), True),
    "jax.numpy.sort/none_descending": (lambda M, a: M.jnp.sort(a, axis=None, descending=True),
                                       (A,), True),
    "jax.numpy.argsort": (lambda M, x: M.jnp.argsort(x), (V,), False),
    "jax.numpy.argsort/descending": (lambda M, a: M.jnp.argsort(a, axis=0, descending=True),
                                     (A,), False),
    "jax.numpy.argsort/gather": (lambda M, c: M.jnp.take_along_axis(c, M.jnp.argsort(c), -1),
                                 (C,), True),
    "jax.numpy.lexsort": (lambda M, x, y: M.jnp.lexsort((x, M.jnp.round(y))), (V, W6[:5]),
                          False),
    "jax.numpy.lexsort/axis": (lambda M, a: M.jnp.lexsort([a, a * 2.0], axis=0), (A,), False),
    # take and put
    "jax.numpy.take": (lambda M, x: M.jnp.take(x, np.array([0, -1, 3])), (V,), True),
    "jax.numpy.take/axis": (lambda M, a: M.jnp.take(a, np.array([[2, 0], [1, 1]]), axis=1),
                            (A,), True),
    "jax.numpy.take/traced": (lambda M, a, x: M.jnp.take(a, M.jnp.argsort(x)[:2], axis=1),
                              (A, V), True),
    "jax.numpy.take/wrap": (lambda M, x: M.jnp.take(x, np.array([7, -6]), mode="wrap"), (V,), True),
    "jax.numpy.take/clip": (lambda M, a: M.jnp.take(a, np.array([5, 1]), mode="clip"), (A,), True),
    "jax.numpy.take_along_axis": (
        lambda M, a: M.jnp.take_along_axis(a, np.array([[0, 2], [1, -1]]), axis=1), (A,), True),
    "jax.numpy.take_along_axis/broadcast": (
        lambda M, c: M.jnp.take_along_axis(c, np.array([[[1], [0], [3]]]), axis=2), (C,), True),
    "jax.numpy.take_along_axis/none": (
        lambda M, a: M.jnp.take_along_axis(a, np.array([5, 0]), axis=None), (A,), True),
    "jax.numpy.put_along_axis": (
        lambda M, a, x: M.jnp.put_along_axis(a, np.array([[0], [2]]), x[:2, None], axis=1,
                                             inplace=False), (A, V), True),
    "jax.numpy.put_along_axis/none": (
        lambda M, a: M.jnp.put_along_axis(a, np.array([4, 1]), 0.0, axis=None, inplace=False),
        (A,), True),
}

"""The differential harness for issue 11's names: one namespace per implementation.

Workloads are written once against `M`, either the engine (`ENGINE`) or JAX
(`JAX`). Each check runs a workload under two namespaces and compares what they
print and compute; `pairs()` yields (engine, JAX) and (JAX, JAX), so the harness
itself is checked on JAX alone and a failure of the first pair is the engine's.
"""
from __future__ import annotations

import itertools
import types

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax._src.interpreters import partial_eval as jpe  # noqa: E402

import pe_engine as pe  # noqa: E402
from pe_engine.partial_eval import partial_eval_jaxpr_nounits  # noqa: E402

# Every transform and namespace a workload may call, by the name both libraries give it.
SHARED = ("jit", "grad", "vjp", "jvp", "vmap", "jacfwd", "jacrev", "hessian", "checkpoint",
          "remat", "make_jaxpr", "scipy", "tree", "tree_util", "linearize", "value_and_grad",
          "custom_jvp", "custom_vjp", "eval_shape", "jacobian", "ensure_compile_time_eval")


def namespace(name: str, top, split_nounits) -> types.SimpleNamespace:
    """`M` for a workload: the library `top` (the engine's package or jax) under one name."""
    return types.SimpleNamespace(
        name=name, jnp=top.numpy, lax=top.lax, nn=top.nn, policies=top.checkpoint_policies,
        split=lambda closed, mask, inst=False: split_nounits(closed, mask, inst),
        **{attr: getattr(top, attr) for attr in SHARED})


ENGINE = namespace("engine", pe, partial_eval_jaxpr_nounits)
JAX = namespace("jax", jax, jpe.partial_eval_jaxpr_nounits)

PAIRS = [pytest.param(ENGINE, JAX, id="engine-vs-jax"), pytest.param(JAX, JAX, id="jax-vs-jax")]


def close(a, b, tol=2e-5):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.dtype, y.dtype, x.shape, y.shape)
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def masks(n: int, limit: int = 4) -> list[list[bool]]:
    """Some known/unknown masks: each input alone unknown, then the rest, up to `limit`."""
    all_masks = [list(m) for m in itertools.product([False, True], repeat=n)]
    singles = [[j == i for j in range(n)] for i in range(n)]
    rest = [m for m in all_masks if m not in singles and any(m) and not all(m)]
    return (singles + rest)[:limit] if n > 1 else [[True]]


def split_text(M, closed, mask):
    k, u, out_uk, res = M.split(closed, mask)
    return str(k), str(u), list(out_uk), [a.str_short(short_dtypes=True) for a in res]


def jvp_program(M, f, args):
    """The program the page's grad mode splits: primals and tangents in, JVP out."""
    n = len(args)

    def jvp_fun(*xs):
        p, t = M.jvp(f, tuple(xs[:n]), tuple(xs[n:]))
        return p, t

    return M.make_jaxpr(jvp_fun)(*args, *args)


NAMESPACES = {ns.name: ns for ns in (ENGINE, JAX)}


def float_argnums(args) -> tuple[int, ...]:
    return tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")


def summed(M, f):
    """f's outputs summed to one float scalar, for grad."""
    def g(*a):
        return sum(M.jnp.sum(o.astype(M.jnp.float32)) for o in jax.tree_util.tree_leaves(f(*a)))
    return g


# Each check of Workloads, with the workloads it runs on (a property of Workloads).
CHECKS = {"make_jaxpr_text": "names", "folded_text": "names", "values": "names",
          "gradients": "differentiable", "jvp_program_text": "jvp_names",
          "split_under_masks": "names", "grad_mode_split": "jvp_names"}


class Workloads:
    """A table of workloads, name -> (f(M, *args), args, differentiable), and the checks run on
    each one: make_jaxpr's text (plain and under eager constant folding), values, gradients,
    the JVP program's text and the splits of both programs. Programs are traced once per
    namespace and name (several checks read them)."""

    def __init__(self, table: dict[str, tuple]):
        self.table = table
        self._traced: dict[tuple[str, str], object] = {}
        self._jvp_traced: dict[tuple[str, str], object] = {}

    @property
    def names(self) -> list[str]:
        return sorted(self.table)

    @property
    def differentiable(self) -> list[str]:
        return sorted(n for n, (_, _, d) in self.table.items() if d)

    @property
    def jvp_names(self) -> list[str]:
        """Differentiable workloads whose inputs are all floats: JVP takes a tangent of each
        input, and an integer input's tangent is float0, which the page does not show."""
        return [n for n in self.differentiable if len(float_argnums(self.table[n][1])) ==
                len(self.table[n][1])]

    def params(self) -> list:
        """(check, workload) pairs for pytest, every check over the workloads it applies to."""
        return [pytest.param(check, name, id=f"{check}-{name}")
                for check, names in CHECKS.items() for name in getattr(self, names)]

    def check(self, check: str, name: str, ours, theirs) -> None:
        getattr(self, f"check_{check}")(name, ours, theirs)

    def run(self, M, name):
        f, args, _ = self.table[name]
        return (lambda *a: f(M, *a)), args

    def traced(self, M, name):
        key = (M.name, name)
        if key not in self._traced:
            f, args = self.run(M, name)
            self._traced[key] = M.make_jaxpr(f)(*args)
        return self._traced[key]

    def jvp_traced(self, M, name):
        key = (M.name, name)
        if key not in self._jvp_traced:
            f, args = self.run(M, name)
            self._jvp_traced[key] = jvp_program(M, f, args)
        return self._jvp_traced[key]

    def check_make_jaxpr_text(self, name, ours, theirs) -> None:
        assert str(self.traced(ours, name)) == str(self.traced(theirs, name))

    def _folded(self, M, name) -> str:
        f, args = self.run(M, name)
        with M.ensure_compile_time_eval():
            return str(M.make_jaxpr(f)(*args))

    def check_folded_text(self, name, ours, theirs) -> None:
        """make_jaxpr under eager constant folding: which constants print as literals and
        which are hoisted as constvars (one per array an operation on constants made)."""
        assert self._folded(ours, name) == self._folded(theirs, name)

    def check_values(self, name, ours, theirs) -> None:
        fo, args = self.run(ours, name)
        ft, _ = self.run(theirs, name)
        # Eagerly, inputs are arrays of each library (a NumPy array has no `.at`).
        close(fo(*map(ours.jnp.asarray, args)), ft(*map(theirs.jnp.asarray, args)))

    def check_gradients(self, name, ours, theirs) -> None:
        fo, args = self.run(ours, name)
        ft, _ = self.run(theirs, name)
        nums = float_argnums(args)
        close(ours.grad(summed(ours, fo), argnums=nums)(*args),
              theirs.grad(summed(theirs, ft), argnums=nums)(*args), tol=1e-4)

    def check_jvp_program_text(self, name, ours, theirs) -> None:
        assert str(self.jvp_traced(ours, name)) == str(self.jvp_traced(theirs, name))

    def check_split_under_masks(self, name, ours, theirs) -> None:
        jo, jt = self.traced(ours, name), self.traced(theirs, name)
        for mask in masks(len(self.table[name][1])):
            assert split_text(ours, jo, mask) == split_text(theirs, jt, mask), mask

    def check_grad_mode_split(self, name, ours, theirs) -> None:
        """The page's grad mode: the JVP program split with primals known, tangents
        unknown."""
        n = len(self.table[name][1])
        mask = [False] * n + [True] * n
        assert split_text(ours, self.jvp_traced(ours, name), mask) == \
            split_text(theirs, self.jvp_traced(theirs, name), mask)

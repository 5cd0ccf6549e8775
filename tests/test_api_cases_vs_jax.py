"""Every case of tests/api_cases/*_cases.py against real JAX 0.10.2.

A case module defines `CASES`, keyed by the public JAX name it exercises, optionally with a
variant after a slash ("jax.numpy.take/axis1"); each value is (f(M, *args), args,
differentiable) as in test_breadth_vs_jax.py, `f` written once against `M`, the engine or
JAX. Each case runs the same checks as the breadth workloads (breadth_harness.Workloads),
engine-vs-JAX and JAX-vs-JAX. tools/api_coverage.py counts a JAX name as supported only
when a case names it, so these tests are what docs/api-coverage.md's figures stand on.
"""
from __future__ import annotations

import pytest
from breadth_harness import PAIRS, Workloads

from tools.api_coverage import load_cases

WL = Workloads(load_cases())


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("check,name", WL.params())
def test_case(check, name, ours, theirs):
    WL.check(check, name, ours, theirs)

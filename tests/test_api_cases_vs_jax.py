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
@pytest.mark.parametrize("name", WL.names)
def test_make_jaxpr_text(name, ours, theirs):
    WL.check_make_jaxpr_text(name, ours, theirs)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", WL.names)
def test_folded_text(name, ours, theirs):
    WL.check_folded_text(name, ours, theirs)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", WL.names)
def test_values(name, ours, theirs):
    WL.check_values(name, ours, theirs)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", WL.differentiable)
def test_gradients(name, ours, theirs):
    WL.check_gradients(name, ours, theirs)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", WL.jvp_names)
def test_jvp_program_text(name, ours, theirs):
    WL.check_jvp_program_text(name, ours, theirs)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", WL.names)
def test_split_under_masks(name, ours, theirs):
    WL.check_split_under_masks(name, ours, theirs)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", WL.jvp_names)
def test_grad_mode_split(name, ours, theirs):
    WL.check_grad_mode_split(name, ours, theirs)

"""docs/api-coverage.md is current, and what it claims is tested.

A JAX name counts as supported when the engine exports it and a case in tests/api_cases/
names it (tools/api_coverage.py); test_api_cases_vs_jax.py runs every case against JAX, so a
supported name has a passing differential test. Here: the doc matches the tool's output,
every case names a real JAX callable, every name the engine exports in a counted namespace
has a case (a new name comes with its test), and issue 45's targets are met.
"""
from __future__ import annotations

import pytest

from tools import api_coverage as cov

ROWS = cov.coverage()
CASES = cov.load_cases()


def test_doc_is_current():
    assert cov.DOC.read_text() == cov.render(ROWS), "run: python tools/api_coverage.py"


def test_every_case_names_a_jax_callable():
    wrong = sorted(k for k in CASES if not cov.resolves_in_jax(cov.case_name(k)))
    assert not wrong, f"case keys that name no public JAX callable: {wrong}"


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.ns.title)
def test_every_engine_name_has_a_case(row):
    named = {cov.case_name(k) for k in CASES}
    untested = sorted(n for n in cov.engine_names(row.ns) if n in row.names
                      and f"{row.ns.jax_name}.{n}" not in named)
    assert not untested, f"{row.ns.title}: exported by the engine with no case: {untested}"


@pytest.mark.parametrize("row", [r for r in ROWS if r.ns.target is not None],
                         ids=lambda r: r.ns.title)
def test_targets(row, capsys):
    missing = [n for n in row.names if n not in row.supported]
    with capsys.disabled():
        print(f"\n{row.ns.title}: {len(row.supported)}/{len(row.names)} ({row.share:.1%}), "
              f"target {row.ns.target:.0%}")
    if row.ns.jax_name == "jax.numpy":
        return  # the jnp branches fill it: a figure to watch, not yet a gate
    assert row.share >= row.ns.target, f"{row.ns.title} is missing {missing}"


def test_required_names():
    """The scipy.special and tree_util names issue 45 names."""
    by_ns = {r.ns.jax_name: set(r.supported) for r in ROWS}
    assert set(cov.REQUIRED_SPECIAL) <= by_ns["jax.scipy.special"]
    assert set(cov.REQUIRED_TREE_UTIL) <= by_ns["jax.tree_util"]

"""The hostile corpus (tests/hostile_corpus.py) through the worker's own entry point.

tests/hostile_runner.py runs every case in a forked child of a JAX-free process and reports
what happened. Asserted per case: the located message the corpus expects, no audit event
(files, processes, sockets, frames, code objects) and no escape marker, the engine's state
after the request identical to before it, and the next request (a canary) answered exactly
as in a fresh process.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import hostile_corpus as corpus  # noqa: E402
import hostile_runner as runner  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    if os.path.exists(corpus.MARK):
        os.remove(corpus.MARK)
    proc = subprocess.run([sys.executable, str(Path(__file__).parent / "hostile_runner.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=1200,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["id"]: r for r in map(json.loads, proc.stdout.splitlines())}


def test_the_corpus_is_large_and_covers_every_category():
    cats = {c.category for c in corpus.CASES}
    assert len(corpus.CASES) >= 150
    assert cats == {"imports", "attribute walks", "def time", "persistence", "resources",
                    "format and patterns", "unicode"}
    assert len({c.id for c in corpus.CASES}) == len(corpus.CASES)


@pytest.mark.parametrize("case", corpus.CASES, ids=lambda c: c.id)
def test_hostile_source(case: corpus.Case, results: dict[str, dict]):
    got = results[case.id]
    assert "died" not in got, f"the child died (status {got.get('died')}): a loop in C that the " \
        "interrupt never reached, or a crash"
    answer = got["answer"]
    if case.kind == corpus.INTERRUPTED:
        # a loop stepping in Python: the page's interrupt landed, and was answered at once
        assert not answer["ok"], answer
        err = answer["error"]
        assert got["seconds"] < runner.INTERRUPT_AFTER + 1.0, got["seconds"]
    else:
        assert answer["ok"], answer  # the entry point answered (no exception escaped)
        err = answer["result"].get("error")
    if case.kind is None:
        assert err is None, err
    else:
        assert err is not None, f"{case.id} ran without error"
        assert err["type"] in case.kind, err
        if case.line is None:  # somewhere in the user's code
            assert err["lineno"] is not None, err
        else:
            assert err["lineno"] == case.line, err
        for w in case.words:
            assert w in err["message"], (w, err["message"])
        assert len(err["message"]) <= 2000
    assert not got["events"], got["events"]
    assert not os.path.exists(corpus.MARK), "an escape wrote its marker"
    assert got["state"], f"state changed: {got['diff']}"
    assert got["canary_same"], "the next request saw a different engine"


def test_state_is_restored_in_process_too():
    """The same guarantee without the fork: requests that set flags, seed numpy and fail
    midway, one after the other in one process, leave the canary as it was."""
    pristine = [runner.call(runner.CANARY), runner.call(runner.CANARY_JIT)]
    before = runner.engine_state()
    for case in corpus.CASES:
        if case.category == "persistence":
            runner.call(runner.request(case))
    assert runner.engine_state() == before
    assert [runner.call(runner.CANARY), runner.call(runner.CANARY_JIT)] == pristine

"""The engine's answer to a fresh grad edit at the scale people paste (issue 46), in CPython:
this checkout's engine against a baseline engine, alternating in one process.

Each workload of bench/scale_functions.py is asked as the page's worker asks it
(pe_engine.explain.entry.call, JSON in and out): grad mode, each edit `return (E) * c` with a
new c, so no answer is a cached one. Two requests per edit, as the page makes them: `first`
(calls unopened, no saved residuals: the record the page draws) and `whole` (the follow-up
that completes it). Prints, per workload and request, the baseline's and this checkout's
median ms per answer, their ratio (lower is better; `fastest`: the ratio of each side's
fastest block, which other processes on a busy machine disturb least), this checkout's us per
equation (over the record's events, the traced program's equations), and whether every answer
was the same text on both sides: a speed-up must not change an answer.

The baseline is the engine at a git ref (default main), extracted into a temporary folder and
imported beside this checkout's: each engine's modules are kept apart and put in sys.modules
only while it answers (see Engine). Timing as bench_engine.py's blocks: process CPU time, a
full collection first, one warm-up call per block; the two sides' blocks
alternate, --rounds of each, and each side's figure is the median of its blocks' medians.
Unlike bench_engine.py, the cyclic collector stays on, as in the page's worker (which freezes
the heap it booted with, as this bench does once both engines are loaded): its collections
during an answer are part of the answer's time.
Both sides answer the same edits, so their answers can be compared text for text.

    python3 bench/bench_engine_scale.py                      # against main
    python3 bench/bench_engine_scale.py --baseline ecc7e26   # against a commit
    python3 bench/bench_engine_scale.py --baseline none      # this checkout alone
    python3 bench/bench_engine_scale.py --profile 5          # + a cProfile of 5 edits each
    python3 bench/bench_engine_scale.py --examples           # + every example, every mode
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import importlib
import io
import itertools
import json
import os
import pkgutil
import pstats
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

_BENCH = Path(__file__).resolve().parent
ROOT = _BENCH.parent
sys.path.insert(0, str(_BENCH))

import scale_functions  # noqa: E402
from bench_engine import CLOCK, block, load_average  # noqa: E402

PACKAGE = "pe_engine"
ENTRY = PACKAGE + ".explain.run"
REQUESTS: dict[str, dict[str, bool]] = {"first": {"open_calls": False, "saved": False},
                                        "whole": {}}


def _engine_modules() -> dict[str, ModuleType]:
    return {k: m for k, m in sys.modules.items()
            if k == PACKAGE or k.startswith(PACKAGE + ".")}


class Engine:
    """One copy of the engine package, imported from `root`, its modules held apart from
    sys.modules except while `active()`: two copies then live in one process, each importing
    only its own modules (the engine imports some lazily, inside functions, by name)."""

    def __init__(self, label: str, root: Path):
        self.label = label
        for name in _engine_modules():
            del sys.modules[name]
        sys.path.insert(0, str(root))
        try:
            package = importlib.import_module(PACKAGE)
            # every submodule now, so a lazy import inside a call finds this copy's
            for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
                if not info.name.endswith(".__main__"):  # the command line: it would run
                    importlib.import_module(info.name)
            self.origin = package.__file__
        finally:
            sys.path.remove(str(root))
            self.modules = _engine_modules()
            for name in self.modules:
                del sys.modules[name]
        self.call: Callable[[str, str], str] = self.modules[PACKAGE + ".explain.entry"].call

    @contextmanager
    def active(self) -> Iterator[None]:
        for name in _engine_modules():
            del sys.modules[name]
        sys.modules.update(self.modules)
        try:
            yield
        finally:
            self.modules.update(_engine_modules())
            for name in _engine_modules():
                del sys.modules[name]



def baseline_root(ref: str, into: Path) -> Path:
    """The engine package at git `ref`, extracted under `into` (returned: the folder that
    holds it)."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", ref, PACKAGE],
                         check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(into, filter="data")
    return into


def request(name: str, kind: str, edit: int) -> dict[str, Any]:
    """Edit number `edit` of workload `name`, as the page's worker gets it."""
    source = scale_functions.FUNCTIONS[name][0]
    return {"mode": "grad", "source": scale_functions.fresh_edit(source, edit),
            "args": scale_functions.request_args(name), **REQUESTS[kind]}


def timed_block(engine: Engine, name: str, kind: str, edits: list[int],
                answers: dict[int, str]) -> float:
    """bench_engine's block over `edits` (the first one the warm-up), each answer kept; the
    requests are made before, and the engine put in place for the whole block."""
    todo = iter([(edit, json.dumps(request(name, kind, edit))) for edit in edits])

    def one() -> None:
        edit, text = next(todo)
        answers[edit] = engine.call(ENTRY, text)
    with engine.active():
        return block(one, len(edits) - 1, collector=True)


def n_events(answer: str) -> int:
    result = json.loads(answer)
    if not result["ok"] or "error" in result["result"]:
        raise RuntimeError(f"not a record: {answer[:500]}")
    return len(result["result"]["events"])


def compare(engines: list[Engine], workloads: list[str], repeat: int, rounds: int) -> int:
    """The table; returns how many answers differed between the two engines."""
    print(f"{'workload':<26} {'request':<7} {'eqns':>5} "
          + "".join(f"{e.label + ' ms':>13}" for e in engines)
          + (f" {'ratio':>6} {'fastest':>7}" if len(engines) == 2 else "")
          + f" {'us/eqn':>7} same")
    differing = 0
    edit = itertools.count()
    for name in workloads:
        for kind in REQUESTS:
            blocks: dict[str, list[float]] = {e.label: [] for e in engines}
            answers: dict[str, dict[int, str]] = {e.label: {} for e in engines}
            for _ in range(rounds):
                edits = [next(edit) for _ in range(repeat + 1)]
                for e in engines:
                    blocks[e.label].append(timed_block(e, name, kind, edits, answers[e.label]))
            ms = [statistics.median(blocks[e.label]) * 1e3 for e in engines]
            fastest = [min(blocks[e.label]) for e in engines]
            got = [answers[e.label] for e in engines]
            same = sum(got[0][i] == got[-1][i] for i in got[0])
            differing += len(got[0]) - same
            eqns = n_events(next(iter(got[-1].values())))
            print(f"{name:<26} {kind:<7} {eqns:>5} " + "".join(f"{m:>13.2f}" for m in ms)
                  + (f" {ms[1] / ms[0]:>6.3f} {fastest[1] / fastest[0]:>7.3f}"
                     if len(ms) == 2 else "")
                  + f" {ms[-1] / eqns * 1e3:>7.1f} {same}/{len(got[0])}", flush=True)
    return differing


# each mode's first request (the page's: what an edit asks first), then its whole one
MODE_FIRSTS: dict[str, list[dict[str, Any]]] = {
    "split": [{"open_calls": False}, {}], "jit": [{}],
    "grad": [{"open_calls": False, "saved": False}, {}],
    "checkpoint": [{"open_calls": False, "only_selected": True}, {}], "interpreters": [{}],
    "masks": [{}]}
# the interpreters record shows each variable's repr, `Var(id=...)`: an address, new each run
_VAR_ID = re.compile(r"Var\(id=\d+\)")


def check_examples(engines: list[Engine]) -> int:
    """Every example of the page (app/examples.json) asked in every mode, first and whole
    requests, of both engines; prints and returns how many answers differ."""
    examples = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
    asked = differing = 0
    for ex in examples:
        args = [{"known": ex["known"][p], "value": ex["values"][p]} for p in ex["known"]]
        for mode, variants in MODE_FIRSTS.items():
            for extra in variants:
                req = json.dumps({"mode": mode, "source": ex["code"], "args": args,
                                  **({"policy": ex["policy"]} if "policy" in ex else {}), **extra})
                got = []
                for e in engines:
                    with e.active():
                        got.append(_VAR_ID.sub("Var(id=)", e.call(ENTRY, req)))
                asked += 1
                if got[0] != got[-1]:
                    differing += 1
                    print(f"# differs: example {ex['id']}, mode {mode} {extra}")
    print(f"# the page's examples in every mode: {differing} of {asked} answers differ")
    return differing


def profile(engine: Engine, workloads: list[str], edits: int, top: int) -> None:
    """cProfile (process CPU clock) of `edits` fresh edits of each workload and request."""
    prof = cProfile.Profile(CLOCK)
    with engine.active():
        for name in workloads:
            for kind in REQUESTS:
                for i in range(edits):
                    prof.runcall(engine.call, ENTRY, json.dumps(request(name, kind, 100_000 + i)))
    for sort in ("cumulative", "tottime"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).strip_dirs().sort_stats(sort).print_stats(top)
        print(f"# profile of {engine.label}, by {sort}")
        print("\n".join("# " + line for line in out.getvalue().splitlines() if line.strip()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="main", help="git ref of the baseline, or none")
    ap.add_argument("--repeat", type=int, default=5, help="timed edits per block")
    ap.add_argument("--rounds", type=int, default=3, help="blocks per side")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="then profile this checkout's engine over N edits of each")
    ap.add_argument("--only", default="", help="the workloads whose name holds this text")
    ap.add_argument("--examples", action="store_true",
                    help="first compare both engines' answers to every example in every mode")
    ap.add_argument("--top", type=int, default=40, help="rows of each profile listing")
    opts = ap.parse_args(argv)
    workloads = [n for n in scale_functions.FUNCTIONS if opts.only in n]
    load_start = load_average()
    with tempfile.TemporaryDirectory(prefix="pe-baseline-") as tmp:
        engines = []
        if opts.baseline != "none":
            commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short",
                                     opts.baseline], check=True, capture_output=True,
                                    text=True).stdout.strip()
            engines.append(Engine(f"base {commit}", baseline_root(opts.baseline, Path(tmp))))
        engines.append(Engine("this", ROOT))
        gc.freeze()  # as the worker does once booted
        for e in engines:
            print(f"# {e.label}: {e.origin}")
        differing = check_examples(engines) if opts.examples and len(engines) == 2 else 0
        differing += compare(engines, workloads, opts.repeat, opts.rounds)
        print(f"# load average (1, 5, 15 min): {load_start} at start, {load_average()} at end; "
              f"Python {sys.version.split()[0]}; {opts.rounds} blocks of {opts.repeat} edits "
              f"per side, pid {os.getpid()}")
        if len(engines) == 2:
            print(f"# answers that differ from the baseline's: {differing}")
        if opts.profile:
            profile(engines[-1], workloads, opts.profile, opts.top)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())

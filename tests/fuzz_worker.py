"""The fuzzer's engine process (tests/test_fuzz_entry.py starts it): one JSON request line in,
one JSON report line out, as the page's worker calls the engine.

    python3 tests/fuzz_worker.py

Each request runs through `pe_engine.explain.entry.call` with a time limit enforced as the
page enforces it: a KeyboardInterrupt raised in the interpreter when the limit passes (the
page's interrupt buffer; a loop in C never sees it, and then this process spins and the test
replaces it, as the page replaces its worker). The limit is on this process's CPU time, not
the clock's: the test machine is shared, and a request must meet the same limit however
busy the machine is (the page's worker has a core of its own). The report says what came
back, how long it took, and whether the engine's state after the request is the state before
it; the canary, a request answered after each one, must come back as it did from a fresh
engine. JAX is never
imported here, and the address space is capped, as the page's wasm memory is.
"""
from __future__ import annotations

import json
import re
import resource
import signal
import sys
import time
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))
import hostile_runner  # noqa: E402

from pe_engine.explain import entry  # noqa: E402

MEMORY_CAP = 3 << 30


class _Alarm:
    """The page's interrupt once the limit passes, while a call runs: Pyodide finds SIGINT
    in its interrupt buffer and runs Python's SIGINT handler (by default, KeyboardInterrupt;
    the engine may put its own in place while it answers)."""

    armed = False
    fired_at: float | None = None  # CPU time

    @classmethod
    def fire(cls, signum: int, frame: FrameType | None) -> None:
        if cls.armed:
            cls.armed = False
            cls.fired_at = time.process_time()
            handler = signal.getsignal(signal.SIGINT)
            if not callable(handler):
                raise KeyboardInterrupt
            handler(signal.SIGINT, frame)


def fingerprint() -> dict:
    """The hostile corpus's engine state (engine modules' globals by identity, facades,
    config, numpy's generator, counters) and the modules loaded."""
    return {**hostile_runner.engine_state(), "sys.modules": sorted(sys.modules)}


def diff(before: dict, after: dict) -> list[str]:
    out = []
    for k in before:
        a, b = before[k], after[k]
        if a == b:
            continue
        if isinstance(a, dict):
            out += [f"{k}.{x}" + _inner(a.get(x), b.get(x)) for x in sorted(set(a) | set(b))
                    if a.get(x) != b.get(x)]
        elif isinstance(a, list) and k == "sys.modules":
            out += [f"sys.modules+{m}" for m in sorted(set(b) - set(a))]
            out += [f"sys.modules-{m}" for m in sorted(set(a) - set(b))]
        else:
            out.append(k)
    return out[:20]


def _inner(a: object, b: object) -> str:
    """The names that differ in a module's globals (by identity)."""
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return ""
    return ":" + ",".join(sorted(x for x in set(a) | set(b) if a.get(x) != b.get(x))[:5])


def canary() -> list[str]:
    """The hostile corpus's two canaries, each answer as its JSON text."""
    return [entry.call("pe_engine.explain.run", json.dumps(r))
            for r in (hostile_runner.CANARY, hostile_runner.CANARY_JIT)]


def timed_call(req: dict) -> tuple[str | None, float, float | None]:
    """The entry point's answer (None when the interrupt landed after it), the CPU time
    the call took, and the CPU time from the interrupt to the answer (None: no interrupt)."""
    text = None
    start = time.process_time()
    _Alarm.fired_at = None
    try:
        _Alarm.armed = True
        signal.setitimer(signal.ITIMER_PROF, req["limit"])
        text = entry.call(req["entry"], json.dumps(req["kwargs"]))
        _Alarm.armed = False
    except KeyboardInterrupt:  # landed after the engine had answered: not the engine's
        pass
    finally:
        _Alarm.armed = False
        signal.setitimer(signal.ITIMER_PROF, 0)
    end = time.process_time()
    return text, end - start, None if _Alarm.fired_at is None else end - _Alarm.fired_at


def _addressless(text: str) -> str:
    # an object's repr carries its address, which differs from call to call (a message's
    # `<function f at 0x...>`, the interpreters record's `Var(id=...)`, as JAX prints it)
    return re.sub(r"0x[0-9a-f]+|id=\d+", "@", text)


def serve(req: dict, pristine: list[str]) -> dict:
    """One request's report. With `replay`, the request is asked again after the canary:
    an answer not interrupted must come back the same (a cache or a counter that kept
    something of the first would show there)."""
    before = fingerprint()
    text, cpu, late = timed_call(req)
    after = fingerprint()
    report = {"answer": None if text is None else json.loads(text), "cpu": cpu,
              "after_interrupt": late, "state": diff(before, after),
              "canary_same": canary() == pristine, "replay_same": None}
    if req.get("replay") and text is not None and late is None:
        again, _, late_again = timed_call(req)
        if again is not None and late_again is None:
            report["replay_same"] = _addressless(again) == _addressless(text)
    return report


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    signal.signal(signal.SIGPROF, _Alarm.fire)
    pristine = canary()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        print(json.dumps(serve(json.loads(line), pristine)), flush=True)


if __name__ == "__main__":
    main()

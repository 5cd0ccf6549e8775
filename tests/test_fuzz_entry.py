"""The fuzzer: thousands of generated programs, hostile and odd ones among them, through the
worker's entry point (`pe_engine.explain.entry.call`), each asserted to answer, or to fail with
a clean error, within its time limit, leaving the engine as it found it.

The requests come from tests/fuzz_grammar.py; tests/fuzz_worker.py answers them in a process
of its own, interrupting each at its limit as the page does, and reports the engine's state
before and after and the canary's answer. A request passes when
- its answer is the entry point's JSON: a record, or an error record of a kind other than
  "internal" (an engine bug), or the interrupt's own KeyboardInterrupt once the limit
  passed, and nothing else once it passed; error records, and the records of a third of the
  requests, are checked against the contract (the JSON Schema of pe_engine/explain/schema.py);
- it came back within its limit and a grace (a loop in C that no interrupt reaches hangs the
  worker, which is then replaced, as the page replaces its worker); times are the worker's
  CPU seconds, so that a busy machine changes none of this;
- the engine's state afterwards is the state before it (tests/fuzz_worker.py's fingerprint),
  the canary is answered as a fresh engine answers it, and that third of the requests, asked
  again, come back the same.

CI draws FUZZ_EXAMPLES (default below) examples, the same ones every run (the suite's "gate"
profile); `FUZZ_EXAMPLES=20000 HYPOTHESIS_PROFILE=explore` hunts wider, FUZZ_REPORT=path
writes the tally of what came back, and FUZZ_KEEP_GOING=1 tallies failures instead of
stopping at the first.
"""
from __future__ import annotations

import collections
import functools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from pe_engine.explain import schema

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_grammar as grammar  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "1500"))  # the module: about 1.5 CPU minutes
# How long an interrupted call has to answer, in CPU seconds: stricter than the page's
# 1.5 s (app/limits.js INTERRUPT_GRACE_MS), which is wall time on a busier engine.
GRACE = 1.0
SLACK = 0.25  # the fingerprints and the canary around each request, in CPU seconds
WALL = 120  # a worker that answers nothing for this long, busy or not, hangs


class Worker:
    """tests/fuzz_worker.py, replaced when it hangs or dies."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.restarts = 0
        self._start()

    def _start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fuzz_worker.py")],
                                     cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        assert json.loads(self.lines.get(timeout=120)) == {"ready": True}

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put("")

    def _replace(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.restarts += 1
        self._start()

    def _cpu(self) -> float:
        """The worker's CPU time, in seconds (/proc/PID/stat's utime and stime)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __call__(self, req: grammar.Request) -> dict:
        """The worker's report, or a hang: the worker spent the limit and the page's grace
        (in CPU time, as the worker's limit is) without answering, or WALL seconds."""
        start, cpu = time.monotonic(), self._cpu()
        self.proc.stdin.write(json.dumps(req.wire()) + "\n")
        self.proc.stdin.flush()
        while True:
            try:
                line = self.lines.get(timeout=0.05)
                break
            except queue.Empty:
                if (self._cpu() - cpu > req.limit + GRACE + SLACK
                        or time.monotonic() - start > WALL):
                    self._replace()
                    return {"hang": True}
        if not line:
            code = self.proc.wait()
            self._replace()
            return {"crash": code}
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@functools.cache
def _validator(definition: str) -> jsonschema.Draft202012Validator:
    s = schema.record_schema()
    return jsonschema.Draft202012Validator({"$defs": s["$defs"], "$ref": f"#/$defs/{definition}"})


def contract_problems(req: grammar.Request, result: dict) -> list[str]:
    if "error" in result:
        definition = "ErrorRecord"
    elif req.entry.endswith("checkpoint_policy"):
        definition = "PolicyAnswer"
    else:
        definition = schema.answer_definition(result)
    return [f"{list(e.absolute_path)}: {e.message[:120]}"
            for e in _validator(definition).iter_errors(result)][:3]


def problems(req: grammar.Request, report: dict) -> list[str]:
    """What is wrong with one request's report, as failure classes (empty: it passed)."""
    if "hang" in report:
        return ["hang"]
    if "crash" in report:
        return [f"crash:{report['crash']}"]
    out = []
    answer = report["answer"]
    if answer is None:  # the interrupt landed after the engine had answered: nothing to judge
        return out
    late = report["after_interrupt"]
    if late is not None and late > GRACE:
        out.append("slow-interrupt")
    if late is not None and (answer["ok"] or answer["error"]["type"] != "KeyboardInterrupt"):
        out.append("swallowed")  # interrupted, yet something else came back
    if not answer["ok"]:
        err = answer["error"]
        interrupted = err["type"] == "KeyboardInterrupt" and late is not None
        too_big = err["type"] == "MemoryError" and "page's limit" in err["message"]
        if not (interrupted or too_big):
            out.append(f"escaped:{err['type']}")
    else:
        result = answer["result"]
        # jsonschema takes 80 ms over a record, longer than the engine took to write it: an
        # error record is checked always, a whole record when the request is asked again
        if "error" in result or req.replay:
            out += [f"contract:{p}" for p in contract_problems(req, result)]
        err = result.get("error")
        if err and err.get("type") == "internal":
            out.append(f"internal:{err['message'].split(':')[0][:60]}")
    out += [f"state:{k}" for k in report["state"]]
    if not report["canary_same"]:
        out.append("canary")
    if report["replay_same"] is False:
        out.append("replay")
    return out


def outcome(report: dict) -> str:
    """What came back, for the tally: a record, an error record's kind, or the interrupt."""
    if "hang" in report or "crash" in report or report["answer"] is None:
        return "hang" if "hang" in report else "crash" if "crash" in report else "late"
    answer = report["answer"]
    if not answer["ok"]:
        return answer["error"]["type"]
    err = answer["result"].get("error")
    return f"error:{err['type']}" if err else "record"


def message(report: dict) -> str:
    """An error's kind and the start of its message, for the tally."""
    answer = report.get("answer") or {}
    err = answer.get("error") or (answer.get("result") or {}).get("error")
    return f"{err['type']}: {err['message'][:50]}" if err else outcome(report)


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


TALLY: dict[str, collections.Counter] = {"outcome": collections.Counter(),
                                         "problems": collections.Counter(),
                                         "messages": collections.Counter(),
                                         "tags": collections.Counter()}
SAMPLES: dict[str, dict] = {}  # the shortest request met of each problem
KEEP_GOING = os.environ.get("FUZZ_KEEP_GOING") == "1"  # tally failures instead of stopping


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(req=grammar.requests())
def test_every_request_answers_cleanly_and_leaves_no_trace(worker, req):
    report = worker(req)
    TALLY["outcome"][outcome(report)] += 1
    TALLY["tags"].update(req.tags)
    TALLY["messages"][message(report)] += 1
    if sum(TALLY["outcome"].values()) % 500 == 0:
        write_report(worker.restarts)
    found = problems(req, report)
    for p in found:
        TALLY["problems"][p] += 1
        if p not in SAMPLES or len(req.kwargs["source"]) < len(SAMPLES[p]["kwargs"]["source"]):
            SAMPLES[p] = {**req.wire(), "tags": sorted(req.tags)}
    assert KEEP_GOING or not found, (found, req.wire(), req.tags)


def summary(restarts: int) -> dict:
    counts = TALLY["outcome"]
    return {"examples": sum(counts.values()), "outcomes": dict(counts.most_common()),
            "problems": dict(TALLY["problems"]),
            "restarts": restarts, "fragments_drawn": len(TALLY["tags"])}


def write_report(restarts: int) -> None:
    """FUZZ_REPORT's file: the summary, what each fragment and message came to, and the
    shortest request met of each problem (written along a long run, too)."""
    if path := os.environ.get("FUZZ_REPORT"):
        Path(path).write_text(json.dumps({
            **summary(restarts), "tags": dict(TALLY["tags"]),
            "messages": dict(TALLY["messages"].most_common()), "samples": SAMPLES}, indent=1))


def test_the_fuzz_reached_every_kind_of_answer(worker):
    """The run was not vacuous: records, located errors of several kinds and interrupts
    all came back, and most fragments were drawn (hypothesis favours some; every one runs
    in test_each_fragment_alone)."""
    got = summary(worker.restarts)
    print(json.dumps(got, indent=1))
    write_report(worker.restarts)
    counts = TALLY["outcome"]
    assert counts["record"] > EXAMPLES // 10, got
    assert {"error:restricted", "error:runtime", "error:trace", "KeyboardInterrupt"} <= set(counts)
    assert got["fragments_drawn"] > len(grammar.FRAGMENTS) // 2, got


@pytest.mark.parametrize("i", range(len(grammar.FRAGMENTS)),
                         ids=[tag for tag, _ in grammar.FRAGMENTS])
def test_each_fragment_alone(worker, i):
    """Every fragment once, whatever the draws reach: alone in f(x), each in another mode,
    x known or not."""
    tag, body = grammar.FRAGMENTS[i]
    req = grammar.alone(tag, body, grammar.MODES[i % len(grammar.MODES)], known=i % 4 == 0)
    report = worker(req)
    found = problems(req, report)
    assert not found, (found, req.wire())

"""Runs the hostile corpus (tests/hostile_corpus.py) and prints one JSON answer per case.

    python3 tests/hostile_runner.py [case-id ...]

A process of its own (tests/test_hostile.py starts it): each case runs in a child forked
from here, under a memory cap and the page's interrupt, exactly as the worker calls the
engine (`pe_engine.explain.entry.call`), with an audit hook recording anything that would mean a
real module was reached (files, processes, sockets, code objects, frames). Forking needs a
process without threads, so JAX, which the rest of the suite imports, is never loaded here.
"""
from __future__ import annotations

import json
import os
import resource
import select
import signal
import sys
import time
import unicodedata  # noqa: F401 (the parser loads it for non-ASCII names: here, not in a case)
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))
import hostile_corpus as corpus  # noqa: E402

from pe_engine import core  # noqa: E402
from pe_engine.explain import entry, guards, numpy_facade, sandbox  # noqa: E402

CANARY = {"mode": "split", "source": "import jax.numpy as jnp\nimport numpy as np\n"
          "def f(x, y):\n    return jnp.sin(x) * y + np.random.randn()\n",
          "args": [{"known": True, "value": "1.0"}, {"known": False, "value": "2.0"}]}
CANARY_JIT = {"mode": "jit", "source": "import jax.numpy as jnp\n"
              "def f(x):\n    return x + jnp.sin(1.0)\n", "args": [{"value": "1.0"}]}
# Audit events that no request may raise: the engine itself never opens a file, starts a
# process, touches a socket, or makes code or frames behind the sandbox's back.
DANGER = ("open", "os.", "subprocess.", "socket.", "ctypes.", "sys._getframe", "sys.set",
          "code.__new__", "function.__new__", "marshal.", "pickle.", "urllib.", "webbrowser.",
          "builtins.input", "import")
MEMORY_CAP = 3 << 30
SECONDS = 20  # CPU seconds a child may use: the interrupt's 5, and the checks after it
WALL_SECONDS = 1800
# The page's own schedule (app/limits.js): a call is interrupted (KeyboardInterrupt, which
# Python raises between bytecodes, as Pyodide's interrupt buffer does) after CALL_TIMEOUT_MS,
# and the engine torn down if the interrupt never lands (a loop in C). Here the interrupt
# comes after as much CPU time (the engine's worker has a core; this machine may not), and
# the parent kills a child that never answers (a loop in C ignores the child's own timers):
# the case "died".
INTERRUPT_AFTER = 5.0


def request(case: corpus.Case) -> dict:
    params = "x" if case.source.count("def f(x") else None
    assert params, case.id
    return {"mode": case.mode, "source": case.source,
            "args": [{"known": True, "value": v} for v in case.args]}


def call(req: dict) -> dict:
    return json.loads(entry.call("pe_engine.explain.run", json.dumps(req)))


def engine_state() -> dict:
    """Everything a request could leave behind: every engine module's globals (by
    identity), the facades' contents, jax.config, numpy's generator, the guards' counters."""
    mods = {name: {k: id(v) for k, v in vars(m).items()}
            for name, m in sorted(sys.modules.items())
            if name == "pe_engine" or name.startswith("pe_engine.")}
    return {
        "modules": mods,
        "facades": {n: {k: id(v) for k, v in f._attrs.items()}
                    for n, f in sandbox.facades().items()},
        "config": dict(core.config.values),
        "rng": _rng_state(),
        "depth": guards._Depth.calls,
        "observer": type(core.observer).__name__,  # the caps are gone after a request
        "replaying": len(core.replaying()),
    }


def _rng_state() -> list | None:
    """The facade's generator's state; None while no request has drawn from it."""
    rng = numpy_facade._RandomState.rng
    return None if rng is None else rng.get_state()[1][:8].tolist()


def _interrupt(signum: int, frame: object) -> None:
    signal.raise_signal(signal.SIGINT)  # what the page stores in Pyodide's interrupt buffer


def _child(case: corpus.Case, out: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    signal.signal(signal.SIGPROF, _interrupt)
    signal.setitimer(signal.ITIMER_PROF, INTERRUPT_AFTER)
    events: list[str] = []
    recording = [True]
    engine_dir = str(Path(core.__file__).parent)

    def hook(event: str, args: tuple) -> None:
        if not recording[0]:
            return
        if event == "sys._getframe":  # the engine finds the user's line this way
            if not args[0].f_code.co_filename.startswith(engine_dir):
                events.append(f"{event} {args[0].f_code.co_filename}")
        elif event in ("compile", "exec"):
            # the sandbox's own parse and run of the user's code, and nothing else
            name = args[1] if event == "compile" else getattr(args[0], "co_filename", "")
            if name not in ("<user>", None, "<unknown>"):
                events.append(f"{event} {name}")
        elif event == "open" and args[0] == "<user>":
            pass  # a SyntaxError looking for the text of the user's code, which is no file
        elif event == "open" and args[1] == "r" and (
                str(args[0]).startswith(engine_dir) or args[0] == __file__):
            pass  # the engine's (and this file's) source, read for an interrupt's traceback
        elif event.startswith(DANGER):
            events.append(f"{event} {str(args)[:80]}")

    before = engine_state()
    sys.addaudithook(hook)
    start = time.process_time()
    answer = call(request(case))
    seconds = time.process_time() - start
    signal.setitimer(signal.ITIMER_PROF, 0)
    recording[0] = False
    after = engine_state()
    canary = [call(CANARY), call(CANARY_JIT)]
    os.write(out, json.dumps({"answer": answer, "events": events, "state": before == after,
                              "diff": _diff(before, after), "canary": canary,
                              "seconds": seconds}).encode())


def _diff(a: dict, b: dict) -> list[str]:
    out = []
    for k in a:
        if a[k] != b[k]:
            if isinstance(a[k], dict):
                out += [f"{k}.{x}" for x in set(a[k]) | set(b[k]) if a[k].get(x) != b[k].get(x)]
            else:
                out.append(k)
    return out[:10]


def _cpu_seconds(pid: int) -> float:
    """The CPU time a child has used (this machine may be shared: wall time says little)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_isolated(case: corpus.Case) -> dict:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        try:
            _child(case, w)
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + WALL_SECONDS
    while True:
        if select.select([r], [], [], 0.5)[0]:
            if not (chunk := os.read(r, 1 << 16)):
                break
            chunks.append(chunk)
        elif _cpu_seconds(pid) > SECONDS or time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            chunks = []
            break
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if not chunks:  # killed at the teardown (a loop in C), by the memory cap, or a crash
        return {"died": status}
    return json.loads(b"".join(chunks))


def main(ids: list[str]) -> None:
    pristine = [call(CANARY), call(CANARY_JIT)]
    for case in corpus.CASES:
        if not ids or case.id in ids:
            got = run_isolated(case)
            got["canary_same"] = got.pop("canary", None) == pristine
            print(json.dumps({"id": case.id, **got}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

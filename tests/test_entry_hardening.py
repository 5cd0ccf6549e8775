"""Issue 42's attacks on the entry point, each sent as the page sends a request
(`entry.call`, JSON in and out): a policy's exception is the user's (finding 7), hashing a
deeply nested value is refused instead of crashing the process (finding 2), and a request
whose time limit expired ends as the interrupt however its code catches, continues or
returns (finding 3)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pe_engine.explain import entry

HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
FIRST = 5  # the first line after HEADER


def call(source: str, mode: str = "split", known: bool = True,
         name: str = "pe_engine.explain.run", **extra: object) -> dict:
    req = {"mode": mode, "source": HEADER + source, "args": [{"known": known, "value": "1.0"}],
           **extra}
    return json.loads(entry.call(name, json.dumps(req)))


POLICY_RAISES = """def pol(prim, *args, **params):
    raise ValueError('my policy fails')
def f(x):
    return jax.checkpoint(lambda a: jnp.sin(jnp.sin(a)), policy=pol)(x)
"""


@pytest.mark.parametrize("mode", ["grad", "checkpoint"])
def test_an_exception_in_a_checkpoint_policy_is_the_users_error(mode):
    """The policy runs when the engine splits the checkpoint, after the trace: its error was
    reported as the engine's (`internal`, with the engine's traceback)."""
    err = call(POLICY_RAISES, mode, known=False)["result"]["error"]
    assert err == {"type": "trace", "message": "ValueError: my policy fails",
                   "lineno": FIRST + 1}


# The page's interrupt, simulated as the page makes it: Pyodide calls PyErr_SetInterruptEx
# (SIGINT) when it finds the page's store in the interrupt buffer; _thread.interrupt_main
# is the same call, made here by a timer. Each request runs in a process of its own, so a
# request that swallows the interrupt (as on main) fails the test by its timeout instead of
# hanging the suite; the process then asks a plain request, which must answer normally.
INTERRUPTED = """
import _thread, json, sys, threading
from pe_engine.explain import entry
def ask(source):
    req = {"mode": "split", "source": source, "args": [{"known": True, "value": "1.0"}]}
    return json.loads(entry.call("pe_engine.explain.run", json.dumps(req)))
threading.Timer(0.5, _thread.interrupt_main).start()
print(json.dumps([ask(sys.argv[1]), ask("def f(x):\\n    return x * 2\\n")]))
"""

SWALLOWS = {
    "finally-continue": ("while True:\n    try:\n        while True:\n            pass\n"
                         "    finally:\n        continue"),
    "finally-return": "try:\n    while True:\n        pass\nfinally:\n    return x",
    "finally-break": ("while True:\n    try:\n        while True:\n            pass\n"
                      "    finally:\n        break"),
    "finally-raises-caught": ("while True:\n    try:\n        try:\n            while True:\n"
                              "                pass\n        finally:\n"
                              "            raise ValueError\n    except ValueError:\n"
                              "        continue"),
    "except-exception-after-finally": ("while True:\n    try:\n        try:\n"
                                       "            while True:\n                pass\n"
                                       "        finally:\n            y = [][1]\n"
                                       "    except Exception:\n        pass"),
}


def _indented(body: str) -> str:
    return "".join(f"    {line}\n" for line in body.split("\n"))


@pytest.mark.parametrize("case", list(SWALLOWS))
def test_an_expired_request_ends_as_the_interrupt_however_its_code_catches_it(case):
    body = SWALLOWS[case]
    source = f"def f(x):\n{_indented(body)}    return x\n"
    root = str(Path(__file__).parents[1])
    try:
        out = subprocess.run([sys.executable, "-c", INTERRUPTED, source], capture_output=True,
                             text=True, timeout=30, cwd=root, env={"PYTHONPATH": root})
    except subprocess.TimeoutExpired:
        pytest.fail("the request swallowed the interrupt and ran on")
    expired, after = json.loads(out.stdout)
    assert expired["ok"] is False, expired
    err = expired["error"]
    assert err["type"] == "KeyboardInterrupt" and "time limit" in err["message"], err
    assert 2 <= err["lineno"] <= body.count("\n") + 2  # a line of the loop it stopped
    assert after["ok"] is True and "error" not in after["result"], after


def test_handlers_and_finally_blocks_run_as_python_runs_them():
    """The check at the start of each `finally` and `except` is silent in time."""
    source = ("def f(x):\n    n = 0\n    for i in range(3):\n        try:\n"
              "            try:\n                y = [][i]\n            finally:\n"
              "                n = n + 1\n        except IndexError:\n            n = n + 10\n"
              "    return x * n\n")
    answer = json.loads(entry.call("pe_engine.explain.run", json.dumps(
        {"mode": "split", "source": source, "args": [{"known": True, "value": "1.0"}]})))
    assert answer["ok"] and "error" not in answer["result"], answer
    assert answer["result"]["known"]["eqns"] == ["b:f32[] = mul a 33.0:f32[]"]


# Every way found to hash a value in the page's Python, each given a tuple nested a million
# deep. All run in one process of their own (a crash, as on main, fails the test instead of
# killing the suite), one request each, one JSON answer a line.
HASHINGS = [
    "s = {t}", "d = {t: 1}", "y = {*[t]}", "y = {u for u in [t]}", "y = {u: 1 for u in [t]}",
    "d = {}\nd[t] = 1", "d = {}\ny = d[0:t]", "z = t in {1}", "z = t not in {1: 2}",
    "s = set([t])", "s = frozenset([t])", "d = dict([(t, 1)])", "s = set()\ns.add(t)",
    "d = {}\ny = d.get(t)", "d = {1: 2}\ny = d.pop(t, 0)", "s = {1}\ns.update([t])",
    "s = {1}\ny = s.union([t])", "d = {}\nd.update([(t, 1)])",
    "y = jax.jit(lambda a, b: a, static_argnums=1)(x, t)",
    "y = jax.checkpoint(lambda a, b: a, static_argnums=1)(x, t)",
    "y = jnp.reshape(x, t)", "y = lax.transpose(x, (t,))",
    "y = jax.ad_checkpoint.checkpoint_name(x, t)",
    "p = jax.checkpoint_policies.save_only_these_names(t)",
]
HASHING = """
import json, sys
from pe_engine.explain import entry
head = "import jax\\nimport jax.numpy as jnp\\nfrom jax import lax\\n"
deep = "def f(x):\\n    t = ()\\n    for i in range(10 ** 6):\\n        t = (t,)\\n"
for body in json.loads(sys.argv[1]):
    lines = "".join(f"    {line}\\n" for line in body.split("\\n"))
    source = head + deep + lines + "    return x\\n"
    req = {"mode": "split", "source": source, "args": [{"known": True, "value": "1.0"}]}
    print(entry.call("pe_engine.explain.run", json.dumps(req)), flush=True)
"""


def test_hashing_a_deeply_nested_value_is_refused_instead_of_crashing():
    root = str(Path(__file__).parents[1])
    out = subprocess.run([sys.executable, "-c", HASHING, json.dumps(HASHINGS)],
                         capture_output=True, text=True, timeout=300, cwd=root,
                         env={"PYTHONPATH": root})
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == len(HASHINGS), f"the process died at {HASHINGS[len(answers)]!r}"
    for body, answer in zip(HASHINGS, answers):
        err = answer["result"]["error"]
        assert err["type"] == "runtime" and "nested more than 100 deep" in err["message"], body
        assert err["lineno"] == 8 + body.count("\n"), (body, err)


def test_hashing_shallow_values_is_unchanged():
    source = ("def f(x):\n    d = {(1, (2, 3)): 4, 'a': 5}\n    s = set([(1, 2), 3])\n"
              "    s.add((4, 5))\n    d.update([((6,), 7)])\n    y = d.get((1, (2, 3))) + d[(6,)]\n"
              "    n = len(s | frozenset([9])) + ((4, 5) in s) + isinstance(s, set)\n"
              "    n = n + isinstance(d, dict) + len({k: 1 for k in d}) + len(dict(a=1))\n"
              "    return x * (y + n)\n")
    answer = json.loads(entry.call("pe_engine.explain.run", json.dumps(
        {"mode": "split", "source": source, "args": [{"known": True, "value": "1.0"}]})))
    # 22, as CPython computes it
    assert answer["result"]["known"]["eqns"] == ["b:f32[] = mul a 22.0:f32[]"], answer

"""The page's worker answers request after request in one Python: what the engine remembers
between them must stay bounded. A request's jaxprs are never met again (the user's code runs
afresh each time), so nothing of them may outlive it; a memory that kept them grew the heap by
hundreds of objects per answer, and Python's full collections over it paused answers for up to
180 ms under Pyodide."""
from __future__ import annotations

import gc
import json
from pathlib import Path

from pe_engine.explain.entry import call

EXAMPLES = {e["id"]: e for e in json.loads(
    (Path(__file__).resolve().parents[1] / "app" / "examples.json").read_text())["examples"]}


def _request(eid: str, i: int) -> str:
    e = EXAMPLES[eid]
    kw = {"mode": e["mode"], "source": e["code"] + f"# edit {i}\n",
          "args": [{"known": e["known"][p], "value": e["values"][p]} for p in e["known"]]}
    if e["mode"] == "checkpoint":
        kw.update(policy=e["policy"], only_selected=True)
    return json.dumps(kw)


def _live_objects() -> int:
    gc.collect()
    return len(gc.get_objects())


def test_answers_leave_nothing_of_their_programs_behind():
    ids = [e for e in EXAMPLES if EXAMPLES[e]["mode"] in ("grad", "checkpoint")]
    for i, eid in enumerate(ids):  # caches of plain data (dtypes, avals) fill here
        assert json.loads(call("pe_engine.explain.run", _request(eid, i)))["ok"]
    before = _live_objects()
    n = 4 * len(ids)
    for i in range(n):
        assert json.loads(call("pe_engine.explain.run", _request(ids[i % len(ids)], 100 + i)))["ok"]
    grown = _live_objects() - before
    # a few objects per request (the bounded table of user code objects); the leak was
    # hundreds per checkpoint answer
    assert grown < 20 * n, f"{grown} more live objects after {n} requests"

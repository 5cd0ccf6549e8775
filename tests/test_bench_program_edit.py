"""bench_page.py's program edits must change the program of every example, or its "program
edit" row would time an edit that keeps the split drawn (as a comment does)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from pe_engine.explain.entry import call

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]


def _program_edit():
    if str(ROOT / "bench") not in sys.path:  # bench_page imports its neighbours as the script does
        sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("bench_page", ROOT / "bench" / "bench_page.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.program_edit


program_edit = _program_edit()


def _programs(e: dict, source: str) -> list[str]:
    kw = {"mode": e["mode"], "source": source,
          "args": [{"known": e["known"][p], "value": e["values"][p]} for p in e["known"]]}
    if "policy" in e:
        kw["policy"] = e["policy"]
    answer = json.loads(call("pe_engine.explain.run", json.dumps(kw)))
    assert answer["ok"] and "error" not in answer["result"], answer
    return [p["program"]["text"] for p in answer["result"]["panes"]]


@pytest.mark.parametrize("e", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_each_program_edit_changes_the_split_drawn(e):
    original = _programs(e, e["code"])
    changed = _programs(e, program_edit(e["code"], 0))
    back = _programs(e, program_edit(e["code"], 1))
    assert changed != original, "the program edit left every pane as it was"
    assert back == original, "the odd edits are not the example's own program"


def test_a_source_that_does_not_end_in_a_return_is_refused():
    with pytest.raises(ValueError, match="not a return"):
        program_edit("def f(x):\n    y = x\n    return y\nprint(1)\n", 0)

"""Runs one of tests/js's Node scripts, which load the page's own modules, and reads its JSON
answer back: how the Python tests ask the page what it makes of an engine's answer."""
from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_node(script: str, *argv: str, stdin: str = "") -> str:
    """The script's standard output; it fails the test with the script's error if it fails."""
    proc = subprocess.run(["node", str(ROOT / "tests" / "js" / script), *argv], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def node_json(script: str) -> Any:
    """The one JSON value a script that reads nothing prints."""
    return json.loads(run_node(script))


def node_json_lines(script: str, items: Iterable[Any], *argv: str) -> list[Any]:
    """One JSON line in per item, one JSON line out per answer."""
    out = run_node(script, *argv, stdin="".join(json.dumps(x) + "\n" for x in items))
    return [json.loads(line) for line in out.splitlines()]

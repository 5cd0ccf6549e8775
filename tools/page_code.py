"""The page's own JavaScript, run in Node for the build and the tests: the requests the page
makes and its permalinks, through tools/page_requests.mjs, so the page's code stays their one
definition (the engine's command line builds its own from the request contract:
pe_engine/explain/cli.py; tests/test_cli.py checks that the two agree). The page parses no
Python: the signature of every source involved is the engine's (pe_engine.explain.signature),
handed to the page's code as the page's build hands it examples.json's. It needs node."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from pe_engine import explain  # noqa: E402

PAGE_REQUESTS = ROOT / "tools" / "page_requests.mjs"


class PageCodeError(Exception):
    """The page's code could not be run: no node, or it failed."""


def signatures(sources: list[str]) -> dict[str, dict]:
    """{source: the engine's SignatureAnswer} for each source that has a function to trace."""
    out = {}
    for source in dict.fromkeys(sources):
        answer = explain.signature(source=source)
        if "error" not in answer:
            out[source] = answer
    return out


def _node(command: str, lines: list = (), sources: list[str] = ()) -> list:
    """Run a command of page_requests.mjs: the signatures of `sources` first, then one JSON
    value in and one out per line."""
    node = shutil.which("node")
    if node is None:
        raise PageCodeError("node is needed: the page's own code (app/state.js) builds the "
                            "requests and the links")
    head = [{"signatures": signatures(list(sources))}] if command != "sources" else []
    stdin = "".join(json.dumps(x) + "\n" for x in [*head, *lines])
    proc = subprocess.run([node, str(PAGE_REQUESTS), command], input=stdin, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    if proc.returncode != 0:
        raise PageCodeError(f"{PAGE_REQUESTS.name} {command} failed: {proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


def opening_sources() -> list[str]:
    """Every source the page opens with: the examples' and the demos'."""
    return _node("sources")[0]


def opening_requests() -> list[dict]:
    """[{mode, kwargs, key}]: what the page asks on its opening state, the main view first."""
    return _node("opening", sources=opening_sources())[0]


def example_requests() -> list[dict]:
    """[{mode, kwargs, key, example}]: every example in every mode, as the page asks for
    them, with the example's id (a request two examples share is listed for both)."""
    return _node("examples", sources=opening_sources())[0]


def page_requests(states: list[dict]) -> list[dict]:
    """The page's request ({mode, kwargs, key}) for each page state ({code, known, values,
    mode, policy?, folding?})."""
    return _node("states", states, [s["code"] for s in states]) if states else []


def permalinks(states: list[dict]) -> list[dict]:
    """The page's permalink hash for each page state: {"ok": true, "hash": "v1.…"}, or
    {"ok": false, "error": why} where the page would refuse the state or the link."""
    return _node("links", states, [s["code"] for s in states if isinstance(s.get("code"), str)]) \
        if states else []

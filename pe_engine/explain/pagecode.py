"""The page's own JavaScript, run in Node for Python tools (the build's first frame, the command
line, the tests): the requests the page makes and its permalinks, through
tools/page_requests.mjs. Nothing here builds a request or a link itself, so the page's code
stays their one definition. It needs a checkout of the repository (app/, tools/) and node."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE_REQUESTS = ROOT / "tools" / "page_requests.mjs"


class PageCodeError(Exception):
    """The page's code could not be run: no node, no checkout, or it failed."""


def _node(command: str, lines: list = ()) -> list:
    """Run a command of page_requests.mjs: one JSON value in and one out per line."""
    node = shutil.which("node")
    if node is None:
        raise PageCodeError("node is needed: the page's own code (app/state.js) builds the "
                            "requests and the links")
    if not PAGE_REQUESTS.exists():
        raise PageCodeError(f"{PAGE_REQUESTS} is missing: the page's code comes from a "
                            "checkout of the repository")
    stdin = "".join(json.dumps(x) + "\n" for x in lines)
    proc = subprocess.run([node, str(PAGE_REQUESTS), command], input=stdin, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    if proc.returncode != 0:
        raise PageCodeError(f"{PAGE_REQUESTS.name} {command} failed: {proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


def opening_requests() -> list[dict]:
    """[{mode, kwargs, key}]: what the page asks on its opening state, the main view first."""
    return _node("opening")[0]


def example_requests() -> list[dict]:
    """[{mode, kwargs, key, example}]: every example in every mode, as the page asks for
    them, with the example's id (a request two examples share is listed for both)."""
    return _node("examples")[0]


def page_requests(states: list[dict]) -> list[dict]:
    """The page's request ({mode, kwargs, key}) for each page state ({code, known, values,
    mode, policy?, folding?})."""
    return _node("states", states) if states else []


def signatures(codes: list[str]) -> list[dict | None]:
    """The function the page traces in each source ({name, params}: its last top-level
    `def`), or None where there is none, as the page's parseSignature reads it."""
    return _node("signatures", codes) if codes else []


def permalinks(states: list[dict]) -> list[dict]:
    """The page's permalink hash for each page state: {"ok": true, "hash": "v1.…"}, or
    {"ok": false, "error": why} where the page would refuse the state or the link."""
    return _node("links", states) if states else []

"""Linters and formatters, each over the whole tree: ruff (Python), eslint and prettier (the
page's JavaScript and the Node tools), and tsc --checkJs (the page checked against the record
contract's typedefs). The JS tools are the versions package-lock.json pins, installed by the
build's npm step (sitebuild/frontend.py)."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from sitebuild.common import ROOT
from sitebuild.frontend import ensure_node_modules, node_tool

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
JS = ["app", "tests/js", "tests/browser/wall", "tools", "sitebuild", "eslint.config.js"]
PRETTIER = ["app/**/*.js", "tests/js/*.mjs", "tests/js/unit/*.mjs", "tests/browser/wall/*.js",
            "tools/*.mjs", "sitebuild/*.mjs", "eslint.config.js"]


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]


def test_ruff():
    _run([sys.executable, "-m", "ruff", "check", "."])


@needs_node
def test_eslint():
    # the config imports its plugins: read it from beside the node_modules it needs
    config = ensure_node_modules() / "eslint.config.js"
    shutil.copy2(ROOT / "eslint.config.js", config)
    _run([str(node_tool("eslint")), "--config", str(config), "--max-warnings=0", *JS])


@needs_node
def test_prettier():
    _run([str(node_tool("prettier")), "--check", "--log-level=warn", *PRETTIER])


@needs_node
def test_tsc_check_js_against_the_contract():
    _run([str(node_tool("tsc")), "-p", "tsconfig.json"])


def test_page_modules_are_small_and_write_text_only():
    """No page module over 400 lines; engine data reaches the DOM as text, never as HTML."""
    modules = [p for p in (ROOT / "app").rglob("*.js") if "vendor" not in p.parts]
    assert len(modules) > 30
    for path in modules:
        text = path.read_text(encoding="utf-8")
        assert text.count("\n") <= 400, f"{path.relative_to(ROOT)} is over 400 lines"
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
            assert sink not in text, f"{path.relative_to(ROOT)} uses {sink}"

"""Linters and formatters, each over the whole tree: ruff (Python), mypy (the engine's types,
strict on pe_engine/explain with its records' and requests' TypedDicts), eslint and prettier
(the page's JavaScript and the Node tools), and tsc --checkJs (the page checked against the
record contract's typedefs). The JS tools are the versions package-lock.json pins, installed by
the build's npm step (sitebuild/frontend.py)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

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


def test_mypy():
    """pyproject.toml's [tool.mypy]: the engine, strict on explain/ (about 20 s with the cache
    warm, two to three minutes cold on a busy machine)."""
    _run([sys.executable, "-m", "mypy"])


def _mypy_as(module: str, text: str, tmp_path) -> str:
    """mypy's report on `text` checked as if it were `module` (under its configuration)."""
    shadow = tmp_path / "shadow.py"
    shadow.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--shadow-file", module, str(shadow),
                           module], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.stdout


def test_mypy_reports_a_type_error(tmp_path):
    """The configuration checks what it should: a wrong return type fails anywhere in the
    engine, and in explain/ an unannotated function too (strict), unlike elsewhere. (Checked
    as modules nothing imports, so that no other module is checked again.)"""
    wrong = "def f(x: int) -> str:\n    return x\n"
    assert "[return-value]" in _mypy_as("pe_engine/__main__.py", wrong, tmp_path)
    untyped = "def f(x):\n    return x\n"
    assert "[no-untyped-def]" in _mypy_as("pe_engine/explain/cli.py", untyped, tmp_path)
    assert "Success" in _mypy_as("pe_engine/__main__.py", untyped, tmp_path)


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


STRICT_CLEAN = ROOT / "tests" / "tsc_strict_clean.json"
TSC_ERROR = re.compile(r"^(\S+?)\(\d+,\d+\): error TS\d+", re.MULTILINE)


@needs_node
def test_tsc_strict_ratchet():
    """tsc has no per-file strict mode, so strictness grows by a list: every file in
    tests/tsc_strict_clean.json must stay free of `tsc --strict` errors, and a file that
    becomes clean must join the list (so the list only grows)."""
    cmd = [str(node_tool("tsc")), "-p", "tsconfig.json", "--strict", "--listFiles",
           "--pretty", "false"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    listed = {Path(line).resolve() for line in proc.stdout.splitlines() if line.startswith("/")}
    checked = {p.relative_to(ROOT).as_posix() for p in listed
               if p.is_relative_to(ROOT) and ".cache" not in p.parts}
    assert len(checked) > 30, proc.stdout[-2000:] + proc.stderr[-2000:]
    errors = [(m.group(1), line) for line in proc.stdout.splitlines()
              if (m := TSC_ERROR.match(line))]
    failing = {path for path, _ in errors}
    assert failing <= checked, f"errors outside the checked files: {failing - checked}"
    clean_list = set(json.loads(STRICT_CLEAN.read_text(encoding="utf-8")))
    assert clean_list <= checked, f"listed but no longer checked: {sorted(clean_list - checked)}"
    regressed = [line for path, line in errors if path in clean_list]
    assert not regressed, "tsc --strict errors in listed files:\n" + "\n".join(regressed[:40])
    newly_clean = sorted(checked - failing - clean_list)
    assert not newly_clean, f"clean under tsc --strict, add to {STRICT_CLEAN.name}: {newly_clean}"


def test_page_modules_are_small_and_write_text_only():
    """No page module over 400 lines; engine data reaches the DOM as text, never as HTML."""
    modules = [p for p in (ROOT / "app").rglob("*.js") if "vendor" not in p.parts]
    assert len(modules) > 30
    for path in modules:
        text = path.read_text(encoding="utf-8")
        assert text.count("\n") <= 400, f"{path.relative_to(ROOT)} is over 400 lines"
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
            assert sink not in text, f"{path.relative_to(ROOT)} uses {sink}"


def test_no_source_line_over_200_characters():
    """A size limit is met by structure: a file under its line count because its data sits on
    one long line fails here (generated data belongs in a data file, prose in the markup)."""
    skip = {".git", ".venv", ".cache", "dist", "node_modules", "vendor"}
    sources = [p for p in ROOT.rglob("*")
               if p.suffix in {".py", ".js", ".mjs", ".css", ".html"} and p.is_file()
               and not skip & set(p.relative_to(ROOT).parts)]
    assert len(sources) > 200
    long = [f"{p.relative_to(ROOT)}:{n}: {len(line)} characters"
            for p in sources
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > 200]
    assert not long, "\n".join(long)

"""The command line's `--check-jax`: the record's own "Copy as JAX" snippet (jax_snippet.py)
run by real JAX in this interpreter, and each program it prints compared with its pane.

The snippet prints each pane as soon as JAX has made it, so a pane JAX cannot make (a scan
whose ys include a carry cannot be transposed: README, "Differences from JAX") leaves the
panes before it compared. The user's file is run by JAX as plain Python: it is the user's own
code on their own machine.
"""
from __future__ import annotations

import contextlib
import difflib
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PANE_MARK = "# pane: "
NO_PANE_MARK = "# no pane: "  # `# no pane: <id>: <why JAX made none>`


class JaxMissing(Exception):
    """JAX is not installed in this interpreter."""


class NoJaxText(Exception):
    """JAX raised making a pane: it has no text to compare (README, "Differences from JAX")."""


@dataclass(frozen=True)
class PaneCheck:
    title: str
    engine: str
    jax: str | NoJaxText

    @property
    def agrees(self) -> bool:
        return self.engine == self.jax

    @property
    def compared(self) -> bool:
        return isinstance(self.jax, str)


def printed_panes(out: str) -> dict[str, str]:
    """{pane id: program} from what a snippet printed (each program after `# pane: <id>`)."""
    panes: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        if line.startswith(PANE_MARK):
            current = line.removeprefix(PANE_MARK)
            panes[current] = []
        elif line.startswith(NO_PANE_MARK):
            current = None
        elif current is not None:
            panes[current].append(line)
    return {k: "\n".join(v) for k, v in panes.items()}


def missing_panes(out: str) -> dict[str, str]:
    """{pane id: why JAX made none} from a snippet's `# no pane:` lines."""
    lines = (line.removeprefix(NO_PANE_MARK) for line in out.splitlines()
             if line.startswith(NO_PANE_MARK))
    return dict(line.split(": ", 1) for line in lines)


def check(record: dict[str, Any]) -> list[PaneCheck]:
    """Each of the record's panes beside the text JAX prints for it."""
    try:
        import jax  # noqa: F401 - only to say early that it is missing
    except ImportError as e:
        raise JaxMissing(f"--check-jax needs JAX (pip install 'jax==0.10.2'): {e}") from None
    out = io.StringIO()
    failure = NoJaxText("the snippet printed no such program")
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(record["jax_snippet"], "<jax_snippet>", "exec"),  # noqa: S102
                 {"__name__": "__main__"})
    except Exception as e:  # noqa: BLE001 - JAX refusing the function is an outcome to show
        first = next((line for line in str(e).splitlines() if line.strip()), "")
        failure = NoJaxText(f"{type(e).__name__}: {first}")
    printed = printed_panes(out.getvalue())
    missing = {k: NoJaxText(v) for k, v in missing_panes(out.getvalue()).items()}
    return [PaneCheck(p["title"], p["program"]["text"],
                      printed.get(p["id"], missing.get(p["id"], failure)))
            for p in record["panes"]]


def verdict(checks: Sequence[PaneCheck]) -> bool:
    """Agreement: every pane JAX made is the engine's, and JAX made at least one."""
    return any(c.compared for c in checks) and all(c.agrees for c in checks if c.compared)


def report(checks: Sequence[PaneCheck], version: str) -> str:
    """One line per pane, a diff under each that differs, and the verdict last."""
    lines = []
    for c in checks:
        if not c.compared:
            lines.append(f"{c.title}: JAX makes no such program ({c.jax})")
            continue
        if c.agrees:
            lines.append(f"{c.title}: same as JAX")
            continue
        lines.append(f"{c.title}: differs from JAX")
        lines += ["  " + d for d in difflib.unified_diff(
            str(c.jax).splitlines(), c.engine.splitlines(), f"JAX {version}", "pe_engine",
            lineterm="")]
    if verdict(checks):
        lines.append(f"agrees: every program JAX {version} makes here is the engine's")
    elif not any(c.compared for c in checks):
        lines.append(f"no comparison: JAX {version} makes none of these programs")
    else:
        lines.append(f"DIFFERS: the engine's programs are not JAX {version}'s")
    return "\n".join(lines) + "\n"

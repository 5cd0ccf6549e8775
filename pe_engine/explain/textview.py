"""A record as text, for a terminal: the panes the page shows (each program as JAX prints
it, under the page's title for it) and the residual list, in the page's words
(app/stage/residual-list.js); grad and checkpoint add what JAX's print_saved_residuals prints
and the gradients, checkpoint the policies side by side, jit the constants."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def record_text(record: dict[str, Any]) -> str:
    """The record of a page mode's request (split, jit, grad, ...), as the page shows it."""
    parts = [_heading(record)]
    if "policies" in record:  # checkpoint's, side by side
        parts.append(_policies(record))
    for pane in record["panes"]:
        parts.append(f"{pane['title']}\n{pane['program']['text']}")
    if "consts" in record:  # jit's: one program, no residuals
        if record["consts"]:
            parts.append("Constants: " + ", ".join(record["consts"]))
        return "\n\n".join(parts) + "\n"
    parts.append(_residuals(record))
    if record.get("saved_residuals") is not None:  # grad's and checkpoint's
        parts.append(_saved(record["saved_residuals"]))
    if record.get("grads") is not None:
        parts.append("Gradients: " + ", ".join(
            f"d/d{a['name']} = {g}" for a, g in zip(record["args"], record["grads"])))
    return "\n\n".join(parts) + "\n"


def _split_heading(record: dict[str, Any]) -> str:
    mask = ", ".join(f"{a['name']} {'known' if a['known'] else 'unknown'}"
                     for a in record["args"])
    forced = [o["name"] for o, i in zip(record["program"]["outvars"],
                                        record.get("instantiate", [])) if i]
    tail = f"; forced into the unknown program: {', '.join(forced)}" if forced else ""
    return f"split: {mask or 'no inputs'}{tail}"


# mode -> what the heading says after the function's name, for the modes with more to say
# than their panes' titles (the others: "f, linearize: Forward (known), Linear (unknown)")
_HEADINGS: dict[str, Callable[[dict[str, Any]], str]] = {
    "split": _split_heading,
    "jit": lambda r: ("jit (eager constant folding "
                      f"{'on' if r['eager_constant_folding'] else 'off'})"),
    "checkpoint": lambda r: f"checkpoint, policy {r['selected']}",
}


def _heading(record: dict[str, Any]) -> str:
    mode = record["mode"]
    words = _HEADINGS.get(mode)
    what = words(record) if words else f"{mode}: " + ", ".join(
        p["title"] for p in record["panes"])
    return f"{record['fn']}, {what}"


def format_bytes(n: int) -> str:
    """As the page writes a size (app/stage/dom.js formatBytes)."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.{1 if n < 10240 else 0}f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def _residuals(record: dict[str, Any]) -> str:
    rs = record["residuals"]
    if not rs:
        return "Residuals: none: the unknown program reads no known values"
    total = sum(r["bytes"] for r in rs)
    head = (f"Residuals: {len(rs)} known value{'' if len(rs) == 1 else 's'} handed to the "
            f"unknown program, {format_bytes(total)} (known name → unknown name)")
    events = record["events"]
    rows = []
    for r in rs:
        origin = (f"input {r['from_input']}" if r["from_input"] is not None else
                  f"from {events[r['producer']]['short']}" if r["producer"] is not None else "")
        rows.append([f"r{r['k']}", f"{r['known_name']} → {r['unknown_name']}", r["aval"],
                     format_bytes(r["bytes"]), f"= {r['value']}" if r["value"] else "", origin])
    return head + "\n" + _table(rows)


def _saved(saved: Sequence[dict[str, Any]]) -> str:
    lines = [f"  {r['aval']} {r['description']}" for r in saved] or ["  (none)"]
    return "Saved residuals (jax.ad_checkpoint.print_saved_residuals):\n" + "\n".join(lines)


def _policies(record: dict[str, Any]) -> str:
    rows = [["", "policy", "residuals", "bytes", "recomputed"]]
    for p in record["policies"]:
        rows.append(["*" if p["name"] == record["selected"] else "", p["label"],
                     str(p["residual_count"]), format_bytes(p["residual_bytes"]),
                     str(p["recomputed"])])
    return "Policies (* selected):\n" + _table(rows)


def _table(rows: list[list[str]]) -> str:
    """Rows of cells in aligned columns, two spaces in, empty trailing cells dropped."""
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    return "\n".join(("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths))).rstrip()
                     for row in rows)

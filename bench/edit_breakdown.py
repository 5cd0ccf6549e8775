"""Where an edit's time goes: the engine's worker (Python), the page's main thread (reading
the answer, drawing it), or neither (messages in flight, waiting for a frame).

A Chromium trace (devtools.timeline) is taken while one booted page makes edits, timed by
bench_page.py's window.__timeEdit, which brackets each with two User Timing marks on the
page's main thread: from the call to the frame after the page took the new record in (its
'painted'; an edit not drawn within its wait leaves no end mark and is dropped). Busy time
is the part of each thread's top-level tasks that falls inside that span: the page's main
thread (the one that wrote the marks), and every dedicated worker (the engine's is the only
one the page starts). What is left of the span is waiting. Of the busy time, `gc` is V8's
collections on either thread (its MinorGC and MajorGC events): the part of a slow edit that
is the JavaScript heap's housekeeping rather than the page's work. Python's own collector does
not show here; the engine turns it off while it traces. Of the main thread's time, `style` and
`layout` are Blink's style recalculations (UpdateLayoutTree) and layouts (Layout), forced by a
script's read or in a frame: the part of drawing a record that is the browser laying it out.
`main_cpu` is the main thread's busy time as CPU time (the tasks' thread clock, `tdur`): on a
machine shared with other work, the part of `main` the thread actually ran, so builds compared
under a changing load differ less by it than by `main`.
"""
from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

START, DRAWN = "pe-bench-edit", "pe-bench-drawn"

TASK = "ThreadControllerImpl::RunTask"
GC = {"MinorGC", "MajorGC"}
STYLE, LAYOUT = "UpdateLayoutTree", "Layout"
MARK_PHASES = {"R", "I", "i", "n", "b"}


def trace_edits(page, code: str, n_edits: int,
                timed_edit: Callable[[Any, str], dict],
                make_source: Callable[[int], str] | None = None) -> list[dict]:
    """n_edits edits of `code` (a comment added each time, so the program stays the same;
    or edit i's source is make_source(i)), each made by `timed_edit(page, source)`, traced;
    for each edit drawn, its span and each side's busy ms in it."""
    cdp = page.context.new_cdp_session(page)
    events: list[dict] = []
    complete = threading.Event()
    cdp.on("Tracing.dataCollected", lambda e: events.extend(e["value"]))
    cdp.on("Tracing.tracingComplete", lambda e: complete.set())
    cdp.send("Tracing.start", {
        "traceConfig": {"includedCategories": ["devtools.timeline", "toplevel",
                                               "blink.user_timing"]},
        "transferMode": "ReportEvents"})
    try:
        for i in range(n_edits):
            timed_edit(page, make_source(i) if make_source
                       else code.rstrip("\n") + f"\n# traced edit {i}\n")
    finally:
        cdp.send("Tracing.end")
        # the trace arrives as events, which Playwright's sync API delivers only while it runs:
        # waiting on the flag alone would block their delivery (its whole timeout, every time)
        for _ in range(600):
            if complete.is_set():
                break
            page.wait_for_timeout(50)
        cdp.detach()
    return spans(events)


def spans(events: Sequence[dict]) -> list[dict]:
    """Each START..DRAWN span of the trace with the page's main-thread and the workers' busy
    ms inside it."""
    thread_names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                    if e.get("ph") == "M" and e.get("name") == "thread_name"}
    marks = sorted((e["ts"], e["name"], (e["pid"], e["tid"])) for e in events
                   if e.get("name") in (START, DRAWN) and e.get("ph") in MARK_PHASES)
    tasks = [e for e in events if e.get("ph") == "X" and e.get("name") == TASK]
    collections = [e for e in events if e.get("ph") == "X" and e.get("name") in GC]
    styles = [e for e in events if e.get("ph") == "X" and e.get("name") == STYLE]
    layouts = [e for e in events if e.get("ph") == "X" and e.get("name") == LAYOUT]
    out = []
    start = None
    for ts, name, thread in marks:
        if name == START:
            start = ts
        elif start is not None:
            out.append(_busy(start, ts, thread, tasks, thread_names)
                       | {"gc": _gc_ms(start, ts, thread, collections, thread_names),
                          "main_cpu": _main_cpu_ms(start, ts, thread, tasks),
                          "style": _main_ms(start, ts, thread, styles),
                          "layout": _main_ms(start, ts, thread, layouts)})
            start = None
    return out


def _on_page(events: Sequence[dict], a: float, b: float, main: tuple,
             thread_names: dict) -> Iterator[tuple[tuple, float, float]]:
    """(thread, start, end) of each event on the page's threads (its main thread, the
    workers), clipped to the span a..b; events outside it are left out."""
    for ev in events:
        s, e = max(ev["ts"], a), min(ev["ts"] + ev["dur"], b)
        thread = (ev["pid"], ev["tid"])
        if e > s and (thread == main
                      or thread_names.get(thread, "").startswith("DedicatedWorker")):
            yield thread, s, e


def _busy(a: float, b: float, main: tuple, tasks: Sequence[dict],
          thread_names: dict) -> dict:
    main_ms = worker_ms = 0.0
    pieces = []  # (start, end) of every busy piece, either side, clipped to the span
    for thread, s, e in _on_page(tasks, a, b, main, thread_names):
        if thread == main:
            main_ms += (e - s) / 1000
        else:
            worker_ms += (e - s) / 1000
        pieces.append((s, e))
    busy = 0.0  # the union: the two sides overlap where the page draws while Python runs
    reach = a
    for s, e in sorted(pieces):
        if e > reach:
            busy += e - max(s, reach)
            reach = e
    total = (b - a) / 1000
    return {"ms": total, "main": main_ms, "worker": worker_ms,
            "waiting": max(0.0, total - busy / 1000)}


def _gc_ms(a: float, b: float, main: tuple, collections: Sequence[dict],
           thread_names: dict) -> float:
    return sum(e - s for _, s, e in _on_page(collections, a, b, main, thread_names)) / 1000


def _main_ms(a: float, b: float, main: tuple, named: Sequence[dict]) -> float:
    """ms of the page's main thread in `named` events (which do not nest), clipped to a..b."""
    return sum(e - s for thread, s, e in _on_page(named, a, b, main, {}) if thread == main) / 1000


def _main_cpu_ms(a: float, b: float, main: tuple, tasks: Sequence[dict]) -> float:
    """CPU ms of the page's main thread's tasks in a..b (a task partly inside: its share)."""
    cpu = 0.0
    for ev in tasks:
        if (ev["pid"], ev["tid"]) != main or not ev.get("dur") or "tdur" not in ev:
            continue
        inside = min(ev["ts"] + ev["dur"], b) - max(ev["ts"], a)
        if inside > 0:
            cpu += ev["tdur"] * inside / ev["dur"]
    return cpu / 1000


COLUMNS = ("ms", "main", "worker", "waiting", "gc", "style", "layout", "main_cpu")


def summarise(rows: Sequence[dict]) -> dict:
    """Medians of each column of an example's spans, and the slowest span's own figures
    (`slowest`: where an edit far over the median spent its time); None when no edit was
    drawn."""
    if not rows:
        return {k: None for k in COLUMNS} | {"n": 0, "slowest": None}
    worst = max(rows, key=lambda r: r["ms"])
    return {"n": len(rows)} | {k: round(statistics.median(r[k] for r in rows), 1)
                               for k in COLUMNS} | {
        "slowest": {k: round(worst[k], 1) for k in COLUMNS}}

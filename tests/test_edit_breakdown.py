"""bench/edit_breakdown.py reads a Chromium trace into where each edit's time went; a wrong
clip or a thread counted on the wrong side would send the next person after the wrong cause,
so its arithmetic is checked here on a trace written by hand."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("edit_breakdown",
                                               ROOT / "bench" / "edit_breakdown.py")
edit_breakdown = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(edit_breakdown)

MAIN, WORKER, COMPOSITOR = (1, 10), (1, 20), (1, 30)


def _name(thread, name):
    return {"ph": "M", "name": "thread_name", "pid": thread[0], "tid": thread[1],
            "args": {"name": name}}


def _x(thread, name, ts, dur):
    return {"ph": "X", "name": name, "pid": thread[0], "tid": thread[1], "ts": ts, "dur": dur}


def _mark(name, ts):
    return {"ph": "R", "name": name, "pid": MAIN[0], "tid": MAIN[1], "ts": ts}


def _trace(*extra):
    task = edit_breakdown.TASK
    return [_name(MAIN, "CrRendererMain"), _name(WORKER, "DedicatedWorker thread"),
            _name(COMPOSITOR, "Compositor"),
            _mark(edit_breakdown.START, 1000), _mark(edit_breakdown.DRAWN, 21000),
            # main: 2 ms before the span (half of it inside), 4 ms inside
            _x(MAIN, task, 0, 2000), _x(MAIN, task, 15000, 4000),
            # worker: 8 ms, overlapping the main thread's second task by 1 ms
            _x(WORKER, task, 8000, 8000),
            # another thread's work is neither side
            _x(COMPOSITOR, task, 1000, 20000), *extra]


def test_busy_time_is_clipped_to_the_span_and_waiting_is_what_neither_side_used():
    [span] = edit_breakdown.spans(_trace())
    assert span["ms"] == pytest.approx(20.0)
    assert span["main"] == pytest.approx(1.0 + 4.0)
    assert span["worker"] == pytest.approx(8.0)
    # busy union: 1..2 ms, then 8..19 ms (the worker's 8..16 and main's 15..19) = 12 ms
    assert span["waiting"] == pytest.approx(20.0 - 12.0)
    assert span["gc"] == 0


def test_v8_collections_count_on_the_page_threads_only_and_only_inside_the_span():
    [span] = edit_breakdown.spans(_trace(
        _x(MAIN, "MinorGC", 16000, 500),
        _x(WORKER, "MajorGC", 20000, 3000),    # 1 ms of it before the end mark
        _x(COMPOSITOR, "MajorGC", 2000, 5000),  # not the page's
        _x(MAIN, "MajorGC", 25000, 1000)))      # after the edit was drawn
    assert span["gc"] == pytest.approx(0.5 + 1.0)


def test_an_edit_without_its_end_mark_is_dropped_and_summaries_take_the_slowest():
    events = _trace() + [_mark(edit_breakdown.START, 30000)]
    spans = edit_breakdown.spans(events)
    assert len(spans) == 1
    two = [spans[0], dict(spans[0], ms=40.0, gc=3.0)]
    summary = edit_breakdown.summarise(two)
    assert summary["n"] == 2 and summary["ms"] == pytest.approx(30.0)
    assert summary["slowest"]["ms"] == 40.0 and summary["slowest"]["gc"] == 3.0
    assert edit_breakdown.summarise([])["slowest"] is None

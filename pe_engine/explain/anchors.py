"""Each event anchored to the user's own code: the text of the source line it came from,
so the page shows the line beside the equation, not only its number."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

MAX_SOURCE_CHARS = 80  # a longer line is cut, with an ellipsis


def _events(events: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every event, and every event of the calls they open, branches included."""
    for ev in events:
        yield ev
        call = ev.get("call")
        for split in ([call, *call.get("branches", [])] if call else []):
            yield from _events(split["events"])


def anchor_events(record: Mapping[str, Any], source: str) -> None:
    """Give every event of `record` the text of its source line (None: no line of the
    user's code)."""
    lines = source.splitlines()
    for ev in _events(record.get("events", [])):
        n = ev.get("line")
        text = lines[n - 1].strip() if n is not None and 0 < n <= len(lines) else None
        if text is not None and len(text) > MAX_SOURCE_CHARS:
            text = text[:MAX_SOURCE_CHARS - 1] + "…"
        ev["source"] = text

#!/usr/bin/env python3
"""Precompute the page's first frame: the record of every request the page makes on its
opening state (the main view's and the demos'), computed in CPython.

    python3 tools/precompute.py --out dist/precomputed.json     (what the build runs)
    python3 tools/precompute.py                                 (print it)

The requests come from the page's own code (tools/page_requests.mjs runs app/state.js and
app/page/opening-requests.js in Node, through pe_engine/explain/pagecode.py), so they are
built exactly as the page builds them. It writes

    {"first": <the main view's request key>, "records": {<request key>: record, ...}}

The page shows a record at once when its own request has the same key, so the first frame
needs no Python. Exits non-zero if the engine answers any of them with an error.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from pe_engine import explain  # noqa: E402
from pe_engine.explain.pagecode import (  # noqa: E402
    PageCodeError,
    opening_requests,
    page_requests,
)

# page_requests is the tests' way to the page's requests too
__all__ = ["main", "opening_requests", "page_requests", "precompute"]


def precompute() -> dict:
    try:
        requests = opening_requests()
    except PageCodeError as e:
        raise SystemExit(f"precompute: {e}") from None
    records = {}
    for req in requests:
        record = explain.as_json(explain.run(req["mode"], **req["kwargs"]))
        if "error" in record:
            raise SystemExit(f"precompute: the engine failed on {req['mode']}: {record['error']}")
        records[req["key"]] = record
    return {"first": requests[0]["key"], "records": records}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write here (e.g. dist/precomputed.json)")
    args = ap.parse_args(argv)
    out = precompute()
    text = json.dumps(out, separators=(",", ":"), allow_nan=False) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
        print(f"[precompute] {args.out}: {len(text)} B, {len(out['records'])} records")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

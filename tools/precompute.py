#!/usr/bin/env python3
"""Precompute the page's first frame: the record of every request the page makes on its
opening state (the main view's and the demos'), computed in CPython; and the record of every
example in every mode, one file per example, which the page fetches when it needs one.

    python3 tools/precompute.py --out dist/precomputed.json \
        --examples-out dist/precomputed                         (what the build runs)
    python3 tools/precompute.py                                 (print the first)

The requests come from the page's own code (tools/page_requests.mjs runs app/state.js and
app/page/opening-requests.js in Node, through tools/page_code.py), so they are built exactly
as the page builds them. It writes

    {"first": <the main view's request key>, "records": {<request key>: record, ...}}

and {"records": {...}} per example (those not in the first file). The page shows a record
at once when its own request has the same key, so neither the first frame nor a switch of
example or mode needs Python. With --examples-json it also writes the page's examples.json
with `signatures`: the function of every source the page opens with, as the engine reads it
(the page parses no Python: app/signatures.js). Exits non-zero if the engine answers any of
them with an error.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from pe_engine import explain  # noqa: E402
from tools.page_code import (  # noqa: E402
    PageCodeError,
    example_requests,
    opening_requests,
    opening_sources,
    page_requests,
    signatures,
)

# page_requests is the tests' way to the page's requests too
__all__ = ["main", "example_requests", "opening_requests", "page_requests", "precompute",
           "examples_with_signatures"]


def records_for(requests: list[dict]) -> dict:
    """{key: record} for each request, answered by the engine in this process."""
    records = {}
    for req in requests:
        record = explain.as_json(explain.run(req["mode"], **req["kwargs"]))
        if "error" in record:
            raise SystemExit(f"precompute: the engine failed on {req['mode']}: {record['error']}")
        records[req["key"]] = record
    return records


def _page_asks(requests_of: Callable[[], list[dict]]) -> list[dict]:
    """The requests the page's own code builds; exits saying why when it cannot run."""
    try:
        return requests_of()
    except PageCodeError as e:
        raise SystemExit(f"precompute: {e}") from None


def precompute() -> dict:
    requests = _page_asks(opening_requests)
    return {"first": requests[0]["key"], "records": records_for(requests)}


def precompute_examples(done: dict) -> dict[str, dict]:
    """{example id: {"records": ...}}: each example's records the first frame's file does not
    already hold (the page fetches an example's file when it needs it)."""
    requests = _page_asks(example_requests)
    records = records_for(list({r["key"]: r for r in requests if r["key"] not in done}.values()))
    by_example: dict[str, dict] = {}
    for r in requests:
        mine = by_example.setdefault(r["example"], {"records": {}})["records"]
        if r["key"] in records:
            mine[r["key"]] = records[r["key"]]
    return by_example


def examples_with_signatures() -> dict:
    """app/examples.json with the signature of every source the page opens with."""
    sources = _page_asks(opening_sources)
    found = signatures(sources)
    missing = [s for s in sources if s not in found]
    if missing:
        raise SystemExit(f"precompute: the engine finds no function in {missing[0]!r}: "
                         f"{explain.signature(source=missing[0])}")
    data = json.loads((ROOT / "app" / "examples.json").read_text(encoding="utf-8"))
    return {**data, "signatures": found}


def _write(path: Path, data: dict) -> None:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"[precompute] {path}: {len(text)} B, {len(data['records'])} records")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write here (e.g. dist/precomputed.json)")
    ap.add_argument("--examples-out", type=Path,
                    help="also write each example's records into this folder, one file per "
                         "example (dist/precomputed/<example id>.json)")
    ap.add_argument("--examples-json", type=Path,
                    help="also write the page's examples.json there, with the signatures of "
                         "the sources it opens with (dist/app/examples.json)")
    args = ap.parse_args(argv)
    if args.examples_json:
        text = json.dumps(examples_with_signatures(), indent=1, ensure_ascii=False) + "\n"
        args.examples_json.write_text(text, encoding="utf-8")
        print(f"[precompute] {args.examples_json}: {len(text)} B, with signatures")
    out = precompute()
    if args.out:
        _write(args.out, out)
    else:
        sys.stdout.write(json.dumps(out, separators=(",", ":"), allow_nan=False) + "\n")
    if args.examples_out:
        for example, data in precompute_examples(out["records"]).items():
            _write(args.examples_out / f"{example}.json", data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

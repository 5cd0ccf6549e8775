#!/usr/bin/env python3
"""Precompute the page's first frame: the record of every request the page makes on its
opening state (the main view's and the demos'), computed in CPython; and the record of every
example in every mode, which the page takes in after its first frame.

    python3 tools/precompute.py --out dist/precomputed.json \
        --examples-out dist/precomputed-examples.json           (what the build runs)
    python3 tools/precompute.py                                 (print the first)

The requests come from the page's own code (tools/page_requests.mjs runs app/state.js and
app/page/opening-requests.js in Node), so they are built exactly as the page builds them. It
writes

    {"first": <the main view's request key>, "records": {<request key>: record, ...}}

and {"records": {...}} for the examples (those not in the first file). The page shows a record
at once when its own request has the same key, so neither the first frame nor a switch of
example or mode needs Python. Exits non-zero if the engine answers any of them with an error.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE_REQUESTS = ROOT / "tools" / "page_requests.mjs"


def _node(args: list[str], stdin: str = "") -> str:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("precompute: node is needed to build the page's requests")
    proc = subprocess.run([node, str(PAGE_REQUESTS), *args], input=stdin, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"precompute: {PAGE_REQUESTS.name} failed: {proc.stderr[-2000:]}")
    return proc.stdout


def opening_requests() -> list[dict]:
    """[{mode, kwargs, key}]: what the page asks on its opening state, the main view first."""
    return json.loads(_node(["opening"]))


def page_requests(states: list[dict]) -> list[dict]:
    """The page's request ({mode, kwargs, key}) for each page state ({code, known, values,
    mode, policy?, folding?})."""
    out = _node(["states"], "".join(json.dumps(s) + "\n" for s in states))
    return [json.loads(line) for line in out.splitlines()]


def example_requests() -> list[dict]:
    """[{mode, kwargs, key}]: every example in every mode, as the page asks for them."""
    return json.loads(_node(["examples"]))


def records_for(requests: list[dict]) -> dict:
    """{key: record} for each request, answered by the engine in this process."""
    sys.path.insert(0, str(ROOT))
    from pe_engine import explain

    records = {}
    for req in requests:
        record = explain.as_json(explain.run(req["mode"], **req["kwargs"]))
        if "error" in record:
            raise SystemExit(f"precompute: the engine failed on {req['mode']}: {record['error']}")
        records[req["key"]] = record
    return records


def precompute() -> dict:
    requests = opening_requests()
    return {"first": requests[0]["key"], "records": records_for(requests)}


def precompute_examples(done: dict) -> dict:
    """The examples' records the first frame's file does not already hold."""
    return {"records": records_for([r for r in example_requests() if r["key"] not in done])}


def _write(path: Path, data: dict) -> None:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"[precompute] {path}: {len(text)} B, {len(data['records'])} records")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write here (e.g. dist/precomputed.json)")
    ap.add_argument("--examples-out", type=Path,
                    help="also write every example's records here (dist/precomputed-examples.json)")
    args = ap.parse_args(argv)
    out = precompute()
    if args.out:
        _write(args.out, out)
    else:
        sys.stdout.write(json.dumps(out, separators=(",", ":"), allow_nan=False) + "\n")
    if args.examples_out:
        _write(args.examples_out, precompute_examples(out["records"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

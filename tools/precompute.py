#!/usr/bin/env python3
"""Precompute the page's first frame: the default example's record, computed in CPython.

    python3 tools/precompute.py --out dist/precomputed.json     (what build.py runs)
    python3 tools/precompute.py                                 (print it)

Reads app/examples.json (the same file the page's examples menu uses), builds the engine
request exactly as app/state.js does (`requestFor`: source, args [{known, value}] in the
order of the last top-level def's parameters, plus the mode's own keyword), runs
`pe_engine.explain.run(mode, **kwargs)` and writes

    {"request": {"mode": ..., "kwargs": {...}}, "record": {...}, "example": id}

The page shows `record` at once when its own request for the opening state has the same key,
so the first frame needs no Python. Exits non-zero if the engine answers with an error.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "app" / "examples.json"
DEFAULT_VALUE = "1.0"  # app/state.js DEFAULT_VALUE


def params_of(code: str) -> list[str]:
    """Parameters of the last top-level def (app/state.js parseSignature)."""
    tree = ast.parse(code)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not defs:
        raise SystemExit("precompute: the default example defines no function")
    a = defs[-1].args
    return [p.arg for p in a.posonlyargs + a.args]


def request_for(example: dict) -> dict:
    """The engine request, key for key in the order app/state.js requestFor() builds it."""
    params = params_of(example["code"])
    kwargs: dict = {
        "source": example["code"],
        "args": [{"known": example.get("known", {}).get(p, True),
                  "value": example.get("values", {}).get(p, DEFAULT_VALUE)} for p in params],
    }
    mode = example["mode"]
    if mode == "jit":
        kwargs["eager_constant_folding"] = bool(example.get("folding", False))
    if mode == "checkpoint":
        kwargs["policy"] = example.get("policy", "nothing_saveable")
    return {"mode": mode, "kwargs": kwargs}


def precompute(example_id: str | None = None) -> dict:
    sys.path.insert(0, str(ROOT))
    from pe_engine import explain

    data = json.loads(EXAMPLES.read_text())
    wanted = example_id or data["default"]
    example = next((e for e in data["examples"] if e["id"] == wanted), None)
    if example is None:
        raise SystemExit(f"precompute: no example {wanted!r} in {EXAMPLES}")
    request = request_for(example)
    record = explain.run(request["mode"], **request["kwargs"])
    if "error" in record:
        raise SystemExit(f"precompute: the engine failed on {wanted!r}: {record['error']}")
    record = explain.as_json(record)
    return {"request": request, "record": record, "example": wanted}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="write here (e.g. dist/precomputed.json)")
    ap.add_argument("--example", help="an example id (default: examples.json's default)")
    args = ap.parse_args(argv)
    out = precompute(args.example)
    text = json.dumps(out, separators=(",", ":"), allow_nan=False) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
        print(f"[precompute] {args.out}: {len(text)} B ({out['example']}, "
              f"mode {out['request']['mode']})")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

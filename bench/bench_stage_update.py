"""The stage alone drawing issue 46's fresh grad edits, builds side by side.

    python3 bench/bench_stage_update.py /tmp/before dist [--edits 12] [--only transformer]

Each argument a built dist/ folder; each build's stage harness (app/stage/demo.html, no
engine) in its own page of one headless Chromium (1440x900). The records are the engine's
answers to consecutive fresh edits (bench/scale_functions.py fresh_edit), made once here and
drawn in turn by every build (the first one untimed): per record, setRecord + drawn() + the
next frame, wall ms, and the page's script, style and layout ms over it (CDP Performance
metrics). Medians per workload and build.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import scale_functions  # noqa: E402  (bench/, beside this file)
from bench_ab import serve  # noqa: E402  (a dist/ with its own headers and CSP)

from pe_engine import explain  # noqa: E402
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

METRICS = {"ScriptDuration": "script", "RecalcStyleDuration": "style", "LayoutDuration": "layout"}
DRAW = """async (rec) => {
  const t0 = performance.now();
  window.stage.setRecord(rec);
  window.stage.drawn();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""


def records(name: str, n: int) -> list[dict]:
    """The engine's grad answers to n fresh edits of workload `name`."""
    source = scale_functions.FUNCTIONS[name][0]
    args = scale_functions.request_args(name)
    return [explain.as_json(explain.run("grad", source=scale_functions.fresh_edit(source, i),
                                        args=args)) for i in range(n)]


def metrics(cdp) -> dict[str, float]:
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {label: got.get(name, 0.0) * 1000 for name, label in METRICS.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dists", nargs="+", type=Path)
    ap.add_argument("--edits", type=int, default=12, help="records timed per workload and build")
    ap.add_argument("--only", help="the workloads whose name contains this")
    opts = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    names = [n for n in scale_functions.FUNCTIONS
             if (not opts.only or opts.only in n) and not n.startswith("default")]
    load = os.getloadavg()
    print(f"# bench_stage_update: load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    urls = [serve(d.resolve()) for d in opts.dists]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        pages = []
        for url in urls:
            pg = browser.new_page(viewport={"width": 1440, "height": 900})
            pg.goto(f"{url}app/stage/demo.html?fixture=none")
            pg.wait_for_function("() => document.documentElement.dataset.ready")
            cdp = pg.context.new_cdp_session(pg)
            cdp.send("Performance.enable")
            pages.append((pg, cdp))
        for name in names:
            recs = records(name, opts.edits + 1)
            rows: list[list[dict]] = [[] for _ in pages]
            for i, rec in enumerate(recs):
                for b, (pg, cdp) in enumerate(pages):
                    before = metrics(cdp)
                    wall = pg.evaluate(DRAW, rec)
                    after = metrics(cdp)
                    if i:  # the first record is drawn on an empty stage: not timed
                        rows[b].append({"wall": wall, **{k: after[k] - before[k] for k in before}})
            for b, d in enumerate(opts.dists):
                med = {k: statistics.median(r[k] for r in rows[b]) for k in rows[b][0]}
                print(f"{name:28} {str(d):24} n={len(rows[b])} "
                      + " ".join(f"{k} {v:6.1f}" for k, v in med.items()))
        browser.close()
    load = os.getloadavg()
    print(f"# load average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

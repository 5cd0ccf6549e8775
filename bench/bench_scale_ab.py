"""The page's side of issue 46's fresh grad edits, for several builds side by side.

    python3 bench/bench_scale_ab.py /tmp/before dist                # 4 rounds of 3 edits each
    python3 bench/bench_scale_ab.py /tmp/before dist --rounds 6 --edits 4 --only transformer

Each argument is a built dist/ folder (copy dist/ aside after a `build.py` of a variant). Each
is served on a port of its own and booted in a page of its own (one headless Chromium, a
1440x900 viewport, the editor mounted: as bench/bench_page.py does). Then, round after round,
each build in turn makes `--edits` fresh grad edits of each bench/scale_functions.py workload
(each `return (E) * c` with a new c), traced as bench/edit_breakdown.py does: `drawn` (the call
to the frame after the new record is drawn), the page's main thread's busy ms in that span (and
as CPU time, by the thread's clock: less moved by the machine's load), of it its style
recalculations and layouts, and the engine worker's busy ms. The builds take turns
within every round, so a change in the machine's load touches each alike. Prints the medians of
every edit per workload and build, each build's ratio to the first one's, and the load average.
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
import bench_page  # noqa: E402  (bench/, beside this file)
import edit_breakdown  # noqa: E402
import scale_functions  # noqa: E402
from bench_ab import serve  # noqa: E402  (a dist/ with its own headers and CSP)

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.contexts import new_context  # noqa: E402

COLUMNS = ("ms", "main", "main_cpu", "style", "layout", "worker")  # edit_breakdown's, shown
LABELS = {"ms": "drawn", "main": "page main thread", "main_cpu": "its CPU", "style": "of it style",
          "layout": "of it layout", "worker": "engine worker"}


def boot(browser, url: str):
    """A page of the build at `url`, its engine ready and its editor mounted."""
    ctx = new_context(browser, viewport={"width": 1440, "height": 900})
    ctx.add_init_script(bench_page.INIT_SCRIPT)
    page = ctx.new_page()
    page.goto(url)
    bench_page.wait_page_ready(page)
    page.dispatch_event("[data-testid=editor]", "pointerover")
    page.wait_for_selector("[data-testid=editor] .cm-editor", timeout=bench_page.BOOT_TIMEOUT_MS)
    page.evaluate(bench_page.TIME_EDIT_JS)
    return page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dists", nargs="+", type=Path, help="built dist/ folders (the first: the base)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--edits", type=int, default=3,
                    help="fresh edits per workload, build and round")
    ap.add_argument("--only", help="the workloads whose name contains this")
    opts = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    names = [n for n in scale_functions.FUNCTIONS if not opts.only or opts.only in n]
    load = os.getloadavg()
    print(f"# bench_scale_ab: {len(opts.dists)} builds, {opts.rounds} rounds of {opts.edits} fresh "
          f"edits per workload; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    urls = [serve(d.resolve()) for d in opts.dists]
    # spans[name][build]: every traced edit's columns
    spans: dict[str, list[list[dict]]] = {n: [[] for _ in opts.dists] for n in names}
    errors = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        pages = [boot(browser, url) for url in urls]
        edit = 0
        for name in names:
            sources = [bench_page.load_scale_function(pg, name) for pg in pages]
            for pg, src in zip(pages, sources):  # the first draw of a workload is not timed
                bench_page.timed_edit(pg, scale_functions.fresh_edit(src, 20_000))
            for _ in range(opts.rounds):
                for b, (pg, src) in enumerate(zip(pages, sources)):
                    start = edit
                    rows = edit_breakdown.trace_edits(
                        pg, src, opts.edits, bench_page.timed_edit,
                        make_source=lambda i, s=src, e=start: scale_functions.fresh_edit(s, e + i))
                    errors += opts.edits - len(rows)
                    spans[name][b].extend(rows)
                edit += opts.edits
        browser.close()
    load_end = os.getloadavg()
    header = (["function", "build", "n"] + [LABELS[c] for c in COLUMNS]
              + ["ratio drawn", "ratio main", "ratio CPU"])
    rows = []
    for name in names:
        base = {c: statistics.median(r[c] for r in spans[name][0]) for c in COLUMNS}
        for b, d in enumerate(opts.dists):
            med = {c: statistics.median(r[c] for r in spans[name][b]) for c in COLUMNS}
            rows.append([name, str(d), str(len(spans[name][b]))] + [med[c] for c in COLUMNS]
                        + [f"{med[c] / base[c]:.2f}" for c in ("ms", "main", "main_cpu")])
    bench_page.table("Fresh grad edits, builds side by side (medians, ms)", header, rows)
    print(f"edits not drawn within their wait: {errors}; load average at end "
          f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

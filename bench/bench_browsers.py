"""Engine ready in the three browser engines, side by side on this machine.

Serves the built site (`build.py serve`, with its headers, or `--plain`: a static host that
sends none), opens it in a fresh profile of Chromium, Firefox and WebKit in turn (round robin,
`--runs` loads each, so that a change in the machine's load touches every engine alike), and
prints per engine the median of "engine ready" (page navigation to the engine's ready message,
on the page's clock), of each boot stage as the engine's worker timed it and of the arrival of
its last file (what a stage may have waited for), then the ratio of each engine's median to
Chromium's against the target (<= 1.2).

    python3 bench/bench_browsers.py [--runs 5] [--plain] [--engines chromium,firefox,webkit]
"""
from __future__ import annotations

import argparse
import http.server
import os
import statistics
import subprocess
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitebuild import server  # noqa: E402
from tests.browser.conftest import PlainHost  # noqa: E402
from tests.browser.engines import Engines, missing, versions  # noqa: E402

TARGET = 1.2  # an engine's ready time over Chromium's, at most
STAGES = ("import", "loadPyodide", "packages", "engine", "verify")
READY = ("() => { const s = document.querySelector('[data-testid=engine]')?.dataset.state;"
         " return (s === 'ready' || s === 'error') && s; }")
TIMINGS = "() => JSON.parse(JSON.stringify(window.peEngine.info.timings))"


def one_load(engines, engine: str, url: str) -> dict:
    tab = engines.tab(engine)
    try:
        tab.goto(url)
        state = tab.wait(READY, timeout_s=300)
        if state != "ready":
            raise RuntimeError(f"{engine}: the engine did not start")
        t = tab.run(TIMINGS)
        return {"ready": t["sinceNavigation"]["verify"], **t["worker"],
                "last file": max(t["files"].values(), default=0)}
    finally:
        tab.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--plain", action="store_true", help="serve without the site's headers")
    ap.add_argument("--engines", default="chromium,firefox,webkit")
    args = ap.parse_args(argv)

    wanted = args.engines.split(",")
    for engine in wanted:
        if missing(engine):
            print(f"{engine}: {missing(engine)}")
            return 1
    subprocess.run([sys.executable, str(ROOT / "build.py"), "--if-stale"], cwd=ROOT, check=True)
    if args.plain:
        plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PlainHost)
        threading.Thread(target=plain.serve_forever, daemon=True).start()
        url, proc = f"http://127.0.0.1:{plain.server_address[1]}{PlainHost.base}", None
    else:
        proc, url = server.spawn("--quiet")
    load = os.getloadavg()
    print(f"# {'plain host, no headers' if args.plain else 'the site with its headers'};"
          f" {args.runs} cold loads per engine, round robin; load average at start"
          f" {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for engine, version in versions().items():
        if engine in wanted:
            print(f"# {engine}: {version}")
    got: dict[str, list[dict]] = {e: [] for e in wanted}
    try:
        with sync_playwright() as p:
            engines = Engines(p)
            try:
                for _ in range(args.runs):
                    for engine in wanted:
                        got[engine].append(one_load(engines, engine, url))
            finally:
                engines.close()
    finally:
        if proc is not None:
            server.stop(proc)

    med = {e: {k: statistics.median(r[k] for r in runs) for k in ("ready", *STAGES, "last file")}
           for e, runs in got.items()}
    print("\nmedians, ms (stages: the engine worker's clock, since it started)")
    print(f"{'engine':<10} {'ready':>7} " + " ".join(f"{s:>11}" for s in (*STAGES, "last file"))
          + f" {'x Chromium':>11} {'target':>8}")
    base = med.get("chromium", {}).get("ready")
    for engine, m in med.items():
        ratio = m["ready"] / base if base else float("nan")
        verdict = "" if engine == "chromium" or not base else (
            "met" if ratio <= TARGET else "missed")
        print(f"{engine:<10} {m['ready']:>7.0f} "
              + " ".join(f"{m[s]:>11.0f}" for s in (*STAGES, "last file"))
              + f" {ratio:>11.2f} {verdict:>8}")
    print("\nevery load, engine ready (ms): " + "; ".join(
        f"{e} " + " ".join(f"{r['ready']:.0f}" for r in runs) for e, runs in got.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

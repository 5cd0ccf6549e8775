"""Engine ready for several builds of the site, side by side, in the three browser engines.

Each argument is a built dist/ folder (copy dist/ aside after each `build.py` of a variant);
each is served with the site's headers on a port of its own and loaded cold, round robin over
runs, engines and builds, so that a change in the machine's load touches every pair alike.
Prints every load (engine ready, the worker's stages, the arrival of each file and any extra
`~name` marks a variant's worker put in its `timings.files`) with the load average, then the
medians per engine and build.

    python3 bench/bench_ab.py --runs 3 /tmp/before /tmp/after [--engines webkit,chromium]
"""
from __future__ import annotations

import argparse
import http.server
import json
import os
import statistics
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_browsers import READY, STAGES, TIMINGS  # noqa: E402
from sitebuild.headers import inline_script_hashes  # noqa: E402
from sitebuild.server import Handler  # noqa: E402
from tests.browser.engines import Engines, missing  # noqa: E402


def serve(folder: Path) -> str:
    """URL of `folder` served as the dev server serves dist/ (its headers, its gzip)."""
    class Host(Handler):
        quiet = True
        script_hashes = inline_script_hashes(folder)

        def __init__(self, *args, **kwargs):
            http.server.SimpleHTTPRequestHandler.__init__(self, *args, directory=str(folder),
                                                          **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Host)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def tree_cpu() -> float:
    """CPU seconds used so far by this process's live descendants (the browsers, their drivers)."""
    parent, cpu = {}, {}
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parent[int(d)] = int(fields[1])
        cpu[int(d)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    mine = {os.getpid()}
    grew = True
    while grew:
        added = {p for p, pp in parent.items() if pp in mine and p not in mine}
        mine |= added
        grew = bool(added)
    return sum(cpu.get(p, 0.0) for p in mine if p != os.getpid())


def one_load(engines: Engines, engine: str, url: str) -> dict:
    """One cold load: the engine's timings, and the CPU time the browsers used meanwhile (a
    measure of work the machine's load does not stretch as it stretches the wall clock)."""
    tab = engines.tab(engine)
    try:
        cpu = tree_cpu()
        tab.goto(url)
        if tab.wait(READY, timeout_s=300) != "ready":
            return {"ready": None}
        t = tab.run(TIMINGS)
        files = {(k if k.startswith("~") else "@" + k[:16]): v for k, v in t["files"].items()}
        return {"ready": t["sinceNavigation"]["verify"], "cpu": round(tree_cpu() - cpu, 2),
                **t["worker"], **files}
    except Exception as e:  # noqa: BLE001 - one failed load is reported, the others still run
        return {"ready": None, "error": str(e)[:200]}
    finally:
        tab.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--engines", default="chromium,firefox,webkit")
    ap.add_argument("builds", nargs="+", type=Path)
    args = ap.parse_args(argv)
    wanted = [e for e in args.engines.split(",") if not missing(e)]
    urls = {b: serve(b) for b in args.builds}
    got: dict[tuple[str, Path], list[dict]] = {}
    with sync_playwright() as p:
        engines = Engines(p)
        try:
            for _ in range(args.runs):
                for engine in wanted:
                    for build, url in urls.items():
                        row = one_load(engines, engine, url)
                        row["load"] = round(os.getloadavg()[0], 1)
                        got.setdefault((engine, build), []).append(row)
                        print(engine, build, json.dumps(row), flush=True)
        finally:
            engines.close()
    print("\nmedians, ms (stages: the engine worker's clock, since it started)")
    for (engine, build), rows in got.items():
        keys = ("ready", "cpu", *STAGES, "load")
        med = {k: statistics.median(vals) for k in keys
               if (vals := [r[k] for r in rows if isinstance(r.get(k), (int, float))])}
        shown = " ".join(f"{k} {v:.1f}" if k in ("load", "cpu") else f"{k} {v:.0f}"
                         for k, v in med.items())
        print(f"{engine:<9} {str(build):<24} {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

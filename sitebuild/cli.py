"""`python3 build.py [--if-stale]` and `python3 build.py serve [--port N] [--quiet]`."""
from __future__ import annotations

import argparse
import sys

from .common import BuildError, log
from .server import serve
from .site import build, is_stale

USAGE = """Build and serve the static explainer page (Python 3.11+).

    python3 build.py                 assemble dist/ (always rebuilds) and exit
    python3 build.py --if-stale      rebuild only if an input changed since the last build
    python3 build.py serve [--port N] [--quiet]
                                     build if needed, then serve dist/ on 127.0.0.1 only
    python3 build.py --base /docs/pe/
                                     a build to publish under that path (only _headers changes)
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=USAGE.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=USAGE.split("\n\n", 1)[1])
    ap.add_argument("command", nargs="?", choices=["build", "serve"], default="build")
    ap.add_argument("--port", type=int, default=8000, help="serve: port on 127.0.0.1 (0 = any)")
    ap.add_argument("--quiet", action="store_true", help="serve: no access log")
    ap.add_argument("--if-stale", action="store_true",
                    help="build: skip when dist/ matches the current inputs")
    ap.add_argument("--base", default="/",
                    help="build: the path the site is published under (default /)")
    args = ap.parse_args(argv)
    if not (args.base.startswith("/") and args.base.endswith("/")):
        ap.error(f"--base must start and end with '/', got {args.base!r}")
    try:
        if args.command == "serve" or args.if_stale:
            if is_stale(args.base):
                build(args.base)
            else:
                log("dist/ is up to date")
        else:
            build(args.base)
    except BuildError as e:
        print(f"build.py: FATAL: {e}", file=sys.stderr)
        return 1
    if args.command == "serve":
        serve(args.port, args.quiet)
    return 0

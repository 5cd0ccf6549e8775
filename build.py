#!/usr/bin/env python3
"""Build and serve the static explainer page; the steps live in sitebuild/, one module a job.

    python3 build.py                 assemble dist/ (always rebuilds) and exit
    python3 build.py --if-stale      rebuild only if an input changed since the last build
    python3 build.py serve [--port N] [--quiet]
                                     build if needed, then serve dist/ on 127.0.0.1 only
"""
import sys

from sitebuild.cli import main

if __name__ == "__main__":
    sys.exit(main())

"""The dev server: dist/ on 127.0.0.1 with the headers a static host gets from _headers."""
from __future__ import annotations

import http.server
import os
import re
import subprocess
import sys
import time
from typing import IO

from .common import DIST, ROOT
from .headers import MIME_TYPES, frame_script_sha256, headers_for


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = MIME_TYPES
    quiet = False
    frame_hash = ""  # of the built site's engine frame script (serve sets it)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(DIST), **kwargs)

    def _relpath(self) -> str:
        path = self.path.split("?", 1)[0].split("#", 1)[0].lstrip("/")
        return path or "index.html"

    def send_head(self):
        rel = self._relpath()
        if rel == "_headers" or any(part.startswith(".") for part in rel.split("/")):
            self.send_error(404)
            return None
        if os.path.isdir(self.translate_path(self.path)) and not rel.endswith(".html"):
            index = os.path.join(self.translate_path(self.path), "index.html")
            if not os.path.exists(index):
                self.send_error(404)  # no directory listings
                return None
        return super().send_head()

    def end_headers(self):
        rel = self._relpath()
        if rel.endswith("/"):
            rel += "index.html"
        for k, v in headers_for(rel, self.frame_hash).items():
            self.send_header(k, v)
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 (stdlib signature)
        if not self.quiet:
            super().log_message(format, *args)


def serve(port: int, quiet: bool) -> None:
    Handler.quiet = quiet
    Handler.frame_hash = frame_script_sha256(DIST)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    host, real_port = server.server_address[:2]
    print(f"Serving dist/ at http://{host}:{real_port}/  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def spawn(*args: str, stderr: IO | None = None,
          timeout: float = 60) -> tuple[subprocess.Popen, str]:
    """`build.py serve --port 0 [args]` in a child process, as the browser tests and the
    benchmarks serve the site: the process and its URL, once it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-u", str(ROOT / "build.py"), "serve", "--port", "0", *args],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, text=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if m:
            return proc, m.group(1)
    stop(proc)
    raise RuntimeError("build.py serve did not start")


def stop(proc: subprocess.Popen) -> None:
    """End a spawned server (killed if it does not stop within 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()

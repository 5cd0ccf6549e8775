"""The dev server: dist/ on 127.0.0.1 with the headers a static host gets from _headers."""
from __future__ import annotations

import gzip
import http.server
import io
import os
import re
import subprocess
import sys
import threading
import time
from typing import IO

from .common import DIST, ROOT
from .headers import MIME_TYPES, headers_for, inline_script_hashes

# Sent gzipped to a browser that accepts it, as static hosts do (the zip and wheel files are
# compressed already): the engine's 18 MB cross the wire as 10 MB, the editor's 470 KB as 160.
COMPRESSED = {".html", ".js", ".mjs", ".css", ".json", ".wasm", ".svg", ".txt", ".map"}
_gzipped: dict[tuple[str, int, int], bytes] = {}


def gzipped(path: str) -> tuple[bytes, str]:
    """The file gzipped, and its entity tag; kept in memory per (path, mtime, size)."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    body = _gzipped.get(key)
    if body is None:
        with open(path, "rb") as f:
            body = _gzipped[key] = gzip.compress(f.read(), compresslevel=6, mtime=0)
    return body, f'"{st.st_mtime_ns:x}-{st.st_size:x}-gzip"'


def compress_ahead(folder: str) -> None:
    """Gzip every compressible file once, largest first, so that no reader waits for it."""
    files = [os.path.join(d, n) for d, _, names in os.walk(folder) for n in names
             if os.path.splitext(n)[1] in COMPRESSED]
    for path in sorted(files, key=lambda p: -os.path.getsize(p)):
        gzipped(path)


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = MIME_TYPES
    quiet = False
    script_hashes: tuple[str, ...] = ()  # the built site's inline scripts (serve sets them)

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
        path = self._gzip_path()
        return super().send_head() if path is None else self._send_gzipped(path)

    def _gzip_path(self) -> str | None:
        """The file to send gzipped, if the browser accepts gzip and it is worth it."""
        path = self.translate_path(self.path)
        if self.path.split("?", 1)[0].endswith("/"):
            path = os.path.join(path, "index.html")
        if (os.path.splitext(path)[1] not in COMPRESSED or not os.path.isfile(path)
                or "gzip" not in self.headers.get("Accept-Encoding", "")):
            return None
        return path

    def _send_gzipped(self, path: str) -> io.BytesIO | None:
        body, etag = gzipped(path)
        if etag in self.headers.get("If-None-Match", ""):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return None
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self):
        rel = self._relpath()
        if rel.endswith("/"):
            rel += "index.html"
        for k, v in headers_for(rel, self.script_hashes).items():
            self.send_header(k, v)
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 (stdlib signature)
        if not self.quiet:
            super().log_message(format, *args)


def serve(port: int, quiet: bool) -> None:
    Handler.quiet = quiet
    Handler.script_hashes = inline_script_hashes(DIST)
    threading.Thread(target=compress_ahead, args=(str(DIST),), daemon=True).start()
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

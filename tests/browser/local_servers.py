"""HTTP servers on 127.0.0.1 for the browser tests: another origin for a host page, a canary
that notes what reached it, dist/ on a plain static host."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path


def serve(handler: type[http.server.BaseHTTPRequestHandler] | functools.partial
          ) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve with `handler` on a free loopback port, in a daemon thread: (server, origin)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@contextlib.contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """`serve` for a fixture: the origin, and the server shut down after."""
    server, origin = serve(handler)
    try:
        yield origin
    finally:
        server.shutdown()


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_folder(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A folder's files on an origin of their own."""
    return serve(functools.partial(_QuietFiles, directory=str(folder)))

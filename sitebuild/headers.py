"""The HTTP headers: one definition, sent by the dev server and written to dist/_headers."""
from __future__ import annotations

from pathlib import Path

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    # CodeMirror writes element styles and may add <style> where adoptedStyleSheets is missing
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
])

COMMON_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

CACHE_IMMUTABLE = "public, max-age=31536000, immutable"
CACHE_REVALIDATE = "no-cache"

MIME_TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".whl": "application/octet-stream",
    ".zip": "application/zip",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",
    "": "application/octet-stream",
}


def cache_control(relpath: str) -> str:
    """Cache policy by path (relative to dist, '/'-separated).

    Files whose name carries their version (the Pyodide-built wheels, e.g.
    pyodide/numpy-2.0.2-....whl) never change under that name: immutable. Everything else,
    including Pyodide's unversioned core names (pyodide.asm.wasm, ...), the app, the engine
    wheel and manifest.json, is revalidated (a 304 when unchanged), so a rebuild or a Pyodide
    upgrade can never mix old and new files in a returning visitor's cache.
    """
    name = relpath.rsplit("/", 1)[-1]
    if relpath.startswith("pyodide/") and name.endswith(".whl"):
        return CACHE_IMMUTABLE
    return CACHE_REVALIDATE


def headers_for(relpath: str) -> dict[str, str]:
    return {**COMMON_HEADERS, "Cache-Control": cache_control(relpath)}


def write_headers_file(out: Path) -> None:
    lines = ["# Written by build.py: the headers `python3 build.py serve` sends.", "/*"]
    lines += [f"  {k}: {v}" for k, v in COMMON_HEADERS.items()]
    for f in sorted(out.rglob("*")):
        if f.is_file() and f.name != "_headers":
            rel = f.relative_to(out).as_posix()
            lines += [f"/{rel}", f"  Cache-Control: {cache_control(rel)}"]
            if rel == "index.html":
                lines += ["/", f"  Cache-Control: {cache_control(rel)}"]
    (out / "_headers").write_text("\n".join(lines) + "\n")

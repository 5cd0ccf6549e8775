"""The HTTP headers: one definition, sent by the dev server and written to dist/_headers."""
from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

FRAME_SCRIPT = "app/engine-frame.js"  # inline in the engine's sandboxed frame, allowed by hash
FRAME_ANCESTORS = "*"
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def _sha256(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


def inline_script_hashes(site: Path) -> tuple[str, ...]:
    """The base64 sha256s a CSP names the site's inline scripts by: the engine frame's
    script, and every inline <script> of the site's index.html (the build inlines the small
    classic head scripts so that the first paint waits for no script fetch; the source tree
    has none)."""
    page = site / "index.html"
    inline = INLINE_SCRIPT.findall(page.read_text()) if page.exists() else []
    return (_sha256((site / FRAME_SCRIPT).read_bytes()),
            *(_sha256(body.encode()) for body in inline))


def content_security_policy(script_hashes: Sequence[str], *, meta: bool = False) -> str:
    """The page's CSP. The engine's sandboxed frame (app/engine-frame.js, inline in an
    <iframe srcdoc>) inherits it, and its worker is a blob: URL, so the page allows that
    script and its own inline head scripts by their hashes, and blob: workers and scripts;
    the frame adds its own, stricter policy (no network at all). A <meta> CSP cannot carry
    frame-ancestors, so the meta form leaves it out."""
    allowed = " ".join(f"'sha256-{h}'" for h in script_hashes)
    directives = [
        "default-src 'self'",
        f"script-src 'self' 'wasm-unsafe-eval' {allowed} blob:",
        "worker-src 'self' blob:",
        "connect-src 'self'",
        "img-src 'self' data:",
        # CodeMirror writes element styles and may add <style> where adoptedStyleSheets is
        # missing
        "style-src 'self' 'unsafe-inline'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    if not meta:
        # any page may frame this one: embedding is a feature (index.html?embed,
        # docs/page-api.md "Embed"); the page holds no account, secret or action a framing
        # page could trick a reader into, and its postMessage API answers only the page that
        # frames it
        directives.append(f"frame-ancestors {FRAME_ANCESTORS}")
    return "; ".join(directives)


def common_headers(script_hashes: Sequence[str]) -> dict[str, str]:
    return {
        "Cross-Origin-Opener-Policy": "same-origin",
        # credentialless, not require-corp: Chromium and Firefox isolate the page either way
        # (the engine's frame gets SharedArrayBuffer, so a runaway is interrupted), while
        # WebKit, which does not implement credentialless, then applies no embedder policy:
        # under require-corp it refuses the engine frame's blob: worker (an opaque origin's
        # blob is cross-origin to it) and the engine never starts. The page loads nothing
        # from another origin (the CSP), so what credentialless allows is never used.
        "Cross-Origin-Embedder-Policy": "credentialless",
        "Cross-Origin-Resource-Policy": "same-origin",
        "Content-Security-Policy": content_security_policy(script_hashes),
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


def headers_for(relpath: str, script_hashes: Sequence[str]) -> dict[str, str]:
    return {**common_headers(script_hashes), "Cache-Control": cache_control(relpath)}


def write_headers_file(out: Path, script_hashes: Sequence[str], base: str = "/") -> None:
    """dist/_headers (Netlify/Cloudflare Pages format): paths are site-absolute, so a site
    published under a sub-path (`build.py --base /docs/pe/`) gets rules under that path."""
    lines = ["# Written by build.py: the headers `python3 build.py serve` sends.", f"{base}*"]
    lines += [f"  {k}: {v}" for k, v in common_headers(script_hashes).items()]
    for f in sorted(out.rglob("*")):
        if f.is_file() and f.name != "_headers":
            rel = f.relative_to(out).as_posix()
            lines += [f"{base}{rel}", f"  Cache-Control: {cache_control(rel)}"]
            if rel == "index.html":
                lines += [base, f"  Cache-Control: {cache_control(rel)}"]
    (out / "_headers").write_text("\n".join(lines) + "\n")

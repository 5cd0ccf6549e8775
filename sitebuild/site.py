"""Assembly of dist/: every step into a temporary folder, then the manifest, the service worker
and _headers, and a rename into place, so dist/ is either the old complete build or the new."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from . import engine_wheel, frontend, heap_snapshot, import_cache, pyodide
from .common import CACHE, DIST, ENGINE_PKG, ROOT, BuildError, iter_files, log, run, sha256_file
from .headers import (
    FRAME_SCRIPT,
    common_headers,
    content_security_policy,
    inline_script_hashes,
    write_headers_file,
)

# not precached by the service worker: never fetched by the page
SW_SKIP = {"_headers", "sw.js", "pyodide/package.json"}
BUILD_INPUTS = ["build.py", "sitebuild", "package.json", "package-lock.json", "pyproject.toml",
                ENGINE_PKG, "tools/precompute.py", "tools/page_code.py", "tools/page_requests.mjs",
                "tools/prerender.mjs", *frontend.PAGE_INPUTS]


def input_hash() -> str:
    """Fingerprint of everything a build reads (the cached downloads are pinned by hash)."""
    h = hashlib.sha256()
    for top in (ROOT / p for p in BUILD_INPUTS):
        if not top.exists():
            continue
        for f in iter_files(top):
            h.update(f.relative_to(ROOT).as_posix().encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def is_stale(base: str = "/") -> bool:
    try:
        manifest = json.loads((DIST / "manifest.json").read_text())
    except (OSError, ValueError):
        return True
    return manifest.get("input_hash") != input_hash() or manifest.get("base", "/") != base


def precompute_first_frame(out: Path) -> None:
    """The opening state's records and every example's in every mode, computed here in
    CPython, so the page's first frame and a switch of example or mode teach before Python
    has started in the browser. The engine needs numpy here too."""
    if importlib.util.find_spec("numpy") is None:
        run([sys.executable, "-m", "pip", "install", "--quiet", "numpy"])
    run([sys.executable, str(ROOT / "tools" / "precompute.py"),
         "--out", str(out / "precomputed.json"),
         "--examples-out", str(out / "precomputed"),
         "--examples-json", str(out / "app" / "examples.json")], cwd=ROOT)
    log(f"precomputed.json: {(out / 'precomputed.json').stat().st_size} B")
    each = sorted(f.stat().st_size for f in (out / "precomputed").glob("*.json"))
    log(f"precomputed/: {len(each)} examples, {sum(each)} B, the largest {each[-1]} B")


def prerender_first_frame(out: Path) -> None:
    """The default example's first frame drawn into index.html by the page's own view code
    (tools/prerender.mjs, in Node with linkedom's DOM), so the split is in the first paint."""
    node_modules = frontend.ensure_node_modules() / "node_modules"
    run(["node", str(ROOT / "tools" / "prerender.mjs"), str(out), str(node_modules)], cwd=ROOT)


def write_service_worker(out: Path, build_hash: str, script_hashes: Sequence[str]) -> int:
    """dist/sw.js: app/sw.js with BUILD and FILES ({path: sha256}) filled in. The list is
    every file of the build but those in SW_SKIP and the license texts; the service worker
    serves a cached file only if its bytes still have that hash. sw.js goes next to
    index.html, so its scope is the whole site."""
    text = (ROOT / frontend.SW_TEMPLATE).read_text()
    files = sorted(f.relative_to(out).as_posix() for f in out.rglob("*") if f.is_file())
    hashes = {f: sha256_file(out / f) for f in files
              if f not in SW_SKIP and not f.endswith(".LICENSES.txt")}
    page_headers = {k: v for k, v in common_headers(script_hashes).items()
                    if k in ("Cross-Origin-Opener-Policy", "Cross-Origin-Embedder-Policy",
                             "Content-Security-Policy")}
    for old, new in (('const BUILD = "dev";', f"const BUILD = {json.dumps(build_hash)};"),
                     ("const FILES = {};", f"const FILES = {json.dumps(hashes, indent=0)};"),
                     ("const HEADERS = {};", f"const HEADERS = {json.dumps(page_headers)};")):
        if text.count(old) != 1:
            raise BuildError(f"{frontend.SW_TEMPLATE}: expected exactly one line {old!r}")
        text = text.replace(old, new)
    (out / "sw.js").write_text(text)
    return len(hashes)


def engine_files(out: Path, wheel: str, pyodide_wheels: list[str],
                 cache_zip: str | None, heap: str) -> dict[str, dict]:
    """What the page sends the engine's sandboxed worker, by the name Pyodide asks for it:
    path and sha256 (the page's fetch worker, app/engine-fetch.js, checks each file before
    handing it over)."""
    paths = [f"pyodide/{n}" for n in (*pyodide.PYODIDE_CORE, *pyodide_wheels)
             if n != "package.json"]
    paths += [f"wheels/{wheel}", heap] + ([cache_zip] if cache_zip else [])
    return {p.rsplit("/", 1)[1]: {"path": p, "sha256": sha256_file(out / p)} for p in paths}


def engine_scripts(out: Path) -> dict[str, dict]:
    return {k: {"path": p, "sha256": sha256_file(out / p)}
            for k, p in (("frame", FRAME_SCRIPT), ("worker", "app/engine-worker.js"))}


def _fill(page: Path, marker: str, text: str) -> None:
    html = page.read_text()
    if html.count(marker) != 1:
        raise BuildError(f"{page.name}: expected exactly one {marker}")
    page.write_text(html.replace(marker, text))


CLASSIC_SCRIPT = re.compile(r'<script src="(app/[^"]+\.js)"></script>')


def inline_classic_scripts(out: Path) -> None:
    """The head's classic scripts (boot guard, theme, embed flag, first-frame switch, engine
    preloads) written into index.html, and their files dropped: each was a fetch the parser
    waited for in turn before the first paint (about 150 ms of a 700 ms first paint on a 4x
    slower CPU). The CSP allows each by its hash (headers.inline_script_hashes)."""
    page = out / "index.html"

    def inline(m: re.Match) -> str:
        text = (out / m[1]).read_text()
        if "</script" in text.lower() or "<!--" in text:
            raise BuildError(f"{m[1]} cannot be inlined: it holds </script or <!--")
        (out / m[1]).unlink()
        return f"<script>{text}</script>"

    html, n = CLASSIC_SCRIPT.subn(inline, page.read_text())
    if n == 0:
        raise BuildError("index.html: no classic <script src> to inline")
    page.write_text(html)


def write_meta_csp(out: Path, script_hashes: Sequence[str]) -> None:
    """index.html carries the CSP too, for hosts that ignore _headers."""
    marker = '<meta http-equiv="Content-Security-Policy" content="">'
    csp = content_security_policy(script_hashes, meta=True)
    _fill(out / "index.html", marker, marker.replace('content=""', f'content="{csp}"'))


# What the engine worker's boot reads first, in that order (the worker fetching them runs four
# downloads at once, app/engine-fetch.js: a file asked for fifth waits for one to finish)
BOOT_ORDER = ("pyodide.mjs", "pyodide.asm.js", "pyodide-lock.json", "pyodide.asm.wasm",
              heap_snapshot.NAME, "python_stdlib.zip")


def write_engine_list(out: Path, files: dict[str, dict]) -> None:
    """Every file the engine needs, in the head's <meta id="engine-files">: app/engine-fetch.js
    has a worker fetch them once the page has painted, those the boot reads first first, then
    the largest first. The worker asks at low priority: on a slow link 10 MB at the default
    (high) priority took every HTTP/1.1 connection and the page never painted (Lighthouse,
    devtools throttling: no first paint in 45 s; 4.2 s with low)."""
    def rank(name: str) -> tuple[int, int]:
        first = BOOT_ORDER.index(name) if name in BOOT_ORDER else len(BOOT_ORDER)
        return first, -(out / files[name]["path"]).stat().st_size
    paths = [files[name]["path"] for name in sorted(files, key=rank)]
    _fill(out / "index.html", "<!-- engine files -->",
          f'<meta id="engine-files" name="engine-files" content="{" ".join(paths)}">')


def tree_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*")):
        if f.is_file():
            h.update(f.relative_to(folder).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def swap_into_place(tmp: Path) -> None:
    old = None
    if DIST.exists():
        old = Path(tempfile.mkdtemp(prefix=".dist-old-", dir=ROOT))
        os.rename(DIST, old / "dist")
    os.rename(tmp, DIST)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def build(base: str = "/") -> None:
    """Assemble dist/ for a site published at `base` (a path that starts and ends with /);
    only _headers depends on it, every URL the page uses being relative."""
    started = time.monotonic()
    CACHE.mkdir(exist_ok=True)
    inputs = input_hash()
    tmp = Path(tempfile.mkdtemp(prefix=".dist-tmp-", dir=ROOT))
    try:
        lock = pyodide.build_pyodide_core(tmp)
        pyodide_wheels = pyodide.build_pyodide_packages(tmp, lock)
        wheel = engine_wheel.build_engine_wheel(tmp, engine_wheel.compile_engine_pyc(tmp))
        cache_zip = import_cache.build_import_cache(
            tmp, tmp / "wheels" / wheel, [tmp / "pyodide" / n for n in pyodide_wheels])
        heap = heap_snapshot.build_heap_snapshot(tmp)
        frontend.copy_page(tmp)
        frontend.build_cm6(tmp)
        precompute_first_frame(tmp)
        prerender_first_frame(tmp)
        inline_classic_scripts(tmp)
        script_hashes = inline_script_hashes(tmp)  # the meta CSP, sw.js and _headers agree
        write_meta_csp(tmp, script_hashes)
        files = engine_files(tmp, wheel, pyodide_wheels, cache_zip, heap["path"])
        write_engine_list(tmp, files)
        manifest = {
            "engine_wheel": f"wheels/{wheel}",
            "engine_files": files,
            "import_cache": cache_zip,
            "heap_snapshot": heap,
            "engine_scripts": engine_scripts(tmp),
            "build_hash": tree_hash(tmp),
            "input_hash": inputs,
            "base": base,
            "pyodide_version": pyodide.PYODIDE_VERSION,
            "pyodide_packages": pyodide_wheels,
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        n_cached = write_service_worker(tmp, manifest["build_hash"], script_hashes)
        log(f"sw.js: build {manifest['build_hash']}, {n_cached} files to cache")
        write_headers_file(tmp, script_hashes, base)
        for p in [tmp, *tmp.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        swap_into_place(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(f.stat().st_size for f in DIST.rglob("*") if f.is_file())
    took = time.monotonic() - started
    log(f"dist/ ready: {size:,} B, build hash {manifest['build_hash']}, {took:.1f} s")

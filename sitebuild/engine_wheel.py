"""The engine wheel for dist/wheels/: built by pyproject.toml's own backend (setuptools, pinned
here and cached like every download) from a staged copy of the sources, with each module's
bytecode compiled by the Pyodide that ships, so the browser imports without compiling."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .common import (
    CACHE,
    ENGINE_PKG,
    ROOT,
    BuildError,
    cached_download,
    iter_files,
    log,
    sha256_bytes,
)
from .pyodide import PYODIDE_VERSION

SETUPTOOLS_REQ = "setuptools==80.9.0"
SETUPTOOLS_FILE = "setuptools-80.9.0-py3-none-any.whl"
SETUPTOOLS_SHA256 = "062d34222ad13e0cc312a4c02d73f059e86a4acbfbdea8f8f76b28c99f306922"
HERE = Path(__file__).resolve().parent
# Zip timestamps for a wheel that is the same bytes from the same sources (1980-01-01).
SOURCE_DATE_EPOCH = "315532800"


def engine_sources() -> dict[str, str]:
    """{path in the wheel: text} of every engine module."""
    return {f.relative_to(ROOT).as_posix(): f.read_text(encoding="utf-8")
            for f in iter_files(ROOT / ENGINE_PKG) if f.suffix == ".py"}


def compile_engine_pyc(out: Path) -> list[tuple[str, bytes]]:
    """(wheel path, bytes) of __pycache__/*.cpython-312.pyc for every engine module, compiled
    by out/pyodide in Node (compile_pyc.mjs); cached in .cache/ by the sources' hash.
    [] without Node."""
    sources = engine_sources()
    key = sha256_bytes((PYODIDE_VERSION + json.dumps(sources, sort_keys=True)).encode())[:16]
    cached = CACHE / f"pyc-{key}.json"
    if not cached.exists():
        node = shutil.which("node")
        if node is None:
            log("node not found: the engine wheel ships without bytecode (slower boot)")
            return []
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            src_json = Path(tmp) / "sources.json"
            src_json.write_text(json.dumps(sources))
            proc = subprocess.run([node, str(HERE / "compile_pyc.mjs"), str(out / "pyodide"),
                                   str(src_json), str(HERE / "compile_pyc.py")],
                                  capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                  timeout=300)
            if proc.returncode != 0:
                raise BuildError(f"compiling the engine in Pyodide failed: {proc.stderr[-2000:]}")
            cached.write_text(proc.stdout)
    data = json.loads(cached.read_text())
    pycs = [(rel, base64.b64decode(b)) for rel, b in sorted(data["pycs"].items())]
    if len(pycs) != len(sources):
        raise BuildError(f"compiled {len(pycs)} of {len(sources)} engine modules")
    log(f"engine bytecode: {len(pycs)} modules for Python {data['python']}")
    return pycs


def setuptools_path() -> Path:
    """The pinned setuptools, unpacked once into .cache/ (a wheel is importable unpacked)."""
    folder = CACHE / SETUPTOOLS_REQ.replace("==", "-")
    whl = cached_download(folder / SETUPTOOLS_FILE, SETUPTOOLS_SHA256, lambda tmp: [
        sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
        "-q", "-d", tmp, SETUPTOOLS_REQ])
    site = folder / "site"
    if not (site / ".unpacked").exists():
        shutil.rmtree(site, ignore_errors=True)
        with zipfile.ZipFile(whl) as z:
            z.extractall(site)
        (site / ".unpacked").write_text("ok\n")
    return site


def build_engine_wheel(out: Path, pycs: list[tuple[str, bytes]] = ()) -> str:
    """out/wheels/<name>.whl from the engine's sources plus `pycs`; returns the file name."""
    if not (ROOT / ENGINE_PKG / "__init__.py").exists():
        raise BuildError(f"{ROOT / ENGINE_PKG}/__init__.py not found")
    site = setuptools_path()
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        stage, dest = Path(tmp) / "src", Path(tmp) / "out"
        files = [(rel, text.encode()) for rel, text in engine_sources().items()]
        for rel, data in [("pyproject.toml", (ROOT / "pyproject.toml").read_bytes()),
                          *files, *pycs]:
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_bytes(data)
        # -S: no site-packages, so the pinned setuptools is the only one in sight; -P: nor this
        # folder (setuptools imports its vendored `wheel`).
        env = {**os.environ, "PYTHONPATH": str(site), "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}
        cmd = [sys.executable, "-S", "-P", str(HERE / "pep517_wheel.py"), str(dest)]
        proc = subprocess.run(cmd, cwd=stage, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=300)
        if proc.returncode != 0:
            raise BuildError(f"setuptools could not build the engine wheel: "
                             f"{(proc.stdout + proc.stderr)[-2000:]}")
        wheel_name = proc.stdout.strip().splitlines()[-1]
        target = out / "wheels" / wheel_name
        target.parent.mkdir(parents=True)
        shutil.copyfile(dest / wheel_name, target)
    target.chmod(0o644)
    log(f"wheels/{wheel_name}: {len(files)} modules, {target.stat().st_size} B")
    return wheel_name

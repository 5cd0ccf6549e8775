"""build.py without a browser: hash checks fail loudly, dist/ is never half-built, the engine
wheel is a valid pure-Python wheel."""
from __future__ import annotations

import base64
import copy
import hashlib
import importlib.util
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("pe_build", ROOT / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _need_cache(build):
    tgz = build.CACHE / f"pyodide-{build.PYODIDE_VERSION}" / f"pyodide-{build.PYODIDE_VERSION}.tgz"
    donor = build.CACHE / f"donor-{build.DONOR_REQ.replace('==', '-')}" / build.DONOR_FILE
    if not (tgz.exists() and donor.exists()):
        pytest.skip("downloads not cached yet: run `python3 build.py` first")


def _lock(build, tmp_path):
    _need_cache(build)
    n = len(list(tmp_path.glob("core*")))
    return build.build_pyodide_core(tmp_path / f"core{n}")


def test_pyodide_wheels_verified_against_npm_lock(build, tmp_path):
    lock = _lock(build, tmp_path)
    out = tmp_path / "ok"
    (out / "pyodide").mkdir(parents=True)
    names = build.build_pyodide_packages(out, lock)
    assert len(names) == len(build.PYODIDE_PACKAGES)
    for name in names:
        entry = next(p for p in lock["packages"].values() if p["file_name"] == name)
        assert hashlib.sha256((out / "pyodide" / name).read_bytes()).hexdigest() == entry["sha256"]


def test_sha256_mismatch_is_fatal(build, tmp_path):
    lock = copy.deepcopy(_lock(build, tmp_path))
    lock["packages"]["numpy"]["sha256"] = "0" * 64
    (tmp_path / "bad" / "pyodide").mkdir(parents=True)
    with pytest.raises(build.BuildError, match="sha256 MISMATCH for numpy-"):
        build.build_pyodide_packages(tmp_path / "bad", lock)


def test_missing_wheel_or_dependency_is_fatal(build, tmp_path):
    lock = copy.deepcopy(_lock(build, tmp_path))
    lock["packages"]["numpy"]["file_name"] = "numpy-0.0.0-nothere.whl"
    (tmp_path / "bad" / "pyodide").mkdir(parents=True)
    with pytest.raises(build.BuildError, match="MISSING numpy-0.0.0"):
        build.build_pyodide_packages(tmp_path / "bad", lock)
    lock = copy.deepcopy(_lock(build, tmp_path))
    lock["packages"]["numpy"]["depends"] = ["pyyaml"]
    with pytest.raises(build.BuildError, match="not bundled"):
        build.build_pyodide_packages(tmp_path / "bad", lock)


def test_failed_build_leaves_dist_alone(build, monkeypatch, capsys):
    _need_cache(build)
    before = (build.DIST / "manifest.json").read_bytes() if build.DIST.exists() else None
    monkeypatch.setattr(build, "PYODIDE_TGZ_SHA256", "f" * 64)
    assert build.main([]) == 1
    assert "sha256 MISMATCH" in capsys.readouterr().err
    after = (build.DIST / "manifest.json").read_bytes() if build.DIST.exists() else None
    assert after == before
    assert not list(ROOT.glob(".dist-tmp-*")) and not list(ROOT.glob(".dist-old-*"))


def test_engine_wheel(build, tmp_path):
    name = build.build_engine_wheel(tmp_path)
    whl = tmp_path / "wheels" / name
    assert name.endswith("-py3-none-any.whl") and whl.stat().st_mode & 0o777 == 0o644
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        assert "pe_engine/__init__.py" in names
        assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
        info = name.split("-")[0] + "-" + name.split("-")[1] + ".dist-info"
        meta = z.read(f"{info}/METADATA").decode()
        assert "Name: pe_engine" in meta and "Requires-Dist: numpy" in meta
        rows = [r.split(",") for r in z.read(f"{info}/RECORD").decode().splitlines()]
        assert {r[0] for r in rows} == set(names)
        for path, digest, size in rows:
            if digest:
                data = z.read(path)
                want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                assert digest == "sha256=" + want.decode() and int(size) == len(data)
        src = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pe_engine").rglob("*.py")
               if "__pycache__" not in p.parts}
        assert src <= set(names)
    # found in the wheel alone, outside the repo (find_spec: packaging, not the engine's code)
    code = ("import sys, importlib.util; sys.path.insert(0, sys.argv[1]); "
            "print(importlib.util.find_spec('pe_engine').origin)")
    out = subprocess.run([sys.executable, "-c", code, str(whl)], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    assert str(whl) in out


def test_headers_file_matches_server(build, tmp_path):
    (tmp_path / "pyodide").mkdir()
    (tmp_path / "pyodide" / "numpy-2.0.2-x.whl").write_bytes(b"")
    (tmp_path / "index.html").write_text("")
    build.write_headers_file(tmp_path)
    text = (tmp_path / "_headers").read_text()
    assert f"Content-Security-Policy: {build.CSP}" in text
    immutable = "Cache-Control: public, max-age=31536000, immutable"
    assert f"/pyodide/numpy-2.0.2-x.whl\n  {immutable}" in text
    assert "/index.html\n  Cache-Control: no-cache" in text
    assert build.headers_for("pyodide/pyodide.asm.wasm")["Cache-Control"] == "no-cache"
    assert json.dumps(build.MIME_TYPES)  # sanity: plain data
    assert build.MIME_TYPES[".wasm"] == "application/wasm"

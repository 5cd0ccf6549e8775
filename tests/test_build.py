"""The site build (sitebuild/, run by build.py) without a browser: hash checks fail loudly,
dist/ is never half-built, the engine wheel is a valid pure-Python wheel built by setuptools."""
from __future__ import annotations

import base64
import copy
import hashlib
import json
import subprocess
import sys
import zipfile

import pytest

from sitebuild import cli, common, engine_wheel, headers, pyodide, site

ROOT = common.ROOT


def _need_cache():
    if not (pyodide.pyodide_tgz_path().exists() and pyodide.donor_path().exists()):
        pytest.skip("downloads not cached yet: run `python3 build.py` first")


def _lock(tmp_path):
    _need_cache()
    n = len(list(tmp_path.glob("core*")))
    return pyodide.build_pyodide_core(tmp_path / f"core{n}")


def test_pyodide_wheels_verified_against_npm_lock(tmp_path):
    lock = _lock(tmp_path)
    out = tmp_path / "ok"
    (out / "pyodide").mkdir(parents=True)
    names = pyodide.build_pyodide_packages(out, lock)
    assert len(names) == len(pyodide.PYODIDE_PACKAGES)
    for name in names:
        entry = next(p for p in lock["packages"].values() if p["file_name"] == name)
        assert hashlib.sha256((out / "pyodide" / name).read_bytes()).hexdigest() == entry["sha256"]


def test_sha256_mismatch_is_fatal(tmp_path):
    lock = copy.deepcopy(_lock(tmp_path))
    lock["packages"]["numpy"]["sha256"] = "0" * 64
    (tmp_path / "bad" / "pyodide").mkdir(parents=True)
    with pytest.raises(common.BuildError, match="sha256 MISMATCH for numpy-"):
        pyodide.build_pyodide_packages(tmp_path / "bad", lock)


def test_missing_wheel_or_dependency_is_fatal(tmp_path):
    lock = copy.deepcopy(_lock(tmp_path))
    lock["packages"]["numpy"]["file_name"] = "numpy-0.0.0-nothere.whl"
    (tmp_path / "bad" / "pyodide").mkdir(parents=True)
    with pytest.raises(common.BuildError, match="MISSING numpy-0.0.0"):
        pyodide.build_pyodide_packages(tmp_path / "bad", lock)
    lock = copy.deepcopy(_lock(tmp_path))
    lock["packages"]["numpy"]["depends"] = ["pyyaml"]
    with pytest.raises(common.BuildError, match="not bundled"):
        pyodide.build_pyodide_packages(tmp_path / "bad", lock)


def test_failed_build_leaves_dist_alone(monkeypatch, capsys):
    _need_cache()
    dist = common.DIST
    before = (dist / "manifest.json").read_bytes() if dist.exists() else None
    monkeypatch.setattr(pyodide, "PYODIDE_TGZ_SHA256", "f" * 64)
    assert cli.main([]) == 1
    assert "sha256 MISMATCH" in capsys.readouterr().err
    after = (dist / "manifest.json").read_bytes() if dist.exists() else None
    assert after == before
    assert not list(ROOT.glob(".dist-tmp-*")) and not list(ROOT.glob(".dist-old-*"))


def test_engine_wheel(tmp_path):
    name = engine_wheel.build_engine_wheel(tmp_path)
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


def test_engine_wheel_is_the_same_bytes_each_build(tmp_path):
    pycs = [("pe_engine/__pycache__/core.cpython-312.pyc", b"bytecode")]
    a = engine_wheel.build_engine_wheel(tmp_path / "a", pycs)
    b = engine_wheel.build_engine_wheel(tmp_path / "b", pycs)
    data = (tmp_path / "a" / "wheels" / a).read_bytes()
    assert data == (tmp_path / "b" / "wheels" / b).read_bytes()
    with zipfile.ZipFile(tmp_path / "a" / "wheels" / a) as z:
        assert z.read(pycs[0][0]) == b"bytecode"
        assert "pe_engine/explain/__init__.py" in z.namelist()


def test_headers_file_matches_server(tmp_path):
    (tmp_path / "pyodide").mkdir()
    (tmp_path / "pyodide" / "numpy-2.0.2-x.whl").write_bytes(b"")
    (tmp_path / "index.html").write_text("")
    headers.write_headers_file(tmp_path, ("HASH",))
    text = (tmp_path / "_headers").read_text()
    assert f"Content-Security-Policy: {headers.content_security_policy(('HASH',))}" in text
    immutable = "Cache-Control: public, max-age=31536000, immutable"
    assert f"/pyodide/numpy-2.0.2-x.whl\n  {immutable}" in text
    assert "/index.html\n  Cache-Control: no-cache" in text
    assert headers.headers_for("pyodide/pyodide.asm.wasm", ("HASH",))["Cache-Control"] == "no-cache"
    assert json.dumps(headers.MIME_TYPES)  # sanity: plain data
    assert headers.MIME_TYPES[".wasm"] == "application/wasm"


def test_csp_allows_the_engine_frame_by_its_hash_and_nothing_inline():
    """The page's CSP names the frame script by the sha256 of app/engine-frame.js, allows
    blob: workers and scripts (the frame's worker) but neither inline script nor eval, and
    the <meta> copy differs only by frame-ancestors (which a meta CSP cannot carry)."""
    hashes = headers.inline_script_hashes(ROOT)  # the source page has no inline script
    want = base64.b64encode(hashlib.sha256((ROOT / "app/engine-frame.js").read_bytes()).digest())
    assert hashes == (want.decode(),)
    csp = dict(d.split(" ", 1) for d in headers.content_security_policy(hashes).split("; "))
    assert csp["script-src"] == f"'self' 'wasm-unsafe-eval' 'sha256-{hashes[0]}' blob:"
    assert "'unsafe-inline'" not in csp["script-src"].split()
    assert "'unsafe-eval'" not in csp["script-src"].split()
    assert csp["connect-src"] == "'self'" and csp["frame-ancestors"] == "*"
    meta = headers.content_security_policy(hashes, meta=True)
    assert meta + "; frame-ancestors *" == headers.content_security_policy(hashes)


def test_head_scripts_are_inlined_and_allowed_by_hash(tmp_path):
    """The build writes the head's classic scripts into index.html (no fetch before the first
    paint), drops their files, and the CSP names each inline body by its hash."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "engine-frame.js").write_text("frame();\n")
    (tmp_path / "app" / "a.js").write_text("a();\n")
    (tmp_path / "app" / "b.js").write_text("b();\n")
    (tmp_path / "index.html").write_text(
        '<head><script src="app/a.js"></script>\n<script src="app/b.js"></script>\n'
        '<script type="module" src="app/main.js"></script></head>')
    site.inline_classic_scripts(tmp_path)
    html = (tmp_path / "index.html").read_text()
    assert '<script>a();\n</script>\n<script>b();\n</script>' in html
    assert '<script type="module" src="app/main.js"></script>' in html
    assert not (tmp_path / "app" / "a.js").exists() and not (tmp_path / "app" / "b.js").exists()
    sha = [base64.b64encode(hashlib.sha256(t).digest()).decode()
           for t in (b"frame();\n", b"a();\n", b"b();\n")]
    assert headers.inline_script_hashes(tmp_path) == tuple(sha)
    script_src = headers.content_security_policy(sha).split("; ")[1]
    assert all(f"'sha256-{h}'" in script_src.split() for h in sha)
    (tmp_path / "app" / "c.js").write_text("if (a </script> b) {}")
    (tmp_path / "index.html").write_text('<script src="app/c.js"></script>')
    with pytest.raises(common.BuildError, match="cannot be inlined"):
        site.inline_classic_scripts(tmp_path)


def test_headers_file_under_a_base_path(tmp_path):
    """`build.py --base /docs/pe/`: every _headers rule is under that path."""
    (tmp_path / "index.html").write_text("")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.js").write_text("")
    headers.write_headers_file(tmp_path, ("HASH",), "/docs/pe/")
    rules = [line for line in (tmp_path / "_headers").read_text().splitlines()
             if line and not line.startswith(("#", " "))]
    assert rules == ["/docs/pe/*", "/docs/pe/app/main.js", "/docs/pe/index.html", "/docs/pe/"]


def test_base_must_be_a_path(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--base", "docs/pe"])
    assert "--base must start and end with '/'" in capsys.readouterr().err


def test_dev_server_sends_gzip_as_static_hosts_do(tmp_path):
    """`build.py serve` gzips text, scripts and wasm for a browser that accepts it, answers a
    revalidation by entity tag with 304, and sends compressed archives as they are."""
    import gzip
    import http.server
    import threading
    import urllib.request

    from sitebuild import server

    (tmp_path / "app.js").write_text("console.log('x');\n" * 200)
    (tmp_path / "w.whl").write_bytes(b"PK" * 500)

    class H(server.Handler):
        def __init__(self, *a, **k):
            http.server.SimpleHTTPRequestHandler.__init__(self, *a, directory=str(tmp_path), **k)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}/"

    def get(path, **headers):
        try:
            with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers)) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), b""
    try:
        status, h, body = get("app.js", **{"Accept-Encoding": "gzip, br"})
        assert status == 200 and h["Content-Encoding"] == "gzip"
        assert gzip.decompress(body) == (tmp_path / "app.js").read_bytes()
        assert int(h["Content-Length"]) == len(body) < (tmp_path / "app.js").stat().st_size
        assert "Content-Security-Policy" in h  # the site's headers still come with it
        status, _, _ = get("app.js", **{"Accept-Encoding": "gzip", "If-None-Match": h["ETag"]})
        assert status == 304
        status, h, body = get("app.js")
        assert status == 200 and "Content-Encoding" not in h
        assert body == (tmp_path / "app.js").read_bytes()
        status, h, body = get("w.whl", **{"Accept-Encoding": "gzip"})
        assert "Content-Encoding" not in h and body == b"PK" * 500
    finally:
        srv.shutdown()

"""The browser wall, in every engine: what code that escaped the Python sandbox could reach from
the engine's worker and its frame, in Chromium, Firefox and WebKit, with the site's headers and
on a plain static host. Then the embed API, framed from another origin.

The probes run in a worker the engine's frame starts exactly as it starts the engine's (a
classic worker from a blob: URL of the frame's opaque origin, under the frame's CSP), on the
engine worker's own program with the probes appended, as code that escaped Python would run
after it: only the engine's own worker differs, by the Python it booted. (In Chromium,
test_isolation.py also runs escaped code inside the engine's own worker, through the DevTools
protocol; WebDriver reaches no worker.) Every network probe aims at a canary server on
loopback, and at the host itself under a path that nothing else asks for: the test fails if
either hears of it.
"""
from __future__ import annotations

import http.server
import json
import uuid
from pathlib import Path

import pytest

from tests.browser.conftest import PlainHost
from tests.browser.engines import ENGINES
from tests.browser.local_servers import serve_folder, serving
from tests.browser.test_embed import HOST, OTHER
from tests.browser.test_engines import engine_param, open_ready

pytestmark = pytest.mark.browser


class Canary(http.server.BaseHTTPRequestHandler):
    """Records every request that reaches it (WebSocket upgrades included) and answers 200
    with `Access-Control-Allow-Origin: *`, so that only the browser's wall can stop a probe."""

    heard: list[str] = []

    def _answer(self) -> None:
        Canary.heard.append(f"{self.command} {self.path}")
        body = b"self.__canary = 1; export default 1;"
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        self.send_header("Content-Type", "text/javascript")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = _answer

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def canary():
    with serving(Canary) as origin:
        yield origin.removeprefix("http://")


class HeardPlainHost(PlainHost):
    """The plain host, noting the paths asked for."""

    heard: list[str] = []

    def send_head(self):
        HeardPlainHost.heard.append(self.path)
        return super().send_head()


@pytest.fixture(scope="module")
def heard_plain_site(site):
    with serving(HeardPlainHost) as origin:
        yield origin + PlainHost.base


WALL = Path(__file__).parent / "wall"
WORKER = (WALL / "probe-worker.js").read_text()
# the function itself: its file's comment and the statement's semicolon left out
IN_FRAME = "\n".join(line for line in (WALL / "probe-frame.js").read_text().splitlines()
                     if not line.startswith("//")).strip().rstrip(";")


def refused(value) -> bool:
    return isinstance(value, str) and value.startswith("refused")


@pytest.mark.parametrize("engine", [engine_param(e) for e in ENGINES])
@pytest.mark.parametrize("host", ["headers", "plain"])
def test_the_wall_holds(engines, engine, host, site, heard_plain_site, canary):
    url = site if host == "headers" else heard_plain_site
    tag = uuid.uuid4().hex[:12]
    Canary.heard.clear()
    tab = engines.tab(engine)
    try:
        before = open_ready(tab, url)
        # the constants the probes read; the first worker also gets its own program and
        # these, to start a nested copy of itself
        defines = (f"const OTHER_HOST = {json.dumps(canary)}; const SITE = {json.dumps(url)};"
                   f" const TAG = {json.dumps(tag)};")
        defines += f" const MAIN = {json.dumps(WORKER)}; const DEFINES = {json.dumps(defines)};"
        engine_worker = tab.run("async (u) => (await fetch(u)).text()",
                                url + "app/engine-worker.js")
        got = tab.run_in_frame(IN_FRAME, {"engineWorker": engine_worker, "worker": WORKER,
                                          "defines": defines, "otherHost": canary},
                               timeout_s=120)
        worker, frame = got["worker"], got["frame"]
        assert "error" not in worker, worker
        nested = worker.pop("nested")
        for where in (worker, nested) if isinstance(nested, dict) else (worker,):
            assert where.pop("origin") == "null", where
            reached = {k: v for k, v in where.items() if not refused(v)}
            assert not reached, f"{engine}/{host}: the worker reached {reached}"
        if not isinstance(nested, dict):
            assert refused(nested), nested
        assert frame.pop("origin") == "null"
        reached = {k: v for k, v in frame.items() if not refused(v)}
        assert not reached, f"{engine}/{host}: the frame reached {reached}"

        tab.run("() => new Promise((r) => setTimeout(r, 1000))")
        assert Canary.heard == [], Canary.heard
        assert not [p for p in HeardPlainHost.heard if tag in p]
        # the page ignored the forged messages and still splits
        after = tab.run("() => JSON.parse(JSON.stringify(window.peEngine.info))")
        assert after["versions"] == before["info"]["versions"] and after["error"] is None
        assert tab.run("() => location.href") == url
        st = tab.run("(c) => window.explainer.setSource(c)",
                     "def f(x, y):\n    return x * y + 7.5\n")
        assert st["error"] is None and "7.5" in st["known"] + st["unknown"]
    finally:
        tab.close()


CODE = "import jax.numpy as jnp\n\n\ndef f(x, y):\n    return jnp.sin(x) * y\n"


@pytest.mark.parametrize("engine", [engine_param(e) for e in ENGINES])
def test_embed_answers_its_host_only(engines, engine, site, tmp_path):
    """The page framed by a page of another origin answers that page's calls; a frame of a
    third origin in the same page gets nothing and changes nothing."""
    (tmp_path / "host").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "other.html").write_text(OTHER)
    host, host_url = serve_folder(tmp_path / "host")
    other, other_url = serve_folder(tmp_path / "other")
    tab = engines.tab(engine)
    try:
        tab.goto(site)
        tab.wait("() => typeof window.explainer?.permalink === 'function'")
        tab.run("(c) => window.explainer.setSource(c)", CODE)
        link = tab.run("() => window.explainer.permalink()")
        embed = link.replace("#", "?embed#", 1) if "?" not in link else link
        code = (f'<iframe src="{embed}" title="Partial evaluation in JAX, live" width="700" '
                'height="640" style="border: 0"></iframe>')
        (tmp_path / "host" / "host.html").write_text(HOST.format(embed=code, other=other_url))
        tab.goto(f"{host_url}/host.html")
        assert tab.wait("() => window.ready", timeout_s=120) == {
            "type": "explainer:ready", "version": 1}
        s = tab.run("() => window.call('settled')", timeout_s=180)
        assert s["ok"] and s["result"]["source"] == CODE, s
        r = tab.run("() => window.call('setKnown', 'y', true)", timeout_s=120)
        assert r["ok"] and r["result"]["mask"] == {"x": True, "y": True}
        r = tab.run("() => window.call('nope')")
        assert r["ok"] is False and r["error"] == 'unknown method "nope"'
        # the third origin's frame aims calls at the embed: ignored, nothing comes back
        tab.run("() => document.getElementById('other').contentWindow.postMessage('attack', '*')")
        tab.run("() => new Promise((r) => setTimeout(r, 1500))")
        assert tab.run("() => window.strays") == []
        s = tab.run("() => window.call('state')")["result"]
        assert s["source"] == CODE and s["mask"] == {"x": True, "y": True}
    finally:
        tab.close()
        host.shutdown()
        other.shutdown()

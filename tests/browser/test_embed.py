"""Embed mode inside a real <iframe> on another origin: a host page on a second local server
(another port of 127.0.0.1: another origin) embeds the code the page's "Copy embed code" button
wrote; the embed shows the editor and the stage only, read-only unless `&edit`, fits a 700 px
column, opens the link's state, and answers the host's postMessage calls, and only the host's:
a third origin's frame in the same host page gets nothing and changes nothing."""
from __future__ import annotations

import html
import json
import re

import pytest

from tests.browser.code_editor import reach_editor
from tests.browser.local_servers import serve_folder
from tests.browser.test_page import open_page
from tools.page_code import permalinks

pytestmark = pytest.mark.browser

CODE = "import jax.numpy as jnp\n\n\ndef f(x, y):\n    return jnp.sin(x) * y\n"
HOST = """<!doctype html><html><head><meta charset="utf-8"><title>A course page</title></head>
<body style="margin: 0"><main style="width: 700px">
<p>Some course notes, then the explainer:</p>
{embed}
<iframe id="other" src="{other}/other.html" width="10" height="10"></iframe>
</main>
<script>
const EMBED = new URL(document.querySelector("iframe").src).origin;
window.ready = null;
window.strays = [];
let n = 0;
const waiting = new Map();
addEventListener("message", (e) => {{
  if (e.origin !== EMBED) {{ window.strays.push(e.data); return; }}
  if (e.data?.type === "explainer:ready") window.ready = e.data;
  else if (e.data?.type === "explainer:reply" && waiting.has(e.data.id))
    waiting.get(e.data.id)(e.data);
  else window.strays.push(e.data);
}});
window.call = (method, ...args) => new Promise((resolve) => {{
  const id = ++n;
  waiting.set(id, resolve);
  document.querySelector("iframe").contentWindow.postMessage(
    {{type: "explainer:call", id, method, args}}, EMBED);
}});
</script></body></html>
"""
# A frame of a third origin in the host page, aiming calls at the embed
OTHER = """<!doctype html><meta charset="utf-8"><script>
window.got = [];
addEventListener("message", (e) => {
  if (e.data === "attack") {
    parent.frames[0].postMessage({type: "explainer:call", id: "evil", method: "setSource",
                                  args: ["def g(z):\\n    return z\\n"]}, "*");
    parent.frames[0].postMessage({type: "explainer:call", id: "evil2", method: "state"}, "*");
  } else window.got.push(e.data);
});
</script>"""


@pytest.fixture
def origins(tmp_path):
    """(host folder, host origin, other origin): two more local origins."""
    (tmp_path / "host").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "other.html").write_text(OTHER)
    host, host_url = serve_folder(tmp_path / "host")
    other, other_url = serve_folder(tmp_path / "other")
    yield tmp_path / "host", host_url, other_url
    host.shutdown()
    other.shutdown()


def _copied_embed_code(page, site, wait_engine_ready) -> str:
    link, = permalinks([{"code": CODE, "known": {"x": True, "y": False},
                         "values": {"y": "[1.0, 2.0]"}, "mode": "split"}])
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_page(page, site, "#" + link["hash"], wait_engine_ready=wait_engine_ready)
    page.click("[data-testid=copy-embed]")
    page.wait_for_function("() => document.querySelector('[data-testid=notice]').textContent"
                           ".includes('<iframe>')")
    return page.evaluate("() => navigator.clipboard.readText()")


def _embed_frame(page, host_url: str):
    page.goto(f"{host_url}/host.html")
    page.wait_for_function("() => window.ready !== null", timeout=60_000)
    return next(f for f in page.frames if "?embed" in f.url)


def test_embed_in_an_iframe_on_another_origin(page, site, wait_engine_ready, origins):
    folder, host_url, other_url = origins
    code = _copied_embed_code(page, site, wait_engine_ready)
    m = re.fullmatch(r'<iframe src="([^"]+)" title="[^"]+" width="700" height="\d+" '
                     r'style="border: 0; max-width: 100%;" loading="lazy"></iframe>', code)
    assert m, code
    src = html.unescape(m.group(1))
    assert src.startswith(site + "?embed#v1.")
    (folder / "host.html").write_text(HOST.format(embed=code, other=other_url))

    frame = _embed_frame(page, host_url)
    assert page.evaluate("() => window.ready") == {"type": "explainer:ready", "version": 1}
    wait_engine_ready(frame)
    s = page.evaluate("() => window.call('settled')")
    assert s["ok"] and s["result"]["mask"] == {"x": True, "y": False}
    assert s["result"]["source"] == CODE and s["result"]["known"].startswith("{ lambda")

    # editor and stage only, read-only, in 700 px
    for sel in (".site-header", ".toolbar", ".explainer", "[data-testid=mask-explorer]",
                "[data-testid=inputs]", ".site-footer"):
        assert frame.is_hidden(sel), sel
    for sel in ("[data-testid=editor]", "[data-testid=stage]", ".embed-footer a"):
        assert frame.is_visible(sel), sel
    reach_editor(frame)
    assert frame.get_attribute(".cm-content", "contenteditable") == "false"
    assert frame.evaluate("() => document.documentElement.scrollWidth") <= 700
    assert frame.get_attribute(".embed-footer a", "href") == src.replace("?embed", "")
    # the mode tabs and the inputs are hidden: the caption says what the programs are of
    assert frame.text_content("[data-testid=embed-caption]") == \
        "Partial evaluation: x known; y unknown."

    # the host's calls, mirrored from window.explainer (storage shared with the full page
    # in this browser is emptied first: the embed must save nothing of its own)
    frame.evaluate("() => localStorage.clear()")
    r = page.evaluate("() => window.call('setKnown', 'y', true)")
    assert r["ok"] and r["result"]["mask"] == {"x": True, "y": True}
    assert frame.text_content("[data-testid=embed-caption]") == \
        "Partial evaluation: x and y known; no input unknown."
    assert page.evaluate("() => window.call('nope')") == {
        "type": "explainer:reply", "id": 3, "ok": False, "error": 'unknown method "nope"'}
    r = page.evaluate("() => window.call('setMode', 'bogus')")
    assert not r["ok"] and "unknown mode" in r["error"]

    # a third origin's frame in the same page: ignored, and nothing comes back to it
    other = next(f for f in page.frames if f.url.endswith("/other.html"))
    other.evaluate("() => window.postMessage('attack', '*')")
    page.wait_for_timeout(1500)
    assert other.evaluate("() => window.got") == []
    assert page.evaluate("() => window.strays") == []
    s = page.evaluate("() => window.call('state')")["result"]
    assert s["source"] == CODE and s["mask"] == {"x": True, "y": True}
    # an embed shows its link's state: nothing saved for a later visit
    assert frame.evaluate("() => localStorage.length") == 0


def test_embed_edit_lets_the_reader_edit(page, site, wait_engine_ready, origins):
    folder, host_url, other_url = origins
    link, = permalinks([{"code": CODE, "known": {"x": True, "y": False}, "values": {},
                         "mode": "split"}])
    src = f"{site}?embed&edit#{link['hash']}"
    code = f'<iframe src="{html.escape(src)}" width="700" height="640"></iframe>'
    (folder / "host.html").write_text(HOST.format(embed=code, other=other_url))
    frame = _embed_frame(page, host_url)
    wait_engine_ready(frame)
    assert frame.is_visible("[data-testid=inputs]") and frame.is_hidden(".toolbar")
    reach_editor(frame)
    assert frame.get_attribute(".cm-content", "contenteditable") == "true"
    frame.click("[data-testid=input-toggle-y]")
    s = frame.evaluate("() => window.explainer.settled()")
    assert s["mask"] == {"x": True, "y": True}
    r = page.evaluate("() => window.call('state')")
    assert r["result"]["mask"] == {"x": True, "y": True}
    assert json.loads(json.dumps(r["result"])) == r["result"]  # plain data crossed over


@pytest.mark.parametrize("mode, caption", [
    ("grad", "jax.grad with respect to y; x held fixed."),
    ("linearize", "jax.linearize with respect to y; x held fixed."),
    ("checkpoint", "jax.grad of jax.checkpoint (policy nothing_saveable) with respect to y; "
                   "x held fixed."),
    ("jit", "jax.jit: every input is a parameter, so every operation is staged."),
])
def test_embed_says_which_transform_and_inputs(page, site, wait_engine_ready, mode, caption):
    """A read-only embed hides the mode tabs and the inputs: its caption names the transform
    and the differentiated inputs, so "Forward / Linear" is not left unexplained."""
    link, = permalinks([{"code": CODE, "known": {"x": True, "y": False}, "values": {},
                         "mode": mode, "policy": "nothing_saveable"}])
    page.goto(f"{site}?embed#{link['hash']}")
    wait_engine_ready(page)
    assert page.is_hidden(".toolbar") and page.is_hidden("[data-testid=inputs]")
    assert page.is_visible("[data-testid=embed-caption]")
    assert page.text_content("[data-testid=embed-caption]") == caption
    # and not on the full page, whose tabs and inputs say it
    page.goto(f"{site}#{link['hash']}")
    wait_engine_ready(page)
    assert page.is_hidden("[data-testid=embed-caption]")

"""Which ways of walling off the engine start in each browser engine, and what they keep.

The engine runs code from a permalink, so it lives in an opaque origin with no network: an
<iframe sandbox="allow-scripts" srcdoc> whose CSP allows no connection. This probe opens a page
that makes such a frame (the site's frame CSP, loosened only to let each option's script run)
and tries, inside it, each way of running the engine off the page:

- blob:   a classic worker from a blob: URL made in the frame (the site's design)
- data:   a classic worker from a data: URL
- script: a worker from a script URL of the site (the frame's origin is not the site's)
- frame:  the frame's own thread (no worker); the page would need a watchdog that removes the
          frame, which works only if a busy frame leaves the page's thread free

for each of three hosts: COOP same-origin with COEP credentialless (the site's headers), with
COEP require-corp, and a plain host with neither. Per option it reports whether it started,
whether it is cross-origin isolated with SharedArrayBuffer (what interrupts need), its origin,
whether a fetch of the site is refused (the CSP's connect-src 'none') and the time to compile
pyodide.asm.wasm (10 MB) there, a proxy for its boot cost. For `frame` it also reports the
longest stall of the page's own timer while the frame spins 1.5 s.

    python3 bench/probe_isolation.py [--engines chromium,firefox,webkit]
"""
from __future__ import annotations

import argparse
import http.server
import json
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitebuild.common import DIST  # noqa: E402
from tests.browser.engines import Engines, missing, versions  # noqa: E402

HOSTS = {
    "credentialless": {"Cross-Origin-Opener-Policy": "same-origin",
                       "Cross-Origin-Embedder-Policy": "credentialless"},
    "require-corp": {"Cross-Origin-Opener-Policy": "same-origin",
                     "Cross-Origin-Embedder-Policy": "require-corp"},
    "plain": {},
}
OPTIONS = ("blob", "data", "script", "frame")

# What each context reports about itself (run in a worker, or in the frame for `frame`).
REPORT = r"""
async function report(site, wasm) {
  const out = { origin: String(self.origin), coi: Boolean(self.crossOriginIsolated),
                sab: typeof SharedArrayBuffer === "function" };
  try {
    await fetch(site + "probe.txt");
    out.fetch = "allowed";
  } catch (e) {
    out.fetch = "refused";
  }
  if (wasm) {
    const t = performance.now();
    await WebAssembly.compile(wasm);
    out.compileMs = Math.round(performance.now() - t);
  }
  return out;
}
"""
WORKER = REPORT + "onmessage = async (e) => postMessage(await report(e.data.site, e.data.wasm));"

FRAME = REPORT + r"""
const WORKER_SOURCE = %s;
function startWorker(option, site) {
  if (option === "blob") {
    return new Worker(URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" })));
  }
  if (option === "data") {
    return new Worker("data:text/javascript," + encodeURIComponent(WORKER_SOURCE));
  }
  return new Worker(site + "probe-worker.js");
}
function tryWorker(option, site, wasm) {
  return new Promise((resolve) => {
    let w;
    const done = (r) => {
      clearTimeout(timer);
      if (w) w.terminate();
      resolve(r);
    };
    const timer = setTimeout(() => done({ starts: false, error: "no answer in 20 s" }), 20000);
    try {
      w = startWorker(option, site);
    } catch (e) {
      return done({ starts: false, error: String(e) });
    }
    w.onerror = (e) => {
      e.preventDefault();
      done({ starts: false, error: String(e.message || "error event") });
    };
    w.onmessage = (e) => done({ starts: true, ...e.data });
    w.postMessage({ site, wasm });
  });
}
addEventListener("message", async (e) => {
  const { cmd, option, site, wasm } = e.data;
  if (cmd === "spin") {
    const end = performance.now() + 1500;
    while (performance.now() < end);
    parent.postMessage({ spun: true }, "*");
    return;
  }
  const r = option === "frame"
    ? { starts: true, ...(await report(site, wasm)) }
    : await tryWorker(option, site, wasm);
  parent.postMessage({ option, ...r }, "*");
});
parent.postMessage({ ready: true }, "*");
"""

PAGE = r"""<!doctype html><meta charset="utf-8"><title>isolation probe</title><script>
const SITE = location.href.replace(/[^/]*$/, "");
const FRAME_SCRIPT = %s;
const CSP = "default-src 'none'; script-src 'unsafe-inline' blob: data: " + SITE +
  " 'wasm-unsafe-eval'; worker-src blob: data: " + SITE + "; connect-src 'none'";
function frame() {
  const f = document.createElement("iframe");
  f.setAttribute("sandbox", "allow-scripts");
  f.setAttribute("allow", "cross-origin-isolated *");
  f.srcdoc = '<!doctype html><meta http-equiv="Content-Security-Policy" content="' + CSP +
    '"><script>' + FRAME_SCRIPT + "<\/script>";
  const ready = new Promise((r) => addEventListener("message", function h(e) {
    if (e.source === f.contentWindow && e.data.ready) {
      removeEventListener("message", h);
      r(f);
    }
  }));
  document.body.append(f);
  return ready;
}
function ask(f, msg) {
  return new Promise((r) => {
    addEventListener("message", function h(e) {
      if (e.source === f.contentWindow) {
        removeEventListener("message", h);
        r(e.data);
      }
    });
    f.contentWindow.postMessage(msg, "*");
  });
}
async function stall(f) {  // the page's longest timer gap while the frame spins
  let last = performance.now(), worst = 0;
  const id = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 10);
  await new Promise((r) => setTimeout(r, 50));
  await ask(f, { cmd: "spin" });
  await new Promise((r) => setTimeout(r, 50));
  clearInterval(id);
  return Math.round(worst);
}
window.probe = async (option) => {
  const wasm = await (await fetch(SITE + "pyodide/pyodide.asm.wasm")).arrayBuffer();
  const f = await frame();
  const r = await ask(f, { cmd: "try", option, site: SITE, wasm });
  if (option === "frame") r.pageStallMs = await stall(f);
  r.pageCoi = crossOriginIsolated;
  f.remove();
  return r;
};
</script><body>"""


def handler(host_headers: dict[str, str]) -> type:
    class Host(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm", ".js": "text/javascript"}

        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(DIST), **kwargs)

        def do_GET(self):
            body = {"/probe.html": PAGE % json.dumps(FRAME % json.dumps(WORKER)),
                    "/probe-worker.js": WORKER, "/probe.txt": "ok"}.get(self.path)
            if body is None:
                return super().do_GET()
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript" if self.path.endswith(".js")
                             else "text/html" if self.path.endswith(".html") else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def end_headers(self):
            for k, v in host_headers.items():
                self.send_header(k, v)
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
            super().end_headers()

        def log_message(self, *args):
            pass
    return Host


HEADER = (f"{'engine':<9} {'host':<15} {'option':<7} {'starts':<6} {'COI':<5} {'SAB':<5}"
          f" {'origin':<8} {'fetch':<8} {'compile':>8} {'stall':>6}  error")


def row(engine: str, host: str, option: str, r: dict) -> str:
    yes = {k: "yes" if r.get(k) else "no" for k in ("starts", "coi", "sab")}
    return (f"{engine:<9} {host:<15} {option:<7} {yes['starts']:<6} {yes['coi']:<5}"
            f" {yes['sab']:<5} {str(r.get('origin', '-')):<8} {r.get('fetch', '-'):<8}"
            f" {r.get('compileMs', '-'):>8} {r.get('pageStallMs', '-'):>6}"
            f"  {r.get('error', '')[:90]}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", default="chromium,firefox,webkit")
    args = ap.parse_args(argv)
    wanted = [e for e in args.engines.split(",") if not missing(e)]
    if not (DIST / "pyodide" / "pyodide.asm.wasm").exists():
        print("build the site first (python3 build.py)")
        return 1
    urls = {}
    for name, headers in HOSTS.items():
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(headers))
        srv.daemon_threads = True
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        urls[name] = f"http://127.0.0.1:{srv.server_address[1]}/probe.html"
    for engine, version in versions().items():
        if engine in wanted:
            print(f"# {engine}: {version}")
    print(HEADER)
    with sync_playwright() as p:
        engines = Engines(p)
        try:
            for engine in wanted:
                for host, url in urls.items():
                    for option in OPTIONS:
                        tab = engines.tab(engine)
                        try:
                            tab.goto(url)
                            r = tab.run("(o) => window.probe(o)", option, timeout_s=120)
                        except Exception as e:  # noqa: BLE001 - a probe reports, it does not stop
                            r = {"starts": False, "error": str(e)[:120]}
                        finally:
                            tab.close()
                        print(row(engine, host, option, r), flush=True)
        finally:
            engines.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

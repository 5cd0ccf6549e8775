// The engine's sandbox: this script runs inline in an <iframe sandbox="allow-scripts"
// srcdoc=...> (engine-client.js), so its origin is opaque: no cookies, storage, caches or
// service worker of the site, and a CSP with no network. It starts the engine worker from
// source text the page sends (a classic blob worker: module workers from blob: URLs do not
// start in an opaque origin in Chromium), hands it the port its files arrive on, holds its
// interrupt buffer, and relays messages between the worker and the page's MessagePort. What
// the worker says is passed on as data; the page checks every message. The page allows this
// script by its sha256 (the CSP).
"use strict";
(() => {
  /** @type {MessagePort | null} */
  let port = null;
  /** @type {Worker | null} */
  let worker = null;
  /** @type {Int32Array | null} */
  let interrupt = null;
  /** @param {object} msg what goes to the page (which checks every message) */
  const report = (msg) => {
    if (port) port.postMessage(msg);
  };

  addEventListener("securitypolicyviolation", (e) => {
    report({ type: "csp", violation: { directive: e.effectiveDirective, blockedURI: e.blockedURI } });
  });

  /** @param {string} workerSource @param {MessagePort} files the port the engine's files arrive on */
  function start(workerSource, files) {
    const sab = self.crossOriginIsolated && typeof SharedArrayBuffer === "function" ? new SharedArrayBuffer(4) : null;
    interrupt = sab ? new Int32Array(sab) : null;
    const url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
    worker = new Worker(url, { name: "pe-engine" });
    // Revoked once the worker has spoken: WebKit loads a worker's script after the
    // constructor returns, and a URL revoked at once leaves it a worker whose own blob: URLs
    // are refused ("Cross-origin script load denied"), so Pyodide's import fails.
    let revoked = false;
    worker.onmessage = (e) => {
      if (!revoked) URL.revokeObjectURL(url);
      revoked = true;
      report(e.data);
    };
    worker.onmessageerror = () => report({ type: "worker-error", message: "an unreadable message" });
    worker.onerror = (e) => {
      e.preventDefault();
      report({ type: "worker-error", message: String(e.message || "the engine worker failed") });
    };
    worker.postMessage({ cmd: "init", interruptBuffer: sab, files }, [files]);
    report({ type: "frame", interruptible: Boolean(sab) });
  }

  /** @param {MessageEvent} e */
  function fromPage(e) {
    const msg = e.data;
    if (!msg || typeof msg !== "object" || !worker) return;
    if (msg.cmd === "interrupt") {
      if (interrupt) Atomics.store(interrupt, 0, 2); // SIGINT: Python raises KeyboardInterrupt
    } else if (msg.cmd === "call") {
      if (interrupt) Atomics.store(interrupt, 0, 0);
      worker.postMessage({ cmd: "call", id: msg.id, fn: msg.fn, kwargs: msg.kwargs });
    } else if (msg.cmd === "terminate") {
      worker.terminate();
      worker = null;
    }
  }

  addEventListener("message", (e) => {
    // Once, from the page that made this frame: its port, the files' port and the worker's
    // source text.
    if (port || e.source !== parent || !e.data || e.data.cmd !== "init" || e.ports.length !== 2) return;
    port = e.ports[0];
    port.onmessage = fromPage;
    start(String(e.data.workerSource), e.ports[1]);
  });
})();

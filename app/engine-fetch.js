// Classic script, run before the first paint (the build inlines it): the engine's files
// (14 MB: Pyodide, its booted heap, numpy, the engine) are asked for once the first frame is
// rendered, so that the text paints first and Python's download still starts before any of the
// page's modules runs. Asked for earlier, they finished before the first paint on a fast link,
// and Lighthouse's model then counted all of them on its slow link as the largest paint's path
// (LCP 32.9 s). The build lists them in the head's <meta id="engine-files">.
//
// A worker fetches them and checks each one's sha256, so that neither runs on the page's main
// thread: received there, each large file's arrival cost the main thread a task of 20 to 100 ms
// on a 2-core machine, hashing 15 ms more, and handing the bytes to the sandboxed frame's
// process 100 ms of copying, all counted by Lighthouse as blocking time. engine-sandbox.js takes
// the worker over (window.engineFetcher), or starts one (window.startEngineFetcher) when its
// modules ran first (a tab opened in the background renders no frame) or for a restarted
// engine, and tells it where the files go: a MessagePort whose other end is the engine
// worker's. Each file is moved over that port once its hash matches manifest.json's.
(function () {
  "use strict";

  // The worker's program, started from a blob: URL: a worker script from the site took 200 ms
  // after the first frame to ask for the first file (its own fetch and start).
  // In: {cmd: 'fetch', urls}, then {cmd: 'deliver', port, files: [{url, path, name, sha256}]}.
  // Out: {error} for each file that could not be fetched or did not match; it closes when done.
  // The engine worker at the port's other end is never listened to.
  function fetcher() {
    const worker = /** @type {any} */ (self);
    const fetched = new Map(); // url -> Promise<{bytes, sha256} | {error}>
    // At most four downloads at once: HTTP/1.1 gives the site six connections, and the page's
    // own modules wait for a free one (with all six taken, the page came alive at 3.0 s instead
    // of 1.9 on a 20 Mbit/s link, and the engine, which its modules start, imported Pyodide at
    // 3.1 s instead of 0.95; three at once was no better than four)
    const AT_ONCE = 4;
    let running = 0;
    /** @type {Array<(value?: unknown) => void>} */
    const waiting = [];
    const acquire = () => (running < AT_ONCE ? (running++, Promise.resolve()) : new Promise((go) => waiting.push(go)));
    const release = () => (waiting.length ? /** @type {(value?: unknown) => void} */ (waiting.shift())() : running--);
    async function download(/** @type {string} */ url) {
      await acquire();
      try {
        const r = await fetch(url, { priority: "low" });
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return await r.arrayBuffer();
      } finally {
        release();
      }
    }
    // a separate realm from the page's modules: its own hex digest (engine-sandbox.js has one)
    async function fetchOne(/** @type {string} */ url) {
      try {
        const bytes = await download(url);
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
        return { bytes, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") };
      } catch (e) {
        return { error: String(e instanceof Error ? e.message : e) };
      }
    }
    const fetchAll = (/** @type {string[]} */ urls) => {
      for (const url of urls) if (!fetched.has(url)) fetched.set(url, fetchOne(url));
    };
    async function deliver(/** @type {MessagePort} */ port, /** @type {any[]} */ files) {
      fetchAll(files.map((f) => f.url));
      await Promise.all(
        files.map(async ({ url, path, name, sha256 }) => {
          const got = await fetched.get(url);
          if (got.error) worker.postMessage({ error: `${path}: ${got.error}` });
          else if (got.sha256 !== sha256)
            worker.postMessage({
              error: `sha256 mismatch for ${path}: got ${got.sha256}, manifest.json says ${sha256}`,
            });
          else port.postMessage({ cmd: "file", name, bytes: got.bytes }, [got.bytes]);
        }),
      );
      worker.close();
    }
    worker.onmessage = (/** @type {MessageEvent} */ { data }) => {
      if (data.cmd === "fetch") fetchAll(data.urls);
      else if (data.cmd === "deliver") deliver(data.port, data.files);
    };
  }

  function newFetcher() {
    const url = URL.createObjectURL(new Blob([`"use strict";(${fetcher})();`], { type: "text/javascript" }));
    const worker = new Worker(url, { name: "engine-fetch" });
    URL.revokeObjectURL(url);
    return worker;
  }

  /** A worker fetching `urls` (absolute) now. @param {string[]} urls */
  function startEngineFetcher(urls, worker = newFetcher()) {
    worker.postMessage({ cmd: "fetch", urls });
    return worker;
  }
  window.startEngineFetcher = startEngineFetcher;

  const list = document.getElementById("engine-files");
  if (!list) return; // the source tree served without a build has no list
  // started now, while the first frame is drawn, so that it is running once that is done
  const early = newFetcher();
  requestAnimationFrame(function () {
    setTimeout(function () {
      if (!list.isConnected) return early.terminate(); // the engine client was first
      list.remove();
      const paths = (list.getAttribute("content") || "").split(" ").filter(Boolean);
      window.engineFetcher = startEngineFetcher(
        paths.map((p) => new URL(p, document.baseURI).href),
        early,
      );
    }, 0);
  });
})();

// What code that escaped the Python sandbox could reach from the engine's worker: each probe
// answers "refused ..." or what it reached. Run as a classic worker started the way the engine's
// frame starts the engine's, after a prefix that defines NESTED, OTHER_HOST (a canary server),
// SITE (the page's folder), TAG (in every path asked of the site), and, for the first worker,
// MAIN and DEFINES (this program and its prefix, to start a nested copy: a worker's CSP lets it
// start blob: workers, so the nested one must be as walled in as its parent).
/* global NESTED, OTHER_HOST, SITE, TAG, MAIN, DEFINES */
(async () => {
  const OTHER = `http://${OTHER_HOST}`;
  const refuse = (e) => `refused ${(e && e.name) || e}`;
  const settle = (p, ms = 3000) =>
    Promise.race([p, new Promise((r) => setTimeout(() => r("refused (no answer)"), ms))]);
  const attempt = async (f) => {
    try {
      return await f();
    } catch (e) {
      return refuse(e);
    }
  };
  const event = (make, ok, bad) =>
    new Promise((r) => {
      try {
        const x = make();
        x[ok] = () => r("reached");
        x[bad] = () => r("refused error");
      } catch (e) {
        r(refuse(e));
      }
    });
  const probes = {
    "fetch another origin": () => fetch(`${OTHER}/fetch`).then(() => "reached", refuse),
    "fetch the site": () => fetch(`${SITE}canary-fetch-${TAG}`).then(() => "reached", refuse),
    "post to the site": () =>
      fetch(`${SITE}canary-post-${TAG}`, { method: "POST", body: "x" }).then(() => "reached", refuse),
    xhr: () =>
      event(
        () => {
          const x = new XMLHttpRequest();
          x.open("GET", `${OTHER}/xhr`);
          x.send();
          return x;
        },
        "onload",
        "onerror",
      ),
    websocket: () => event(() => new WebSocket(`ws://${OTHER_HOST}/ws`), "onopen", "onerror"),
    eventsource: () => event(() => new EventSource(`${OTHER}/sse`), "onopen", "onerror"),
    "importScripts a URL": () =>
      attempt(() => {
        importScripts(`${OTHER}/import`);
        return "reached";
      }),
    "import() a URL": () => import(`${OTHER}/module.js`).then(() => "reached", refuse),
    "a worker from a URL": () => event(() => new Worker(`${SITE}canary-worker-${TAG}`), "onmessage", "onerror"),
    "cache storage": () =>
      attempt(async () => {
        if (typeof caches === "undefined") return "refused: undefined";
        await caches.open("pe");
        return "reached";
      }),
    indexeddb: () => event(() => indexedDB.open("pe"), "onsuccess", "onerror"),
    // Firefox gives workers a navigator.serviceWorker (the spec has one): it must do nothing
    "service worker": () =>
      attempt(async () => {
        const sw = navigator.serviceWorker;
        if (!sw) return "refused: undefined";
        if (sw.controller) return "reached: a controller";
        await sw.register(`${SITE}sw.js`);
        return "reached: registered";
      }),
    "the parent window": async () =>
      typeof self.parent === "undefined" && typeof self.top === "undefined" ? "refused: undefined" : "reached",
    eval: () => attempt(() => `reached ${(0, eval)("1 + 1")}`),
    "new Function": () => attempt(() => `reached ${new Function("return 1")()}`),
  };
  const out = { origin: self.origin };
  for (const [name, probe] of Object.entries(probes)) out[name] = await settle(attempt(probe));
  if (!NESTED) {
    const src = `const NESTED = true; ${DEFINES}\n${MAIN}`;
    out.nested = await settle(
      attempt(() => {
        const inner = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
        return new Promise((r) => {
          inner.onmessage = (e) => r(e.data);
          inner.onerror = () => r("refused error");
        });
      }),
      20000,
    );
  }
  postMessage(out);
})();

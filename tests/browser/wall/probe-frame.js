// Run in the engine's sandboxed frame (the test passes this function to the browser): starts
// a worker as engine-frame.js starts the engine's (a classic worker from a blob: URL, under the
// frame's CSP) on the engine worker's own program with the probes appended, as escaped code
// would run after it; tries what the frame itself could reach; and sends the page forged
// engine messages on its window (the page listens to its engine on a MessagePort only).
async ({ engineWorker, worker: program, defines, otherHost }) => {
  const src = `${engineWorker}\nconst NESTED = false; ${defines}\n${program}`;
  const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
  const worker = new Worker(url, { name: "pe-engine" });
  const fromWorker = await new Promise((r) => {
    // the engine's program reports CSP violations as it runs: the probes' answer is the other
    worker.onmessage = (e) => e.data?.type !== "csp" && r(e.data);
    worker.onerror = (e) => r({ error: String(e.message) });
    setTimeout(() => r({ error: "no answer" }), 60000);
  });
  const attempt = (f) => {
    try {
      return `reached ${String(f()).slice(0, 40)}`;
    } catch (e) {
      return `refused ${e.name}`;
    }
  };
  const frame = {
    origin: self.origin,
    "local storage": attempt(() => localStorage.length),
    "session storage": attempt(() => sessionStorage.length),
    // WebKit takes the write silently and keeps nothing
    cookie: attempt(() => {
      document.cookie = "pe=1";
      if (!document.cookie.includes("pe=1")) throw { name: "not kept" };
      return document.cookie;
    }),
    "the page's document": attempt(() => parent.document.title),
    "the page's address": attempt(() => parent.location.href),
    "cache storage": await Promise.resolve()
      .then(() => caches.keys())
      .then(
        () => "reached",
        (e) => `refused ${e.name}`,
      ),
    indexeddb: await new Promise((r) => {
      try {
        const q = indexedDB.open("pe");
        q.onsuccess = () => r("reached");
        q.onerror = () => r("refused error");
      } catch (e) {
        r(`refused ${e.name}`);
      }
    }),
    "top navigation": attempt(() => {
      top.location.href = `http://${otherHost}/top`;
      return "navigated";
    }),
    "a popup": attempt(() => {
      const w = window.open(`http://${otherHost}/popup`);
      if (!w) throw { name: "no window" };
      return "opened";
    }),
  };
  parent.postMessage({ type: "ready", timings: {}, versions: { pyodide: "forged" } }, "*");
  parent.postMessage({ type: "boot-error", error: { type: "Forged", message: "forged" } }, "*");
  parent.postMessage({ id: 1, text: '{"ok": true, "result": {"forged": true}}' }, "*");
  return { worker: fromWorker, frame };
};

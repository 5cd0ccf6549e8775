// Classic script, run before the first paint (the build inlines it): the engine's files
// (14 MB: Pyodide, its booted heap, numpy, the engine) are asked for once the first frame is
// rendered, so that the text paints first and Python's download still starts before any of the
// page's modules runs. Asked for earlier, they finished before the first paint on a fast link,
// and Lighthouse's model then counted all of them on its slow link as the largest paint's path
// (LCP 32.9 s). The build lists them in the head's <meta id="engine-files">; a worker
// (engine-fetch-worker.js) fetches and hashes them off the main thread, and engine-sandbox.js
// takes that worker over (window.engineFetcher). The engine client removes the list when it
// starts the worker itself first (a tab opened in the background renders no frame).
(function () {
  "use strict";
  const list = document.getElementById("engine-files");
  if (!list) return; // the source tree served without a build has no list
  requestAnimationFrame(function () {
    setTimeout(function () {
      if (!list.isConnected) return;
      list.remove();
      const paths = (list.getAttribute("content") || "").split(" ").filter(Boolean);
      const worker = new Worker("app/engine-fetch-worker.js", { type: "module" });
      worker.postMessage({ cmd: "fetch", urls: paths.map((p) => new URL(p, document.baseURI).href) });
      window.engineFetcher = worker;
    }, 0);
  });
})();

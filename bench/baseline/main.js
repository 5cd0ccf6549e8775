// Start the worker; record when its one line of Python answered, on the page's clock.
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = (e) => {
  const m = e.data;
  const toPage = (t) => Math.round(t - performance.timeOrigin);
  if (m.type === "ready") {
    window.__baseline = { ready: toPage(m.t), marks: Object.fromEntries(
      Object.entries(m.marks).map(([k, v]) => [k, toPage(v)])), result: m.result };
    document.getElementById("out").textContent = `${m.result} in ${window.__baseline.ready} ms`;
    document.body.dataset.state = "done";
  } else if (m.type === "error") {
    window.__baseline = { error: m.message };
    document.getElementById("out").textContent = `error: ${m.message}`;
    document.body.dataset.state = "error";
  }
};

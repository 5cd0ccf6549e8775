// Bare Pyodide: loadPyodide, loadPackage(["numpy"]), one line of Python that imports numpy.
const now = () => performance.timeOrigin + performance.now();
const marks = { start: now() };
try {
  const { loadPyodide } = await import("../pyodide/pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: new URL("../pyodide/", import.meta.url).href });
  marks.loadPyodide = now();
  await pyodide.loadPackage(["numpy"], { messageCallback: () => {} });
  marks.packages = now();
  const result = pyodide.runPython("import numpy; str(numpy.arange(3).sum())");
  marks.result = now();
  self.postMessage({ type: "ready", t: marks.result, marks, result });
} catch (err) {
  self.postMessage({ type: "error", message: String(err && err.message || err) });
}

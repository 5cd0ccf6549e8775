// Run Python code against the built site's Pyodide and engine wheel, in Node.
// Usage: node tools/pyodide_run.mjs <dist dir> <python file>; prints what the code prints.
// Any http(s) fetch is refused: Pyodide in Node falls back to a CDN for missing packages.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, pyFile] = process.argv.slice(2);
const realFetch = globalThis.fetch;
globalThis.fetch = (url, ...rest) => {
  if (/^https?:/i.test(String(url))) throw new Error(`refused network fetch: ${url}`);
  return realFetch(url, ...rest);
};
const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide", "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.join(dist, "pyodide") + path.sep });
await pyodide.loadPackage(["numpy", "micropip"], { messageCallback: () => {} });
const manifest = JSON.parse(readFileSync(path.join(dist, "manifest.json"), "utf8"));
const wheel = path.basename(manifest.engine_wheel);
pyodide.FS.writeFile(`/tmp/${wheel}`, readFileSync(path.join(dist, manifest.engine_wheel)));
await pyodide.pyimport("micropip").install(`emfs:/tmp/${wheel}`);
pyodide.setStdout({ batched: (s) => console.log(s) });
await pyodide.runPythonAsync(readFileSync(pyFile, "utf8"));

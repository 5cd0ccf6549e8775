// Run Python code against the built site's Pyodide and engine wheel, in Node.
// Usage: node tools/pyodide_run.mjs <dist dir> <python file> [args...]; prints what the code
// prints, with the extra args as sys.argv[1:].
// Any http(s) fetch is refused: Pyodide in Node falls back to a CDN for missing packages.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, pyFile, ...pyArgs] = process.argv.slice(2);
const realFetch = globalThis.fetch;
globalThis.fetch = (url, ...rest) => {
  if (/^https?:/i.test(String(url))) throw new Error(`refused network fetch: ${url}`);
  return realFetch(url, ...rest);
};
const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide", "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.join(dist, "pyodide") + path.sep });
await pyodide.loadPackage(["numpy"], { messageCallback: () => {} });
// The engine wheel is unpacked into site-packages, as the page's worker does (no micropip).
const manifest = JSON.parse(readFileSync(path.join(dist, "manifest.json"), "utf8"));
const sitePackages = pyodide.runPython("import site\nsite.getsitepackages()[0]");
pyodide.unpackArchive(new Uint8Array(readFileSync(path.join(dist, manifest.engine_wheel))), "wheel", {
  extractDir: sitePackages,
});
pyodide.setStdout({ batched: (s) => console.log(s) });
// Run the file as __main__, with sys.exit(n) turned into the process's exit status.
pyodide.FS.writeFile("/tmp/main.py", readFileSync(pyFile, "utf8"));
pyodide.globals.set("run_argv", pyodide.toPy([pyFile, ...pyArgs]));
const status = await pyodide.runPythonAsync(`
import runpy, sys
sys.argv = list(run_argv)
try:
    runpy.run_path("/tmp/main.py", run_name="__main__")
    status = 0
except SystemExit as e:
    status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
status
`);
process.exitCode = status;

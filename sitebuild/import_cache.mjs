// Boot the Pyodide that ships, with numpy and the engine wheel, in Node, and print the import
// cache import_cache_pyodide.py writes (JSON). Used by import_cache.py at build time.
// Usage: node import_cache.mjs <dist dir> <engine wheel path> <import_cache_pyodide.py>
// Any fetch is refused: everything is local.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, wheel, script] = process.argv.slice(2);
globalThis.fetch = (url) => {
  throw new Error(`refused fetch: ${url}`);
};
const pyodideDir = path.join(dist, "pyodide");
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep });
await pyodide.loadPackage(["numpy"], { messageCallback: () => {} });
const sitePackages = pyodide.runPython("import site\nsite.getsitepackages()[0]");
pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: sitePackages });
process.stdout.write(pyodide.runPython(readFileSync(script, "utf8")));

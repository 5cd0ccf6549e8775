// Boot the Pyodide that ships, in Node, and write its heap as loadPyodide's `_loadSnapshot`
// takes it (Pyodide 0.27: `_makeSnapshot` / `makeMemorySnapshot`). Used by heap_snapshot.py
// at build time. Nothing beyond Pyodide's own boot is imported: a package with compiled
// libraries (numpy) cannot be in a heap snapshot, their wasm code being outside the heap.
// Usage: node heap_snapshot.mjs <dist dir> <output file>. Any fetch is refused.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, out] = process.argv.slice(2);
globalThis.fetch = (url) => {
  throw new Error(`refused fetch: ${url}`);
};
const pyodideDir = path.join(dist, "pyodide");
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep, _makeSnapshot: true });
writeFileSync(out, pyodide.makeMemorySnapshot());

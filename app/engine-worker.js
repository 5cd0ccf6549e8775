// The engine worker: boots Pyodide from a heap made at build time, loads numpy, unpacks the
// engine wheel, answers calls into Python. A classic worker started from a blob: URL inside the
// engine's sandboxed frame (engine-frame.js), so it has an opaque origin and, by the frame's
// CSP, no network at all: every file Pyodide asks for comes over a port from the page's fetch
// worker (app/engine-fetch.js), which fetched it from the site and checked its sha256
// against manifest.json. `fetch` and `importScripts` are mapped onto those files.
//
// Messages in (through the frame):
//   {cmd: 'init', interruptBuffer: SharedArrayBuffer | null, files: MessagePort}   first, once
//   {cmd: 'call', id, fn, kwargs}                                after 'ready'
// On the files port: {cmd: 'file', name, bytes: ArrayBuffer}, each engine file as it arrives
// Messages out (relayed to the page, which checks each one):
//   {type: 'progress', stage}   {type: 'ready', timings, versions}   {type: 'boot-error', error}
//   {type: 'csp', violation}    {id, text}: the JSON answer of pe_engine.explain.entry.call
//   {id, fatal: true, error}: Pyodide itself failed (a wasm stack overflow, an abort)
"use strict";

// Storage the engine never uses, taken out of this worker's reach before anything else runs.
// The frame's opaque origin has none, but WebKit gives a blob: worker of such a frame a Cache
// Storage of its own that every such worker shares, across frames and engine restarts: code
// that escaped Python could leave data there for the next link's code to read. A nested
// worker would start with all of it again, so `Worker` goes too. (The network is the CSP's.)
for (const name of ["caches", "indexedDB", "Worker", "SharedWorker", "BroadcastChannel"]) {
  for (let o = self; o; o = Object.getPrototypeOf(o)) {
    if (Object.getOwnPropertyDescriptor(o, name)) delete o[name];
  }
}

const T0 = performance.now();
const timings = {};
const mark = (name) => {
  timings[name] = Math.round(performance.now() - T0);
};
const INDEX_URL = "https://pyodide.invalid/"; // never fetched: every request is mapped below
const STDLIB_CACHE = "/lib/python3.12/pe-import-cache"; // sitebuild/import_cache_pyodide.py's STDLIB_CACHE
const TYPES = { wasm: "application/wasm", json: "application/json", zip: "application/zip" };

const files = new Map(); // name -> Promise<ArrayBuffer>
const arrived = new Map(); // name -> resolve
const filesAt = {}; // name -> ms since the worker started, when it arrived
let pyodide = null;
let entry = null;
let booted = null;

function fileNamed(name) {
  if (!files.has(name)) files.set(name, new Promise((resolve) => arrived.set(name, resolve)));
  return files.get(name);
}
const baseName = (url) => String(url).split("?")[0].split("#")[0].split("/").pop();

self.addEventListener("securitypolicyviolation", (e) => {
  self.postMessage({ type: "csp", violation: { directive: e.effectiveDirective, blockedURI: e.blockedURI } });
});

function fileArrived(event) {
  const msg = event.data || {};
  if (msg.cmd === "file" && typeof msg.name === "string" && msg.bytes instanceof ArrayBuffer) {
    fileNamed(msg.name);
    arrived.get(msg.name)?.(msg.bytes);
    filesAt[msg.name] = Math.round(performance.now() - T0);
  }
}

self.onmessage = async (event) => {
  const msg = event.data || {};
  if (msg.cmd === "init" && !booted && msg.files instanceof MessagePort) {
    msg.files.onmessage = fileArrived;
    booted = boot(msg.interruptBuffer ? new Int32Array(msg.interruptBuffer) : null);
    booted.catch(() => {}); // reported via 'boot-error'; calls see the rejection themselves
  } else if (msg.cmd === "call") {
    try {
      await booted;
    } catch (err) {
      self.postMessage({
        id: msg.id,
        fatal: false,
        error: { type: "EngineNotReady", message: String(err?.message ?? err) },
      });
      return;
    }
    self.postMessage(runCall(msg));
  }
};

function runCall({ id, fn, kwargs }) {
  if (typeof fn !== "string") {
    return { id, error: { type: "BadRequest", message: "fn must be a string" } };
  }
  try {
    return { id, text: entry(fn, JSON.stringify(kwargs ?? {})) };
  } catch (err) {
    // Only reached when Python could not even run the call (a fatal Pyodide error).
    const type = err?.type || err?.name || "Error";
    return { id, fatal: /fatal/i.test(String(err?.message)), error: { type, message: String(err?.message ?? err) } };
  }
}

// Pyodide's downloads, answered from the files the page sent.
async function mappedFetch(url) {
  const name = baseName(url);
  const ext = name.split(".").pop();
  const bytes = await fileNamed(name);
  return new Response(bytes.slice(0), { headers: { "Content-Type": TYPES[ext] ?? "application/octet-stream" } });
}

async function scriptURL(name) {
  return URL.createObjectURL(new Blob([await fileNamed(name)], { type: "text/javascript" }));
}

// The heap of a booted Pyodide (sitebuild/heap_snapshot.py) comes as gzip of the heap XOR the
// wasm's data segment, placed where instantiation puts it: undone with the wasm's own bytes.
async function bootedHeap({ path, heap_at: at, wasm_segment: [start, length] }) {
  const [packed, wasm] = await Promise.all([fileNamed(baseName(path)), fileNamed("pyodide.asm.wasm")]);
  const unzipped = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  const heap = new Uint8Array(await new Response(unzipped).arrayBuffer());
  if (at + length > heap.length || start + length > wasm.byteLength) {
    throw new Error("the heap snapshot does not fit pyodide.asm.wasm");
  }
  const segment = new Uint8Array(wasm, start, length);
  for (let i = 0; i < length; i++) heap[at + i] ^= segment[i];
  return heap;
}

// A zip archive's files, [name, bytes] each, inflated by the browser (DecompressionStream):
// Pyodide's own unpacking runs Python's zipfile and zlib, which a WebAssembly engine that
// starts cold code in an interpreter (WebKit's) runs several seconds slower.
function unzipped(bytes) {
  const view = new DataView(bytes);
  let end = bytes.byteLength - 22; // the end-of-directory record, after any archive comment
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("an engine file is not a zip archive");
  const names = new TextDecoder();
  const files = [];
  for (let i = 0, at = view.getUint32(end + 16, true); i < view.getUint16(end + 10, true); i++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error("a zip archive's directory is damaged");
    const method = view.getUint16(at + 10, true);
    const packed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const name = names.decode(new Uint8Array(bytes, at + 46, nameLength));
    const local = view.getUint32(at + 42, true);
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (name.endsWith("/")) continue;
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    files.push(
      inflated(new Uint8Array(bytes, start, packed), method).then((data) => {
        if (data.byteLength !== size) throw new Error(`${name}: unpacked to the wrong size`);
        return [name, data];
      }),
    );
  }
  return Promise.all(files);
}

/** Files written into Pyodide's file system under `dir`: the paths written. */
function writeFiles(FS, files, dir) {
  return files.map(([name, data]) => {
    const path = `${dir}/${name}`;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, data);
    return path;
  });
}

// numpy, installed as loadPackage would (its files written, then its compiled libraries
// loaded), but unpacked as soon as its wheel arrives, while Pyodide boots.
async function installNumpy(pyodide, wheel, files, sitePackages) {
  const paths = writeFiles(pyodide.FS, await files, sitePackages);
  await pyodide._api.loadDynlibsFromPackage(
    { file_name: wheel },
    paths.filter((p) => p.endsWith(".so")),
  );
}

// The engine's files written, with the bytecode the build compiled for the modules it imports
// (sitebuild/import_cache.py): numpy's beside their sources, the standard library's (sourceless)
// in a folder put first on sys.path, and imported here, where they need nothing of numpy.
async function installEngine(pyodide, manifest, sitePackages) {
  writeFiles(pyodide.FS, await unzipped(await fileNamed(baseName(manifest.engine_wheel))), sitePackages);
  if (!manifest.import_cache) return;
  const paths = writeFiles(pyodide.FS, await unzipped(await fileNamed(baseName(manifest.import_cache))), "");
  pyodide.runPython(`import sys\nsys.path.insert(0, '${STDLIB_CACHE}')`);
  const stdlib = paths
    .filter((p) => p.startsWith(`${STDLIB_CACHE}/`) && p.endsWith(".pyc"))
    .map((p) =>
      p
        .slice(STDLIB_CACHE.length + 1, -".pyc".length)
        .replace(/\/__init__$/, "")
        .replaceAll("/", "."),
    );
  if (stdlib.length) pyodide.runPython(stdlib.map((m) => `import ${m}`).join("\n"));
}

async function inflated(data, method) {
  if (method === 0) return data; // stored
  if (method !== 8) throw new Error(`zip compression method ${method} is not deflate`);
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Pyodide takes a signal from the interrupt buffer in two steps, a read and then a store of 0
// (_Py_CheckEmscriptenSignals_Helper; python/cpython#157548), and Python runs that check every
// 50 turns of a loop. An interrupt the frame stores between the two is wiped out unread, and the
// runaway then spins until the page replaces the worker (about one interrupt in a hundred
// here). Pyodide is handed this view of the buffer instead: its store of 0 clears the slot
// only if it still holds what Pyodide just read. Indexed accessors are slow in V8 (some 0.2 µs
// a check): about 1 % of a grad answer, 6 % of a bare Python loop. A Pyodide that takes the
// signal with Atomics.exchange (the fix proposed upstream) would throw on this view and never
// see an interrupt: the buffer itself is then the one to hand over.
function interruptSlot(buffer) {
  let seen = 0;
  return {
    get 0() {
      seen = Atomics.load(buffer, 0);
      return seen;
    },
    set 0(value) {
      // nothing was pending: a plain load per check, no locked write
      if (value !== seen) Atomics.compareExchange(buffer, 0, seen, value);
    },
  };
}

async function boot(interruptBuffer) {
  const progress = (stage) => self.postMessage({ type: "progress", stage });
  try {
    self.fetch = mappedFetch;
    // pyodide.mjs loads pyodide.asm.js with importScripts in a classic worker (synchronous:
    // its blob URL must be ready before loadPyodide runs)
    const asmURL = scriptURL("pyodide.asm.js");
    progress("import");
    const { loadPyodide } = await import(await scriptURL("pyodide.mjs"));
    mark("import");
    const asm = await asmURL;
    const realImportScripts = self.importScripts.bind(self);
    self.importScripts = (...urls) =>
      realImportScripts(...urls.map((u) => (baseName(u) === "pyodide.asm.js" ? asm : u)));

    progress("loadPyodide");
    const manifest = JSON.parse(new TextDecoder().decode(await fileNamed("manifest.json")));
    const [numpyWheel] = manifest.pyodide_packages;
    const numpy = fileNamed(numpyWheel).then(unzipped);
    numpy.catch(() => {}); // awaited below
    // Started from the heap of a Pyodide booted at build time, not by initialising Python
    pyodide = await loadPyodide({ indexURL: INDEX_URL, _loadSnapshot: bootedHeap(manifest.heap_snapshot) });
    // That heap's random module was seeded at build time: reseeded here from this browser's
    // entropy, so that readers do not share one sequence
    pyodide.runPython("import random\nrandom.seed()");
    mark("loadPyodide");

    // Only numpy, installed as loadPackage would (its files, then its compiled libraries
    // loaded) but unpacked here; the engine is unpacked from its wheel below, so neither
    // micropip nor packaging is loaded (or shipped). Loading the libraries is compiling their
    // WebAssembly, which the browser does off this thread: the engine's files are written and
    // the standard library's modules it imports are imported meanwhile. JavaScriptCore
    // (WebKit) takes 1.3 to 1.8 s over them, where this thread used to wait; Chromium and
    // Firefox 0.2 to 0.4 s. "engine" may therefore be marked before "packages".
    progress("packages");
    const sitePackages = pyodide.runPython("import site\nsite.getsitepackages()[0]");
    const numpyInstalled = installNumpy(pyodide, numpyWheel, numpy, sitePackages);
    numpyInstalled.catch(() => {}); // awaited below
    await installEngine(pyodide, manifest, sitePackages);
    mark("engine");
    await numpyInstalled;
    // The import system keeps what site-packages held when it last looked: its finder is
    // dropped. (importlib.invalidate_caches() would do it too, but it also rereads the
    // standard library's zip directory for each of its entries: 1 to 2.5 s.)
    pyodide.runPython(`import sys\nsys.path_importer_cache.pop(${JSON.stringify(sitePackages)}, None)`);
    mark("packages");

    progress("verify");
    entry = pyodide.pyimport("pe_engine.explain.entry").call;
    const versions = JSON.parse(
      pyodide.runPython(
        "import json, sys, numpy, pe_engine\n" +
          "json.dumps({'python': sys.version.split()[0], 'numpy': numpy.__version__, " +
          "'pe_engine': getattr(pe_engine, '__version__', None)})",
      ),
    );
    versions.pyodide = pyodide.version;
    versions.build = manifest.build_hash;
    // What booting made (numpy, the engine, the standard library: some 30,000 objects) lives
    // as long as the worker: out of the cyclic collector's sight, whose full passes then no
    // longer walk it. A grad answer's p95 went from 16 to 13 ms (p50 12).
    pyodide.runPython("import gc\ngc.freeze()");
    // Only now: no user code runs during the boot, whose Python (numpy's import above all)
    // would otherwise read the slot at every signal check, through a call into JavaScript.
    if (interruptBuffer) pyodide.setInterruptBuffer(interruptSlot(interruptBuffer));
    mark("verify");

    // Booted: nothing else is ever fetched (the frame's CSP forbids it in any case).
    self.fetch = () => Promise.reject(new TypeError("the engine has no network"));
    files.clear();
    self.postMessage({
      type: "ready",
      timings: { ...timings, files: filesAt, workerTimeOrigin: performance.timeOrigin, workerStart: T0 },
      versions,
      interrupt: Boolean(interruptBuffer),
    });
  } catch (err) {
    self.postMessage({
      type: "boot-error",
      error: { type: err?.type || err?.name || "Error", message: String(err?.message ?? err) },
    });
    throw err;
  }
}

// Module worker: boots Pyodide, loads numpy, unpacks the engine wheel, answers calls into Python.
//
// Messages in:
//   {cmd: 'init', interruptBuffer?: SharedArrayBuffer}   (from engine-client, right after start)
//   {id, cmd: 'call', fn: 'pkg.module.function', kwargs: {...}}
// Messages out:
//   {type: 'progress', stage}                      during boot
//   {type: 'ready', timings, versions}             boot done
//   {type: 'boot-error', error: {type, message}}   boot failed (the worker is useless)
//   {type: 'csp', violation}                       a Content-Security-Policy violation here
//   {id, ok: true, result}                         result = JSON.parse(json.dumps(fn(**kwargs)))
//   {id, ok: false, error: {type, message, lineno?, traceback?}}
//
// All URLs are relative to this file (dist/app/worker.js), so the page works under any path.

const T0 = performance.now();
const timings = {};
const mark = (name) => { timings[name] = Math.round(performance.now() - T0); };

let interruptBuffer = null;
let pyodide = null;
let pyCall = null;

self.addEventListener("securitypolicyviolation", (e) => {
  self.postMessage({ type: "csp", violation: { directive: e.effectiveDirective, blockedURI: e.blockedURI } });
});

const booted = boot();
booted.catch(() => {}); // reported via 'boot-error'; calls see the rejection themselves

self.onmessage = async (event) => {
  const msg = event.data || {};
  if (msg.cmd === "init") {
    if (msg.interruptBuffer) {
      interruptBuffer = new Int32Array(msg.interruptBuffer);
      if (pyodide) pyodide.setInterruptBuffer(interruptBuffer);
    }
    return;
  }
  if (msg.cmd === "call") {
    try {
      await booted;
    } catch (err) {
      self.postMessage({ id: msg.id, ok: false, error: { type: "EngineNotReady", message: String(err && err.message || err) } });
      return;
    }
    self.postMessage(runCall(msg));
    return;
  }
  if (msg.id !== undefined) {
    self.postMessage({ id: msg.id, ok: false, error: { type: "BadRequest", message: `unknown cmd ${JSON.stringify(msg.cmd)}` } });
  }
};

// Python side of a call: resolve a dotted name, call it with keyword arguments, return JSON text.
// Every exception, KeyboardInterrupt (the interrupt buffer) and MemoryError included, comes back
// as an {"ok": false, "error": ...} record instead of escaping into JavaScript.
const PY_HELPER = String.raw`
import importlib, json, sys, traceback

def _pe_resolve(name):
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(f"cannot resolve {name!r}: give a dotted name such as pe_engine.explain.run")

def _pe_lineno(exc):
    if isinstance(exc, SyntaxError) and exc.lineno:
        return exc.lineno
    lineno = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith("<") and frame.filename != "<exec>":
            lineno = frame.lineno      # innermost frame of code compiled from a string
    return lineno

def _pe_call(name, kwargs_json):
    try:
        fn = _pe_resolve(name)
        result = fn(**json.loads(kwargs_json))
        return json.dumps({"ok": True, "result": result}, allow_nan=False)
    except BaseException as exc:
        err = {"type": type(exc).__name__, "message": str(exc)}
        lineno = _pe_lineno(exc)
        if lineno is not None:
            err["lineno"] = lineno
        if not isinstance(exc, MemoryError):
            err["traceback"] = "".join(traceback.format_exception(exc))[-4000:]
        exc.__traceback__ = None
        return json.dumps({"ok": False, "error": err})
`;

function runCall(msg) {
  const { id, fn, kwargs } = msg;
  if (typeof fn !== "string" || !/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$/.test(fn)) {
    return { id, ok: false, error: { type: "BadRequest", message: `fn must be a dotted Python name, got ${JSON.stringify(fn)}` } };
  }
  let text;
  try {
    if (interruptBuffer) interruptBuffer[0] = 0;
    text = pyCall(fn, JSON.stringify(kwargs ?? {}));
  } catch (err) {
    // Only reached when Python could not even start the call (e.g. a fatal Pyodide error).
    const type = (err && (err.type || err.name)) || "Error";
    const fatal = /fatal/i.test(String(err && err.message));
    return { id, ok: false, fatal, error: { type, message: String(err && err.message || err) } };
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { id, ok: false, error: { type: "ResultNotJSON", message: String(err) } };
  }
  return { id, ...parsed };
}

async function boot() {
  const progress = (stage) => self.postMessage({ type: "progress", stage });
  try {
    // Everything the boot needs from the network starts now, in parallel with Pyodide's own
    // downloads: the manifest, then the engine wheel (versioned by the build hash).
    const manifestPromise = fetch(new URL("../manifest.json", import.meta.url), { cache: "no-cache" })
      .then((r) => { if (!r.ok) throw new Error(`manifest.json: HTTP ${r.status}`); return r.json(); });
    const wheelPromise = manifestPromise.then(fetchEngineWheel);
    wheelPromise.catch(() => {}); // awaited below; no unhandled-rejection noise meanwhile

    progress("import");
    const { loadPyodide } = await import("../pyodide/pyodide.mjs");
    mark("import");

    progress("loadPyodide");
    pyodide = await loadPyodide({ indexURL: new URL("../pyodide/", import.meta.url).href });
    if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
    mark("loadPyodide");

    // Only numpy: the engine is unpacked from its wheel below, so neither micropip nor
    // packaging is loaded (or shipped). loadPackage checks numpy's sha256 (SRI) from the lock.
    progress("packages");
    const pkgErrors = [];
    await pyodide.loadPackage(["numpy"], {
      messageCallback: () => {},
      errorCallback: (m) => pkgErrors.push(m),
    });
    // loadPackage resolves even when a wheel 404s: check what actually loaded.
    if (!("numpy" in pyodide.loadedPackages)) {
      throw new Error(`package numpy did not load: ${pkgErrors.join("; ") || "no detail"}`);
    }
    mark("packages");

    progress("engine");
    const manifest = await manifestPromise;
    const wheel = await wheelPromise;
    const sitePackages = pyodide.runPython("import site\nsite.getsitepackages()[0]");
    pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
    mark("engine");

    progress("verify");
    pyodide.runPython(PY_HELPER);
    pyCall = pyodide.globals.get("_pe_call");
    const versions = JSON.parse(pyodide.runPython(
      "import json, sys, numpy, pe_engine, pe_engine.explain\n" +
      "json.dumps({'python': sys.version.split()[0], 'numpy': numpy.__version__, " +
      "'pe_engine': getattr(pe_engine, '__version__', None)})"));
    versions.pyodide = pyodide.version;
    versions.build = manifest.build_hash;
    mark("verify");

    self.postMessage({
      type: "ready",
      timings: { ...timings, workerTimeOrigin: performance.timeOrigin, workerStart: T0 },
      versions,
      interrupt: Boolean(interruptBuffer),
    });
  } catch (err) {
    const error = { type: (err && (err.type || err.name)) || "Error", message: String(err && err.message || err) };
    self.postMessage({ type: "boot-error", error });
    throw err;
  }
}

// The engine wheel's bytes, checked against the sha256 build.py wrote into the manifest.
async function fetchEngineWheel(manifest) {
  const url = new URL(`../${manifest.engine_wheel}?v=${manifest.build_hash}`, import.meta.url);
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${manifest.engine_wheel}: HTTP ${r.status}`);
  const bytes = new Uint8Array(await r.arrayBuffer());
  if (manifest.engine_wheel_sha256) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    if (hex !== manifest.engine_wheel_sha256) {
      throw new Error(`sha256 mismatch for ${manifest.engine_wheel}: got ${hex}, ` +
        `manifest.json says ${manifest.engine_wheel_sha256}`);
    }
  }
  return bytes;
}

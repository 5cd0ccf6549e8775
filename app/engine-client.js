// Promise API over the Pyodide worker (worker.js).
//
//   const engine = createEngine({ timeoutMs: 10000 });
//   await engine.ready;                                  // info: {timings, versions, ...}
//   const record = await engine.call("pe_engine.explain.run", { source, mask });
//   engine.onState((state, info) => ...);                // 'loading' | 'ready' | 'busy' | 'error'
//
// Calls run one at a time, in order; calls made while loading wait for the boot. A call that
// runs past its timeout is first interrupted (KeyboardInterrupt through Pyodide's interrupt
// buffer, when the page is crossOriginIsolated); if Python has not answered interruptGraceMs
// later, the worker is terminated and booted again. Either way the call rejects with an
// EngineError of type 'timeout'. Queued calls survive a restart.

export class EngineError extends Error {
  constructor(type, message, extra = {}) {
    super(message);
    this.name = "EngineError";
    this.type = type;
    Object.assign(this, extra);
  }
}

const STATES = ["loading", "ready", "busy", "error"];

// A call that failed in JavaScript rather than in Python (Python's exceptions come back with a
// traceback): these leave Pyodide unusable, so the worker is replaced.
const FATAL_JS = /fatal|Maximum call stack size exceeded|can no longer be used|memory access out of bounds|unreachable|Aborted/i;
function fatalAnswer(msg) {
  if (msg.ok) return false;
  if (msg.fatal) return true;
  const e = msg.error || {};
  return !e.traceback && e.type !== "MemoryError" && (e.type === "RangeError" || FATAL_JS.test(String(e.message)));
}
const DEFAULT_WORKER_URL = new URL("./worker.js", import.meta.url);

// A worker and its interrupt buffer; the init message goes out at once.
function spawn(url) {
  const sab = globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function"
    ? new SharedArrayBuffer(4) : null;
  const worker = new Worker(url, { type: "module", name: "pe-engine" });
  worker.postMessage({ cmd: "init", interruptBuffer: sab });
  return { worker, sab, started: performance.now(), events: [] };
}

// The boot is the long pole, so the default worker starts as soon as this module is evaluated
// (main.js imports it first), before the rest of the page's modules run; the first
// createEngine() adopts it, with whatever it said meanwhile. Unadopted, it is dropped after 30 s.
let early = null;
if (typeof document !== "undefined" && typeof Worker === "function") {
  try {
    early = spawn(DEFAULT_WORKER_URL);
    early.worker.onmessage = (e) => early?.events.push(["message", e]);
    early.worker.onerror = (e) => { e.preventDefault?.(); early?.events.push(["error", e]); };
    setTimeout(() => { if (early) { early.worker.terminate(); early = null; } }, 30_000);
  } catch {
    early = null;
  }
}

export function createEngine({
  timeoutMs = 10_000,
  bootTimeoutMs = 120_000,
  interruptGraceMs = 500,
  workerURL = DEFAULT_WORKER_URL,
} = {}) {
  let worker = null;
  let generation = 0;
  let state = "loading";
  let readyPromise;
  let readyResolve;
  let readyReject;
  let bootTimer = null;
  let bootStart = 0;
  let interrupt = null; // Int32Array over a SharedArrayBuffer, when crossOriginIsolated
  let seq = 0;
  let current = null; // the call in flight
  const queue = [];
  const listeners = new Set();
  const info = {
    stage: null, timings: null, versions: null, error: null,
    restarts: 0, interrupts: 0, interruptible: false, cspViolations: [],
  };

  function setState(next) {
    if (!STATES.includes(next)) throw new Error(`bad state ${next}`);
    state = next;
    for (const cb of listeners) {
      try { cb(state, info); } catch (err) { console.error("engine onState listener:", err); }
    }
  }

  function start() {
    const gen = ++generation;
    info.stage = null;
    info.error = null;
    readyPromise = new Promise((res, rej) => { readyResolve = res; readyReject = rej; });
    readyPromise.catch(() => {}); // callers that care await it; no unhandled-rejection noise
    const adopt = early && String(workerURL) === String(DEFAULT_WORKER_URL) ? early : null;
    early = null;
    const spawned = adopt ?? spawn(workerURL);
    bootStart = spawned.started;
    interrupt = spawned.sab ? new Int32Array(spawned.sab) : null;
    info.interruptible = Boolean(spawned.sab);
    worker = spawned.worker;
    const onWorkerMessage = (e) => { if (gen === generation) onMessage(e.data); };
    const onWorkerError = (e) => {
      if (gen !== generation) return;
      e.preventDefault?.();
      const error = { type: "WorkerError", message: e.message || "the engine worker failed to load" };
      if (state === "loading" || state === "error") bootFailed(error);
      else crashed(error);
    };
    worker.onmessage = onWorkerMessage;
    worker.onerror = onWorkerError;
    if (adopt && adopt.events.length) {
      // what the early worker said before this engine existed, in order, once set up below
      queueMicrotask(() => {
        for (const [kind, e] of adopt.events) (kind === "message" ? onWorkerMessage : onWorkerError)(e);
      });
    }
    clearTimeout(bootTimer);
    bootTimer = setTimeout(() => {
      if (gen === generation && state === "loading") {
        bootFailed({ type: "BootTimeout", message: `the Python engine did not start within ${bootTimeoutMs} ms` });
      }
    }, bootTimeoutMs);
    setState("loading");
  }

  function stop() {
    generation++; // ignore anything the old worker still says
    clearTimeout(bootTimer);
    if (worker) worker.terminate();
    worker = null;
  }

  function onMessage(msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "progress") { info.stage = msg.stage; setState(state); return; }
    if (msg.type === "csp") { info.cspViolations.push(msg.violation); console.warn("CSP violation in worker", msg.violation); return; }
    if (msg.type === "boot-error") { bootFailed(msg.error); return; }
    if (msg.type === "ready") { onReady(msg); return; }
    if (msg.id !== undefined) onResponse(msg);
  }

  function onReady(msg) {
    clearTimeout(bootTimer);
    const t = msg.timings;
    const toPage = (ms) => Math.round(t.workerTimeOrigin + t.workerStart + ms - performance.timeOrigin);
    const stages = ["import", "loadPyodide", "packages", "engine", "verify"].filter((k) => k in t);
    info.timings = {
      worker: Object.fromEntries(stages.map((k) => [k, t[k]])), // ms since the worker started
      sinceNavigation: Object.fromEntries(stages.map((k) => [k, toPage(t[k])])),
      bootMs: Math.round(performance.now() - bootStart), // worker creation -> ready, page clock
    };
    info.versions = msg.versions;
    info.stage = "ready";
    setState("ready");
    readyResolve(info);
    pump();
  }

  function bootFailed(error) {
    stop();
    info.error = error;
    const err = new EngineError(error.type || "BootError", `engine failed to start: ${error.message}`);
    readyReject(err);
    const pending = current ? [current, ...queue.splice(0)] : queue.splice(0);
    current = null;
    for (const c of pending) { clearTimeout(c.timer); clearTimeout(c.graceTimer); c.reject(err); }
    setState("error");
  }

  function crashed(error) {
    const c = current;
    current = null;
    if (c) {
      clearTimeout(c.timer); clearTimeout(c.graceTimer);
      c.reject(new EngineError("crashed", `${c.fn}: the engine crashed (${error.message}); it was restarted`,
        { reason: error.message, restarted: true }));
    }
    info.restarts++;
    stop();
    start();
  }

  function pump() {
    if (current || state !== "ready" || queue.length === 0) return;
    const c = queue.shift();
    current = c;
    c.id = ++seq;
    c.started = performance.now();
    if (interrupt) Atomics.store(interrupt, 0, 0);
    worker.postMessage({ id: c.id, cmd: "call", fn: c.fn, kwargs: c.kwargs });
    c.timer = setTimeout(() => onTimeout(c), c.timeoutMs);
    setState("busy");
  }

  function onTimeout(c) {
    if (current !== c) return;
    c.timedOut = true;
    if (interrupt && c.interrupt !== false) {
      info.interrupts++;
      Atomics.store(interrupt, 0, 2); // SIGINT: Python raises KeyboardInterrupt
      c.graceTimer = setTimeout(() => kill(c), interruptGraceMs);
    } else {
      kill(c);
    }
  }

  function kill(c) {
    if (current !== c) return;
    current = null;
    c.reject(new EngineError("timeout",
      `${c.fn} did not finish within ${c.timeoutMs} ms; the engine was restarted`,
      { restarted: true, timeoutMs: c.timeoutMs }));
    info.restarts++;
    stop();
    start(); // queued calls run on the new worker once it is ready
  }

  function onResponse(msg) {
    const c = current;
    if (!c || msg.id !== c.id) return; // a stale answer
    if (fatalAnswer(msg)) {
      // Pyodide cannot be trusted after this (a wasm stack overflow, an abort): a new worker
      crashed({ message: msg.error?.message || "fatal Pyodide error" });
      return;
    }
    current = null;
    clearTimeout(c.timer);
    clearTimeout(c.graceTimer);
    if (c.timedOut) {
      // the KeyboardInterrupt's traceback says where the user's code was looping
      c.reject(new EngineError("timeout",
        `${c.fn} did not finish within ${c.timeoutMs} ms and was interrupted`,
        { interrupted: true, cause: msg.error, timeoutMs: c.timeoutMs, lineno: msg.error?.lineno ?? null }));
    } else if (msg.ok) {
      c.resolve(msg.result);
    } else {
      const e = msg.error || {};
      c.reject(new EngineError(e.type || "Error", e.message || "unknown error",
        { lineno: e.lineno, traceback: e.traceback }));
    }
    setState("ready");
    pump();
  }

  function call(fn, kwargs = {}, opts = {}) {
    return new Promise((resolve, reject) => {
      if (state === "error") {
        reject(new EngineError("EngineNotReady", `engine is in error state: ${info.error?.message}`));
        return;
      }
      queue.push({
        fn, kwargs, resolve, reject,
        timeoutMs: opts.timeoutMs ?? timeoutMs,
        interrupt: opts.interrupt, // false: skip the soft interrupt, restart right away
      });
      pump();
    });
  }

  function restart() {
    const c = current;
    current = null;
    if (c) {
      clearTimeout(c.timer); clearTimeout(c.graceTimer);
      c.reject(new EngineError("restarted", `${c.fn}: the engine was restarted`));
    }
    info.restarts++;
    stop();
    start();
    return readyPromise;
  }

  function close() {
    stop();
    const err = new EngineError("closed", "the engine was closed");
    for (const c of current ? [current, ...queue.splice(0)] : queue.splice(0)) {
      clearTimeout(c.timer); clearTimeout(c.graceTimer); c.reject(err);
    }
    current = null;
  }

  start();

  return {
    get ready() { return readyPromise; },
    get state() { return state; },
    get info() { return info; },
    call,
    onState(cb) { listeners.add(cb); return () => listeners.delete(cb); },
    restart,
    close,
  };
}

// The service worker (dist/sw.js, written by build.py from app/sw.js) caches this build for
// repeat and offline visits. Register it once the engine is ready, so its downloads never
// compete with the first boot. Resolves to the registration, or null where service workers are
// unavailable or blocked (the page works the same without one).
export async function registerServiceWorker(url = new URL("../sw.js", import.meta.url)) {
  if (!globalThis.navigator?.serviceWorker || !globalThis.isSecureContext) return null;
  try {
    return await navigator.serviceWorker.register(url, { scope: new URL("./", url).href });
  } catch {
    return null;
  }
}

// Promise API over the engine: Pyodide and pe_engine in a worker inside a sandboxed iframe.
//
//   const engine = createEngine();
//   await engine.ready;                                  // info: {timings, versions, ...}
//   const record = await engine.call("pe_engine.explain.run", { mode, source, args });
//   engine.onState((state, info) => ...);                // 'loading' | 'ready' | 'busy' | 'error'
//
// The engine runs in a worker inside a sandboxed iframe (engine-sandbox.js says how and why).
//
// Calls run one at a time, in order; calls made while loading wait for the boot. A quiet call
// (the page asking ahead of the reader) does not show the engine as working, every other call
// is queued before the quiet ones still waiting, and one that comes while a quiet call runs
// interrupts it (that call rejects with type 'cancelled', unless it had answered). A quiet
// call's `handle` option gets a `hurry()`: the call is the reader's from then on. A call that
// runs past its timeout is first interrupted (KeyboardInterrupt through the interrupt buffer
// the frame holds, where the page is crossOriginIsolated); if Python has not answered
// interruptGraceMs later, the frame is removed (its worker with it) and a new one is booted.
// Either way the call rejects with an EngineError of type 'timeout'. Queued calls survive a restart.
import { BOOT_TIMEOUT_MS, CALL_TIMEOUT_MS, INTERRUPT_GRACE_MS } from "./limits.js";
import { adoptEarlyEngine, readAnswer, spawnEngine, validMessage } from "./engine-sandbox.js";
/** @import { Spawned } from "./engine-sandbox.js" */
/** @import { Call, CallOptions, EngineClient, EngineErrorExtra, EngineInfo, EngineState } from "./engine-types.js" */

export class EngineError extends Error {
  constructor(/** @type {string} */ type, /** @type {string} */ message, /** @type {EngineErrorExtra} */ extra = {}) {
    super(message);
    this.name = "EngineError";
    this.type = type;
    Object.assign(this, extra);
  }
}

const STATES = ["loading", "ready", "busy", "error"];

/** @returns {EngineClient} */
export function createEngine({
  timeoutMs = CALL_TIMEOUT_MS,
  bootTimeoutMs = BOOT_TIMEOUT_MS,
  interruptGraceMs = INTERRUPT_GRACE_MS,
} = {}) {
  /** @type {Spawned | null} */ let engine = null;
  let generation = 0;
  /** @type {EngineState} */ let state = "loading";
  /** @type {Promise<EngineInfo>} */ let readyPromise;
  /** @type {(info: EngineInfo) => void} */ let readyResolve;
  /** @type {(err: EngineError) => void} */ let readyReject;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ let bootTimer;
  let bootStart = 0;
  let seq = 0;
  /** @type {Call | null} */ let current = null; // the call in flight
  /** @type {Call[]} */ const queue = [];
  /** @type {Set<(state: EngineState, info: EngineInfo) => void>} */ const listeners = new Set();
  /** @type {EngineInfo} */ const info = {
    stage: null,
    timings: null,
    versions: null,
    error: null,
    restarts: 0,
    interrupts: 0,
    interruptible: false,
    cspViolations: [],
  };

  function setState(/** @type {EngineState} */ next) {
    if (!STATES.includes(next)) throw new Error(`bad state ${next}`);
    state = next;
    for (const cb of listeners) {
      try {
        cb(state, info);
      } catch (err) {
        console.error("engine onState listener:", err);
      }
    }
  }

  function start() {
    const gen = ++generation;
    info.stage = null;
    info.error = null;
    info.interruptible = false;
    readyPromise = new Promise((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    readyPromise.catch(() => {}); // callers that care await it; no unhandled-rejection noise
    const handler = (/** @type {unknown} */ msg) => {
      if (gen === generation) onMessage(msg);
    };
    // the first engine was started when this module loaded; later ones start here
    const early = gen === 1 ? adoptEarlyEngine(handler) : null;
    bootStart = early ? early.started : performance.now();
    (early ? early.spawned : spawnEngine(handler)).then(
      (spawned) => {
        if (gen === generation) engine = spawned;
        else spawned.iframe.remove();
      },
      (err) => {
        if (gen === generation) bootFailed({ type: "BootError", message: String(err.message ?? err) });
      },
    );
    clearTimeout(bootTimer);
    bootTimer = setTimeout(() => {
      if (gen === generation && state === "loading") {
        bootFailed({ type: "BootTimeout", message: `the Python engine did not start within ${bootTimeoutMs} ms` });
      }
    }, bootTimeoutMs);
    setState("loading");
  }

  function stop() {
    generation++; // ignore anything the old engine still says
    clearTimeout(bootTimer);
    if (engine) {
      engine.port.postMessage({ cmd: "terminate" });
      engine.port.close();
      engine.iframe.remove(); // the frame's worker goes with its document
    }
    engine = null;
  }

  function onMessage(/** @type {unknown} */ raw) {
    const msg = validMessage(raw);
    if (!msg) return;
    if (msg.type === "frame") {
      info.interruptible = msg.interruptible === true;
      return;
    }
    if (msg.type === "progress") {
      info.stage = String(msg.stage).slice(0, 40);
      setState(state);
      return;
    }
    if (msg.type === "csp") {
      const v = msg.violation ?? {};
      info.cspViolations.push({
        directive: String(v.directive).slice(0, 40),
        blockedURI: String(v.blockedURI).slice(0, 500),
      });
      return;
    }
    if (msg.type === "boot-error" || (msg.type === "worker-error" && state === "loading")) {
      bootFailed({
        type: String(msg.error?.type ?? "WorkerError"),
        message: String(msg.error?.message ?? msg.message ?? "").slice(0, 2000),
      });
      return;
    }
    if (msg.type === "worker-error") {
      crashed({ message: String(msg.message).slice(0, 2000) });
      return;
    }
    if (msg.type === "ready" && state === "loading") {
      onReady(msg);
      return;
    }
    if (Number.isInteger(msg.id)) onResponse(msg);
  }

  function onReady(/** @type {any} a valid message, its fields untrusted */ msg) {
    clearTimeout(bootTimer);
    const t = msg.timings && typeof msg.timings === "object" ? msg.timings : {};
    const num = (/** @type {unknown} */ x) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
    /** @param {number} ms */
    const toPage = (ms) => Math.round(num(t.workerTimeOrigin) + num(t.workerStart) + ms - performance.timeOrigin);
    const stages = ["import", "loadPyodide", "packages", "engine", "verify"].filter((k) => Number.isFinite(t[k]));
    info.timings = {
      worker: Object.fromEntries(stages.map((k) => [k, t[k]])), // ms since the worker started
      sinceNavigation: Object.fromEntries(stages.map((k) => [k, toPage(t[k])])),
      bootMs: Math.round(performance.now() - bootStart), // engine start -> ready, page clock
      // when each file reached the worker (its clock): what a stage may have waited for
      files: Object.fromEntries(
        Object.entries(t.files && typeof t.files === "object" ? t.files : {})
          .slice(0, 40)
          .map(([k, v]) => [String(k).slice(0, 80), num(v)]),
      ),
    };
    const v = msg.versions && typeof msg.versions === "object" ? msg.versions : {};
    info.versions = Object.fromEntries(
      ["python", "numpy", "pe_engine", "pyodide", "build"].map((k) => [
        k,
        typeof v[k] === "string" ? v[k].slice(0, 40) : null,
      ]),
    );
    info.stage = "ready";
    setState("ready");
    readyResolve(info);
    pump();
  }

  function bootFailed(/** @type {{type: string, message: string}} */ error) {
    stop();
    info.error = error;
    const err = new EngineError(error.type || "BootError", `engine failed to start: ${error.message}`, {
      notStarted: true,
      reason: error.message,
    });
    readyReject(err);
    const pending = current ? [current, ...queue.splice(0)] : queue.splice(0);
    current = null;
    for (const c of pending) {
      clearTimeout(c.timer);
      clearTimeout(c.graceTimer);
      c.reject(err);
    }
    setState("error");
  }

  function crashed(/** @type {{message: string}} */ error) {
    const c = current;
    current = null;
    if (c) {
      clearTimeout(c.timer);
      clearTimeout(c.graceTimer);
      c.reject(
        new EngineError("crashed", `${c.fn}: the engine crashed (${error.message}); it was restarted`, {
          reason: error.message,
          restarted: true,
        }),
      );
    }
    info.restarts++;
    stop();
    start();
  }

  function pump() {
    if (current || state !== "ready" || queue.length === 0 || !engine) return;
    const c = /** @type {Call} */ (queue.shift()); // the queue is not empty
    current = c;
    c.id = ++seq;
    c.started = performance.now();
    engine.port.postMessage({ cmd: "call", id: c.id, fn: c.fn, kwargs: c.kwargs });
    c.timer = setTimeout(() => onTimeout(c), c.timeoutMs);
    if (!c.quiet) setState("busy");
  }

  function onTimeout(/** @type {Call} */ c) {
    if (current !== c) return;
    c.timedOut = true;
    if (info.interruptible && c.interrupt !== false && engine) {
      info.interrupts++;
      c.interruptSent = true;
      engine.port.postMessage({ cmd: "interrupt" });
      c.graceTimer = setTimeout(() => kill(c), interruptGraceMs);
    } else {
      kill(c);
    }
  }

  /** A quiet call goes last; any other before the quiet ones waiting, and the quiet call in
   *  flight makes way for it. */
  function enqueue(/** @type {Call} */ c) {
    const firstQuiet = c.quiet ? -1 : queue.findIndex((q) => q.quiet);
    queue.splice(firstQuiet < 0 ? queue.length : firstQuiet, 0, c);
    if (!c.quiet) cancelQuiet();
  }

  /** A quiet call the reader now waits for: queued again as theirs, or left to run. */
  function hurry(/** @type {Call} */ c) {
    if (!c.quiet) return;
    c.quiet = false;
    const at = queue.indexOf(c);
    if (at < 0) return; // in flight (or done): it runs on, and no other call stops it now
    queue.splice(at, 1);
    enqueue(c);
    pump();
  }

  /** The quiet call in flight makes way: interrupted, and replaced if it does not answer. */
  function cancelQuiet() {
    const c = current;
    if (!c?.quiet || c.cancelled || !info.interruptible || !engine) return;
    c.cancelled = true;
    engine.port.postMessage({ cmd: "interrupt" });
    c.graceTimer = setTimeout(() => kill(c), interruptGraceMs);
  }

  function kill(/** @type {Call} */ c) {
    if (current !== c) return;
    current = null;
    c.reject(
      new EngineError("timeout", `${c.fn} did not finish within ${c.timeoutMs} ms; the engine was restarted`, {
        restarted: true,
        timeoutMs: c.timeoutMs,
        // false: this engine cannot be interrupted (no SharedArrayBuffer in its frame)
        interruptSent: c.interruptSent === true,
      }),
    );
    info.restarts++;
    stop();
    start(); // queued calls run on the new engine once it is ready
  }

  function onResponse(/** @type {any} a valid message */ msg) {
    const c = current;
    if (!c || msg.id !== c.id) return; // a stale answer
    const answer = readAnswer(msg);
    const failed = answer.ok === false ? answer : null;
    if (failed?.fatal) {
      // Pyodide cannot be trusted after this (a wasm stack overflow, an abort): a new engine
      crashed({ message: failed.error.message || "fatal Pyodide error" });
      return;
    }
    current = null;
    clearTimeout(c.timer);
    clearTimeout(c.graceTimer);
    if (c.timedOut) {
      // the KeyboardInterrupt's traceback says where the user's code was looping
      c.reject(
        new EngineError("timeout", `${c.fn} did not finish within ${c.timeoutMs} ms and was interrupted`, {
          interrupted: true,
          cause: failed?.error,
          timeoutMs: c.timeoutMs,
          lineno: failed?.error.lineno ?? null,
        }),
      );
    } else if (answer.ok === true) {
      c.resolve(answer.result);
    } else if (c.cancelled) {
      c.reject(new EngineError("cancelled", `${c.fn} was asked ahead and made way for a call`));
    } else {
      const e = answer.error;
      c.reject(new EngineError(e.type, e.message, { lineno: e.lineno, traceback: e.traceback }));
    }
    if (state === "busy") setState("ready");
    pump();
  }

  function call(/** @type {string} */ fn, /** @type {object} */ kwargs = {}, /** @type {CallOptions} */ opts = {}) {
    return new Promise((resolve, reject) => {
      if (state === "error") {
        reject(
          new EngineError("EngineNotReady", `engine is in error state: ${info.error?.message}`, {
            notStarted: true,
            reason: info.error?.message,
          }),
        );
        return;
      }
      /** @type {Call} */ const c = {
        fn,
        kwargs,
        resolve,
        reject,
        timeoutMs: opts.timeoutMs ?? timeoutMs,
        interrupt: opts.interrupt, // false: skip the soft interrupt, restart right away
        quiet: opts.quiet === true,
      };
      if (opts.handle) opts.handle.hurry = () => hurry(c);
      enqueue(c);
      pump();
    });
  }

  function restart() {
    const c = current;
    current = null;
    if (c) {
      clearTimeout(c.timer);
      clearTimeout(c.graceTimer);
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
      clearTimeout(c.timer);
      clearTimeout(c.graceTimer);
      c.reject(err);
    }
    current = null;
  }

  start();

  return {
    get ready() {
      return readyPromise;
    },
    get state() {
      return state;
    },
    get info() {
      return info;
    },
    call,
    onState(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    restart,
    close,
  };
}

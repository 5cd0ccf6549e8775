// The engine's sandbox, seen from the page: the files it needs, the sandboxed iframe that runs
// its worker, and the checks on what comes back. engine-client.js is the promise API on top.
//
// Code in a permalink is written by someone else, so the worker that runs it is walled off from
// the site: it lives in an <iframe sandbox="allow-scripts" srcdoc> whose origin is opaque (no
// cookies, localStorage, IndexedDB, Cache Storage or service worker of the site) and whose CSP
// allows no network at all. A worker of the page's origin (started by app/engine-fetch.js)
// fetches every file the engine needs (through the service worker's cache when there is one),
// checks each against the sha256 in manifest.json, and moves the bytes to the engine's worker
// over a port of their own; the frame's script (engine-frame.js, allowed by its sha256) starts
// that worker from source text and relays the page's messages through another port. What comes
// back is data: only known shapes are read, and answers are capped.
import { MAX_ANSWER_CHARS } from "./limits.js";

const SITE = new URL("../", import.meta.url);
const FRAME_SCRIPT = "app/engine-frame.js";
const WORKER_SCRIPT = "app/engine-worker.js";

// A call that failed in JavaScript rather than in Python (Python's exceptions come back as
// answers): these leave Pyodide unusable, so the engine is replaced.
const FATAL_JS =
  /fatal|Maximum call stack size exceeded|can no longer be used|memory access out of bounds|unreachable|Aborted/i;

/**
 * manifest.json, as far as it is read here
 * @typedef {{path: string, sha256: string}} ManifestFile
 * @typedef {{engine_files: Record<string, ManifestFile>, engine_scripts: Record<string, ManifestFile>}} Manifest
 * What the frame relays is untrusted data, of no type until validMessage/readAnswer checked it:
 * @typedef {(msg: any) => void} OnMessage
 * @typedef {{iframe: HTMLIFrameElement, port: MessagePort}} Spawned
 * @typedef {{started: number, listen: OnMessage, said: any[], spawned: Promise<Spawned>}} EarlyEngine
 */

/** @param {ArrayBuffer} buf */
const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
/** @param {ArrayBuffer} buf */
const base64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)));

/** @param {string} path @returns {Promise<ArrayBuffer>} */
async function fetchBytes(path) {
  const r = await fetch(new URL(path, SITE));
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.arrayBuffer();
}

// The worker that fetches and checks the engine's files (app/engine-fetch.js): the one the
// head's script started once the page had painted, or a new one, for an engine that starts
// first or is restarted (the HTTP or service-worker cache has the files by then).
/** @param {Manifest} manifest @returns {Worker} */
function fileFetcher(manifest) {
  document.getElementById("engine-files")?.remove(); // not asked for yet: fetched here
  const early = window.engineFetcher;
  window.engineFetcher = undefined;
  if (early) return early;
  return window.startEngineFetcher(Object.values(manifest.engine_files).map((f) => new URL(f.path, SITE).href));
}

// The frame's document: its CSP allows only the frame script (by hash) and what Pyodide needs
// (blob: scripts and workers, WebAssembly); no fetch, XHR, WebSocket or image reaches anything.
/** @param {string} frameScript @param {string} scriptHash */
function frameDocument(frameScript, scriptHash) {
  const csp = [
    "default-src 'none'",
    `script-src '${scriptHash}' blob: 'wasm-unsafe-eval'`,
    "worker-src blob:",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return (
    '<!doctype html><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${csp}"><script>${frameScript}</script>`
  );
}

// A new engine: its sandboxed frame and worker, given manifest.json (from here) and the files
// it lists, moved straight from the fetching worker to the engine's over a port of their own:
// the page's main thread never holds them. The frame's and worker's scripts are checked
// against the manifest first.
/** @param {OnMessage} onMessage @returns {Promise<Spawned>} */
export async function spawnEngine(onMessage) {
  const manifestBytes = fetchBytes("manifest.json");
  const manifest = manifestBytes.then((bytes) => /** @type {Manifest} */ (JSON.parse(new TextDecoder().decode(bytes))));
  const fetcher = manifest.then(fileFetcher);
  fetcher.catch(() => {}); // awaited below, once the frame is up
  const script = async (/** @type {string} */ key, /** @type {string} */ path) => {
    const [bytes, { engine_scripts: scripts }] = await Promise.all([fetchBytes(path), manifest]);
    if (scripts[key].path !== path || hex(await crypto.subtle.digest("SHA-256", bytes)) !== scripts[key].sha256) {
      throw new Error(`sha256 mismatch for ${path}`);
    }
    return new TextDecoder().decode(bytes);
  };
  const [frameScript, workerSource] = await Promise.all([
    script("frame", FRAME_SCRIPT),
    script("worker", WORKER_SCRIPT),
  ]);
  const scriptHash = `sha256-${base64(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(frameScript)))}`;
  const control = new MessageChannel();
  const files = new MessageChannel();
  control.port1.onmessage = (e) => onMessage(e.data);
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("allow", "cross-origin-isolated *");
  iframe.setAttribute("aria-hidden", "true");
  iframe.setAttribute("tabindex", "-1");
  iframe.title = "Python engine (sandboxed)";
  iframe.hidden = true;
  iframe.dataset.testid = "engine-frame";
  iframe.srcdoc = frameDocument(frameScript, scriptHash);
  const loaded = new Promise((resolve) => iframe.addEventListener("load", resolve, { once: true }));
  document.body.append(iframe);
  await loaded;
  // the frame's document has loaded: it has a window
  /** @type {Window} */ (iframe.contentWindow).postMessage({ cmd: "init", workerSource }, "*", [
    control.port2,
    files.port2,
  ]);
  const bytes = await manifestBytes;
  files.port1.postMessage({ cmd: "file", name: "manifest.json", bytes }, [bytes]);
  const worker = await fetcher;
  worker.onmessage = ({ data }) =>
    onMessage({ type: "boot-error", error: { type: "FetchError", message: String(data?.error) } });
  const wanted = Object.entries((await manifest).engine_files).map(([name, f]) => ({
    url: new URL(f.path, SITE).href,
    path: f.path,
    name,
    sha256: f.sha256,
  }));
  worker.postMessage({ cmd: "deliver", port: files.port1, files: wanted }, [files.port1]);
  return { iframe, port: control.port1 };
}

// What the frame relays is untrusted: only these shapes are read, and only these fields.
/** @param {any} msg untrusted, checked here @returns {any} the message, or null */
export function validMessage(msg) {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return null;
  if (typeof msg.type === "string") return msg;
  if (Number.isInteger(msg.id)) return msg;
  return null;
}

/**
 * A call's answer as read: its result, or the error (fatal: Pyodide cannot go on).
 * @typedef {{ok: true, result: unknown}
 *   | {ok: false, fatal?: boolean, error: {type: string, message: string, lineno?: number | null, traceback?: string}}} ReadAnswer
 */

/** @param {any} msg a valid message (untrusted fields, checked here) @returns {ReadAnswer} */
export function readAnswer(msg) {
  if (typeof msg.text !== "string") {
    const e = msg.error && typeof msg.error === "object" ? msg.error : {};
    return {
      ok: false,
      fatal: Boolean(msg.fatal) || FATAL_JS.test(String(e.message)),
      error: { type: String(e.type ?? "Error"), message: String(e.message ?? "the engine failed") },
    };
  }
  if (msg.text.length > MAX_ANSWER_CHARS) {
    return {
      ok: false,
      error: {
        type: "AnswerTooLarge",
        message: `the engine's answer has ${msg.text.length} characters, over the page's limit of ${MAX_ANSWER_CHARS}`,
      },
    };
  }
  let answer;
  try {
    answer = JSON.parse(msg.text);
  } catch {
    return { ok: false, error: { type: "ResultNotJSON", message: "the engine's answer is not JSON" } };
  }
  if (!answer || typeof answer !== "object" || typeof answer.ok !== "boolean") {
    return { ok: false, error: { type: "BadAnswer", message: "the engine's answer has no status" } };
  }
  if (!answer.ok) {
    const e = answer.error && typeof answer.error === "object" ? answer.error : {};
    return {
      ok: false,
      error: {
        type: String(e.type ?? "Error"),
        message: String(e.message ?? "unknown error"),
        lineno: Number.isInteger(e.lineno) ? e.lineno : null,
        traceback: typeof e.traceback === "string" ? e.traceback : undefined,
      },
    };
  }
  return { ok: true, result: answer.result };
}

// The first engine starts as soon as this module is evaluated (index.html loads the engine
// client before anything else): the boot is the long pole. What it says before the page's
// engine client exists is kept, in order, and handed over with it.
/** @type {EarlyEngine | null} */
let early = null;
if (typeof document !== "undefined") {
  /** @type {any[]} */
  const said = [];
  /** @type {EarlyEngine} */
  const e = {
    started: performance.now(),
    listen: (msg) => said.push(msg),
    said,
    spawned: spawnEngine((msg) => e.listen(msg)), // called once it has spoken: e is there by then
  };
  e.spawned.catch(() => {}); // the adopter sees it
  early = e;
}

/** The engine started at load, now talking to `onMessage` (null if there was none, or it was
 *  adopted already). @param {OnMessage} onMessage @returns {EarlyEngine | null} */
export function adoptEarlyEngine(onMessage) {
  const e = early;
  early = null;
  if (!e) return null;
  e.listen = onMessage;
  queueMicrotask(() => {
    for (const msg of e.said.splice(0)) onMessage(msg);
  });
  return e;
}

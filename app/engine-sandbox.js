// The engine's sandbox, seen from the page: the files it needs, the sandboxed iframe that runs
// its worker, and the checks on what comes back. engine-client.js is the promise API on top.
//
// Code in a permalink is written by someone else, so the worker that runs it is walled off from
// the site: it lives in an <iframe sandbox="allow-scripts" srcdoc> whose origin is opaque (no
// cookies, localStorage, IndexedDB, Cache Storage or service worker of the site) and whose CSP
// allows no network at all. The page fetches every file the engine needs (through the service
// worker's cache when there is one), checks each against the sha256 in manifest.json, and
// hands the bytes over; the frame's script (engine-frame.js, allowed by its sha256) starts the
// worker from source text and relays messages through a MessagePort. What comes back is data:
// only known shapes are read, and answers are capped.
import { MAX_ANSWER_CHARS } from "./limits.js";

const SITE = new URL("../", import.meta.url);
const FRAME_SCRIPT = "app/engine-frame.js";
const WORKER_SCRIPT = "app/engine-worker.js";

// A call that failed in JavaScript rather than in Python (Python's exceptions come back as
// answers): these leave Pyodide unusable, so the engine is replaced.
const FATAL_JS =
  /fatal|Maximum call stack size exceeded|can no longer be used|memory access out of bounds|unreachable|Aborted/i;

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
const base64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)));

async function fetchChecked(path, sha256, init) {
  const r = await fetch(new URL(path, SITE), init);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  const bytes = await r.arrayBuffer();
  const got = hex(await crypto.subtle.digest("SHA-256", bytes));
  if (sha256 && got !== sha256)
    throw new Error(`sha256 mismatch for ${path}: got ${got}, manifest.json says ${sha256}`);
  return bytes;
}

// The engine's files, fetched for each engine: the manifest and the two scripts at once (their
// paths are fixed; their hashes are checked when the manifest is here), then every file the
// manifest lists (the head asks for them once the page has painted, app/engine-preloads.js, so
// the first engine finds them on their way; a restarted one reads them again from the HTTP or
// service-worker cache). Each engine's bytes are moved to it, never copied: 10 MB of copies
// would hold up the page's main thread.
let bundle = null;
function engineBundle() {
  if (bundle) return bundle;
  document.getElementById("engine-preloads")?.remove(); // not asked for yet: fetched here first
  const manifest = fetchChecked("manifest.json", null).then((bytes) => ({
    bytes,
    data: JSON.parse(new TextDecoder().decode(bytes)),
  }));
  const script = (key, path) =>
    Promise.all([fetchChecked(path, null), manifest]).then(async ([bytes, { data }]) => {
      const want = data.engine_scripts[key];
      const got = hex(await crypto.subtle.digest("SHA-256", bytes));
      if (want.path !== path || got !== want.sha256) throw new Error(`sha256 mismatch for ${path}`);
      return new TextDecoder().decode(bytes);
    });
  const scripts = Promise.all([script("frame", FRAME_SCRIPT), script("worker", WORKER_SCRIPT)]);
  const files = manifest.then(({ data }) =>
    Object.fromEntries(Object.entries(data.engine_files).map(([name, f]) => [name, fetchChecked(f.path, f.sha256)])),
  );
  bundle = { manifest, scripts, files };
  for (const p of [manifest, scripts, files]) p.catch(() => {}); // awaited where used
  return bundle;
}

// The frame's document: its CSP allows only the frame script (by hash) and what Pyodide needs
// (blob: scripts and workers, WebAssembly); no fetch, XHR, WebSocket or image reaches anything.
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

// A new engine: the sandboxed frame, the port to it, and the files sent through the port.
export async function spawnEngine(onMessage) {
  const { manifest, scripts, files } = engineBundle();
  bundle = null; // this engine's: its bytes are moved to it
  const [frameScript, workerSource] = await scripts;
  const { bytes: manifestBytes } = await manifest;
  const scriptHash = `sha256-${base64(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(frameScript)))}`;
  const channel = new MessageChannel();
  channel.port1.onmessage = (e) => onMessage(e.data);
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
  iframe.contentWindow.postMessage({ cmd: "init", workerSource }, "*", [channel.port2]);
  const port = channel.port1;
  // Each file goes over as soon as it is here and checked, moved (transferred), not copied.
  const send = (name, bytes) => port.postMessage({ cmd: "file", name, bytes }, [bytes]);
  send("manifest.json", manifestBytes);
  const byName = await files;
  for (const [name, p] of Object.entries(byName)) {
    p.then(
      (bytes) => send(name, bytes),
      (err) => onMessage({ type: "boot-error", error: { type: "FetchError", message: String(err.message) } }),
    );
  }
  return { iframe, port };
}

// What the frame relays is untrusted: only these shapes are read, and only these fields.
export function validMessage(msg) {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return null;
  if (typeof msg.type === "string") return msg;
  if (Number.isInteger(msg.id)) return msg;
  return null;
}

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
let early = null;
if (typeof document !== "undefined") {
  const said = [];
  const e = { started: performance.now(), listen: (msg) => said.push(msg), said };
  e.spawned = spawnEngine((msg) => e.listen(msg));
  e.spawned.catch(() => {}); // the adopter sees it
  early = e;
}

/** The engine started at load, now talking to `onMessage` (null if there was none, or it was
 *  adopted already). */
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

// Page state and its permalink codec.
//
//   state = {code, known: {arg: bool}, values: {arg: text}, mode, policy, step, folding}
//
// Permalink: JSON -> CompressionStream('deflate-raw') -> base64url, in the hash behind a
// version prefix: `#v1.<payload>`. Only semantic state is serialized (never cursor or
// selection), so the link in the address bar stays stable while the user moves around.

export const MODES = ["split", "jit", "grad", "checkpoint"];
export const POLICIES = [
  "nothing_saveable",
  "everything_saveable",
  "dots_saveable",
  "dots_with_no_batch_dims_saveable",
  "save_only_these_names",
  "save_any_names_but_these",
];
export const HASH_PREFIX = "v1.";
export const MAX_HASH_CHARS = 16 * 1024; // beyond this a link is refused, on write and on read
export const LONG_LINK_CHARS = 2000; // chat services cut links around here: warn
const MAX_CODE_CHARS = 20_000;
const STORAGE_KEY = "pe-explainer.state.v1";

export class PermalinkError extends Error {
  constructor(message) {
    super(message);
    this.name = "PermalinkError";
  }
}

/** A fresh state from an example of examples.json. */
export function stateFromExample(ex) {
  return normalize({
    code: ex.code,
    known: { ...ex.known },
    values: { ...ex.values },
    mode: ex.mode,
    policy: ex.policy ?? POLICIES[0],
    step: null,
    folding: Boolean(ex.folding),
  });
}

/** Check and fill in a state from an untrusted source (a link, localStorage). */
export function normalize(raw) {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new PermalinkError("the link does not hold a page state");
  }
  if (typeof raw.code !== "string") throw new PermalinkError("the link has no code");
  if (raw.code.length > MAX_CODE_CHARS) {
    throw new PermalinkError(`the code in the link is over ${MAX_CODE_CHARS} characters`);
  }
  const mode = raw.mode ?? "split";
  if (!MODES.includes(mode)) throw new PermalinkError(`unknown mode ${JSON.stringify(mode)}`);
  const known = {};
  for (const [k, v] of Object.entries(raw.known ?? {})) {
    if (typeof v !== "boolean") throw new PermalinkError(`known.${k} is not true/false`);
    known[k] = v;
  }
  const values = {};
  for (const [k, v] of Object.entries(raw.values ?? {})) {
    if (typeof v !== "string" || v.length > 4000) throw new PermalinkError(`values.${k} is not a short text`);
    values[k] = v;
  }
  const policy = raw.policy ?? POLICIES[0];
  if (typeof policy !== "string" || !/^[A-Za-z_][\w]*$/.test(policy)) {
    throw new PermalinkError("the checkpoint policy is not a name");
  }
  let step = raw.step ?? null;
  if (step !== null && !(Number.isInteger(step) && step >= 0 && step < 100_000)) {
    throw new PermalinkError("the step is not a small non-negative integer");
  }
  return { code: raw.code, known, values, mode, policy, step, folding: Boolean(raw.folding) };
}

// ------------------------------------------------------------------------------------------
// signature: the arguments of the traced function (the last top-level def)

/** Parameter names of the last top-level `def name(a, b, ...)`, or null if there is none. */
export function parseSignature(code) {
  const re = /^def\s+([A-Za-z_]\w*)\s*\(([^)]*)\)/gm;
  let m;
  let last = null;
  while ((m = re.exec(code)) !== null) last = m;
  if (!last) return null;
  const params = [];
  for (let part of last[2].split(",")) {
    part = part.replace(/#.*$/gm, "").trim();
    if (!part || part === "/" || part.startsWith("*")) continue;
    const name = part.split(/[:=]/)[0].trim();
    if (/^[A-Za-z_]\w*$/.test(name)) params.push(name);
  }
  return { name: last[1], params };
}

export const DEFAULT_VALUE = "1.0";

/** The engine's `args`: one {known, value} per parameter, in order. */
export function argsFor(state, params) {
  return params.map((p) => ({
    known: state.known[p] ?? true,
    value: state.values[p] ?? DEFAULT_VALUE,
  }));
}

/** The engine request for a state (null when the code has no function yet). */
export function requestFor(state) {
  const sig = parseSignature(state.code);
  const params = sig ? sig.params : [];
  const kwargs = { source: state.code, args: argsFor(state, params) };
  if (state.mode === "jit") kwargs.eager_constant_folding = state.folding;
  if (state.mode === "checkpoint") kwargs.policy = state.policy;
  return { mode: state.mode, kwargs, params };
}

/** Same key <=> same trace: the cache key of the engine's answer. */
export function requestKey(req) {
  return JSON.stringify([req.mode, req.kwargs]);
}

/** Only what the link needs: values and mask of the current parameters. */
export function linkState(state) {
  const sig = parseSignature(state.code);
  const params = sig ? sig.params : Object.keys(state.known);
  const pick = (obj) => Object.fromEntries(params.filter((p) => p in obj).map((p) => [p, obj[p]]));
  const out = { code: state.code, known: pick(state.known), values: pick(state.values), mode: state.mode };
  if (state.mode === "checkpoint") out.policy = state.policy;
  if (state.mode === "jit" && state.folding) out.folding = true;
  if (state.step !== null && state.step !== undefined) out.step = state.step;
  return out;
}

// ------------------------------------------------------------------------------------------
// permalink codec

function toBase64url(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new PermalinkError("the link has characters base64url does not use");
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  let bin;
  try {
    bin = atob(b64);
  } catch {
    throw new PermalinkError("the link is not valid base64url");
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes, stream) {
  const body = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** state -> "v1.<payload>" (no leading '#'). */
export async function encodePermalink(state) {
  const json = JSON.stringify(linkState(state));
  const packed = await pipe(new TextEncoder().encode(json), new CompressionStream("deflate-raw"));
  const hash = HASH_PREFIX + toBase64url(packed);
  if (hash.length + 1 > MAX_HASH_CHARS) {
    throw new PermalinkError(`the link would be ${hash.length} characters, over the page's limit of ${MAX_HASH_CHARS}`);
  }
  return hash;
}

/** "#v1.<payload>" or "v1.<payload>" -> state; throws PermalinkError saying what is wrong. */
export async function decodePermalink(hash) {
  const text = hash.startsWith("#") ? hash.slice(1) : hash;
  if (text.length + 1 > MAX_HASH_CHARS) {
    throw new PermalinkError(`the link is ${text.length} characters long, over the limit of ${MAX_HASH_CHARS}`);
  }
  const m = /^v(\d+)\.(.*)$/s.exec(text);
  if (!m) throw new PermalinkError("the link has no version prefix (expected #v1.…)");
  if (m[1] !== "1") throw new PermalinkError(`the link is version ${m[1]}; this page reads version 1`);
  const bytes = fromBase64url(m[2]);
  if (bytes.length === 0) throw new PermalinkError("the link is empty");
  let json;
  try {
    const raw = await pipe(bytes, new DecompressionStream("deflate-raw"));
    json = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw new PermalinkError("the link is truncated or damaged (it does not decompress)");
  }
  let obj;
  try {
    obj = JSON.parse(json);
  } catch {
    throw new PermalinkError("the link does not hold valid JSON");
  }
  return normalize(obj);
}

// ------------------------------------------------------------------------------------------
// localStorage (restored on reload when there is no permalink)

export function saveLocal(state) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(linkState(state)));
  } catch {
    // private mode or quota: the permalink still works
  }
}

export function loadLocal() {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    return raw ? normalize(JSON.parse(raw)) : null;
  } catch {
    return null;
  }
}

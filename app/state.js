// Page state and its permalink codec.
//
//   state = {code, known: {arg: bool}, values: {arg: text}, mode, policy, step, folding,
//            instantiate: [bool per output of the traced program] or [] (nothing forced)}
//
// Permalink: JSON -> CompressionStream('deflate-raw') -> base64url, in the hash behind a
// version prefix: `#v1.<payload>`. Only semantic state is serialized (never cursor or
// selection), so the link in the address bar stays stable while the user moves around.

import { DEFAULT_POLICY, POLICY_NAMES } from "./contract/values.js";
import { MAX_LINK_CHARS, MAX_LINK_CODE_CHARS } from "./limits.js";
import { MODES, modeOf } from "./modes.js";
import { paramsOf, signatureOf } from "./signatures.js";

export const HASH_PREFIX = "v1.";
// app/first-frame-init.js reads it too (a classic script, it cannot import this module)
const STORAGE_KEY = "pe-explainer.state.v1";

/** @typedef {import("./page/update.js").Doc} Doc */

export class PermalinkError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "PermalinkError";
  }
}

/** A fresh state from an example of examples.json.
 *  @param {import("./examples.js").Example} ex @returns {Doc} */
export function stateFromExample(ex) {
  return normalize({
    code: ex.code,
    known: { ...ex.known },
    values: { ...ex.values },
    mode: ex.mode,
    policy: ex.policy ?? DEFAULT_POLICY,
    step: null,
    folding: Boolean(ex.folding),
    instantiate: [],
  });
}

const NAME_RE = /^[A-Za-z_]\w*$/;
const MAX_ARGS = 256; // entries in `known` / `values`
const MAX_VALUE_CHARS = 4000;
const MAX_STEP = 100_000;
const MAX_OUTPUTS = 256; // entries of `instantiate`

/** Check and fill in a state from an untrusted source (a link, localStorage). Throws a
 *  PermalinkError saying what is wrong; never anything else.
 *  @param {any} raw untrusted JSON: every field is checked here before use
 *  @returns {Doc} */
export function normalize(raw) {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new PermalinkError("the link does not hold a page state");
  }
  if (typeof raw.code !== "string") throw new PermalinkError("the link has no code");
  if (raw.code.length > MAX_LINK_CODE_CHARS) {
    throw new PermalinkError(`the code in the link is over ${MAX_LINK_CODE_CHARS} characters`);
  }
  const mode = raw.mode ?? MODES[0];
  if (!MODES.includes(mode)) throw new PermalinkError(`unknown mode ${quote(mode)}; modes: ${MODES.join(", ")}`);
  const known = argMap(raw.known, "known", (v) => typeof v === "boolean", "true/false");
  const values = argMap(
    raw.values,
    "values",
    (v) => typeof v === "string" && v.length <= MAX_VALUE_CHARS,
    `a text of at most ${MAX_VALUE_CHARS} characters`,
  );
  const policy = raw.policy ?? DEFAULT_POLICY;
  if (!POLICY_NAMES.includes(policy)) {
    throw new PermalinkError(`unknown checkpoint policy ${quote(policy)}; policies: ${POLICY_NAMES.join(", ")}`);
  }
  const step = raw.step ?? null;
  if (step !== null && !(Number.isInteger(step) && step >= 0 && step < MAX_STEP)) {
    throw new PermalinkError("the step is not a small non-negative integer");
  }
  const folding = raw.folding ?? false;
  if (typeof folding !== "boolean") throw new PermalinkError("folding is not true/false");
  const instantiate = raw.instantiate ?? [];
  if (
    !Array.isArray(instantiate) ||
    instantiate.length > MAX_OUTPUTS ||
    !instantiate.every((b) => typeof b === "boolean")
  ) {
    throw new PermalinkError(`instantiate is not a list of at most ${MAX_OUTPUTS} true/false`);
  }
  return { code: raw.code, known, values, mode, policy, step, folding, instantiate };
}

/** {argName: value} from untrusted JSON: names are Python identifiers, the map has no
 *  prototype (so "__proto__" is just a name), at most MAX_ARGS entries.
 *  @param {unknown} raw @param {string} what @param {(v: unknown) => boolean} ok
 *  @param {string} expected @returns {Record<string, any>} */
function argMap(raw, what, ok, expected) {
  /** @type {Record<string, any>} */
  const out = Object.create(null);
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== "object" || Array.isArray(raw)) throw new PermalinkError(`${what} is not a map of arguments`);
  const entries = Object.entries(raw);
  if (entries.length > MAX_ARGS) throw new PermalinkError(`${what} has over ${MAX_ARGS} arguments`);
  for (const [k, v] of entries) {
    if (!NAME_RE.test(k) || k.length > 200)
      throw new PermalinkError(`${what} has a key that is not an argument name: ${quote(k)}`);
    if (!ok(v)) throw new PermalinkError(`${what}.${k} is not ${expected}`);
    out[k] = v;
  }
  return out;
}

/** A short, printable rendering of an untrusted value for a message.
 *  @param {unknown} v @returns {string} */
function quote(v) {
  let text;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = "?";
  }
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

export const DEFAULT_VALUE = "1.0";

/** Whether a mode's mask is JAX's argnums (an unknown input is differentiated).
 *  @param {string | undefined} mode @returns {boolean} */
const isArgnums = (mode) => modeOf(mode)?.mask === "argnums";

/** The doc's known flags as the engine is asked. Where the mask is argnums and the reader has
 *  marked no input of the function unknown, argument 0 is differentiated: jax.grad's default
 *  argnums=0 (a function pasted in grad mode differentiates its first input, not nothing).
 *  @param {{code?: string, mode?: string, known: Record<string, boolean>}} doc
 *  @returns {Record<string, boolean>} */
export function effectiveKnown(doc) {
  const params = doc.code === undefined ? [] : paramsOf(doc.code);
  if (!isArgnums(doc.mode) || !params.length || params.some((p) => doc.known[p] === false)) return doc.known;
  return Object.assign(Object.create(null), doc.known, { [params[0]]: false });
}

/** Whether a doc's parameter is known: an input the page has not marked is (but for argnums'
 *  default, effectiveKnown).
 *  @param {{code?: string, mode?: string, known: Record<string, boolean>}} doc @param {string} name
 *  @returns {boolean} */
export const isKnown = (doc, name) => effectiveKnown(doc)[name] ?? true;

/** Whether `name` is the only input `doc` differentiates (argnums modes): grad needs one, so
 *  its toggle cannot hold it fixed.
 *  @param {{code?: string, mode?: string, known: Record<string, boolean>}} doc @param {string} name
 *  @returns {boolean} */
export function soleDifferentiated(doc, name) {
  if (!isArgnums(doc.mode)) return false;
  const unknown = paramsOf(doc.code ?? "").filter((p) => !isKnown(doc, p));
  return unknown.length === 1 && unknown[0] === name;
}

/**
 * The engine's `source` and `args` for a function: one {known, value} per parameter of its
 * last `def`, in order (every request of the page, the main one and the demos', starts here).
 * The parameters are the engine's (signatures.js): the source's signature is known before a
 * request on it is built.
 * @param {string} code
 * @param {Record<string, boolean>} known @param {Record<string, string>} values
 * @param {boolean} [knownByDefault] for a parameter `known` does not name
 */
export function functionKwargs(code, known, values, knownByDefault = true) {
  const params = paramsOf(code);
  return {
    source: code,
    args: params.map((p) => ({ known: known[p] ?? knownByDefault, value: values[p] ?? DEFAULT_VALUE })),
  };
}

/** The engine request for a page state.
 *  @param {Doc} state @returns {{mode: string, kwargs: ReturnType<typeof functionKwargs> & Record<string, any>}} */
export function requestFor(state) {
  const kwargs = {
    ...functionKwargs(state.code, effectiveKnown(state), state.values),
    ...modeOf(state.mode)?.kwargs(state),
  };
  return { mode: state.mode, kwargs };
}

/** The mask explorer's request for a page state: every mask of its function, with its values
 *  (the mask itself is not asked: all of them are answered), counted as its mode splits them;
 *  null for a mode whose mask has no say (no explorer).
 *  @param {Doc} state @returns {{mode: string, kwargs: import("./contract/request.js").MasksRequest} | null} */
export function masksRequest(state) {
  const as = modeOf(state.mode)?.masks;
  if (!as) return null;
  const { source, args } = functionKwargs(state.code, {}, state.values);
  /** @typedef {import("./contract/request.js").MasksRequest} MasksRequest */
  /** @type {MasksRequest} */
  const kwargs = { source, args, as_mode: /** @type {MasksRequest["as_mode"]} */ (as) };
  if (modeOf(state.mode)?.option === "policy") kwargs.policy = /** @type {MasksRequest["policy"]} */ (state.policy);
  return { mode: "masks", kwargs };
}

/** Same key <=> same trace: the cache key of the engine's answer.
 *  @param {{mode: string, kwargs: object}} req @returns {string} */
export function requestKey(req) {
  return JSON.stringify([req.mode, req.kwargs]);
}

/** Only what the link needs: values and mask of the current parameters, and the policy and
 *  folding choices whatever the mode (switching to checkpoint or jit later finds them).
 *  @param {Doc} state @returns {Partial<Doc>} */
export function linkState(state) {
  // the function's parameters; before the engine has read them, every name the state holds
  const held = new Set([...Object.keys(state.known), ...Object.keys(state.values)]);
  const params = signatureOf(state.code)?.params ?? [...held];
  /** @type {<T>(obj: Record<string, T>) => Record<string, T>} */
  const pick = (obj) => Object.fromEntries(params.filter((p) => p in obj).map((p) => [p, obj[p]]));
  /** @type {Partial<Doc>} */
  const out = { code: state.code, known: pick(state.known), values: pick(state.values), mode: state.mode };
  if (state.policy !== DEFAULT_POLICY) out.policy = state.policy;
  if (state.folding) out.folding = true;
  if (state.instantiate?.some(Boolean)) out.instantiate = state.instantiate;
  if (state.step !== null && state.step !== undefined) out.step = state.step;
  return out;
}

// ------------------------------------------------------------------------------------------
// permalink codec

/** @param {Uint8Array} bytes @returns {string} */
function toBase64url(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {string} text @returns {Uint8Array<ArrayBuffer>} */
function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new PermalinkError("the link has characters base64url does not use");
  if (text.length % 4 === 1) throw new PermalinkError("the link is truncated (its base64url length is impossible)");
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

// A link is at most 16 KB; deflate can blow that up a thousandfold. The JSON of any state
// the page writes is far below this.
export const MAX_JSON_BYTES = 256 * 1024;

/** bytes through a (de)compression stream; throws a PermalinkError past `limit` bytes out.
 *  @param {Uint8Array<ArrayBuffer>} bytes @param {CompressionStream | DecompressionStream} stream
 *  @param {number} [limit] @returns {Promise<Uint8Array<ArrayBuffer>>} */
async function pipe(bytes, stream, limit = Infinity) {
  const reader = new Blob([bytes]).stream().pipeThrough(stream).getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw new PermalinkError(`the link unpacks to over ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** state -> "v1.<payload>" (no leading '#').
 *  @param {Doc} state @returns {Promise<string>} */
export async function encodePermalink(state) {
  const json = JSON.stringify(linkState(state));
  const packed = await pipe(new TextEncoder().encode(json), new CompressionStream("deflate-raw"));
  const hash = HASH_PREFIX + toBase64url(packed);
  if (hash.length + 1 > MAX_LINK_CHARS) {
    throw new PermalinkError(`the link would be ${hash.length} characters, over the page's limit of ${MAX_LINK_CHARS}`);
  }
  return hash;
}

/** "#v1.<payload>" or "v1.<payload>" -> state. Whatever the input, it resolves to a
 *  normalized state or rejects with a PermalinkError saying what is wrong.
 *  @param {unknown} hash @returns {Promise<Doc>} */
export async function decodePermalink(hash) {
  try {
    return await decodeUnchecked(hash);
  } catch (err) {
    if (err instanceof PermalinkError) throw err;
    const thrown = /** @type {{name?: string} | null | undefined} */ (err); // whatever was thrown
    throw new PermalinkError(`the link could not be read (${thrown && thrown.name ? thrown.name : "error"})`);
  }
}

/** @param {unknown} hash @returns {Promise<Doc>} */
async function decodeUnchecked(hash) {
  if (typeof hash !== "string") throw new PermalinkError("the link is not text");
  const text = hash.startsWith("#") ? hash.slice(1) : hash;
  if (text.length + 1 > MAX_LINK_CHARS) {
    throw new PermalinkError(`the link is ${text.length} characters long, over the limit of ${MAX_LINK_CHARS}`);
  }
  const m = /^v(\d{1,6})\.(.*)$/s.exec(text);
  if (!m) throw new PermalinkError("the link has no version prefix (expected #v1.…)");
  if (m[1] !== "1") throw new PermalinkError(`the link is version ${m[1]}; this page reads version 1`);
  const bytes = fromBase64url(m[2]);
  if (bytes.length === 0) throw new PermalinkError("the link is empty");
  let json;
  try {
    const raw = await pipe(bytes, new DecompressionStream("deflate-raw"), MAX_JSON_BYTES);
    json = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch (err) {
    if (err instanceof PermalinkError) throw err;
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

// Stored: the link state; `base`, the address-bar hash shown when it was saved; `ahead`, true
// when the state was saved with edits the address bar had not caught up with yet. A reload
// comes back with that same hash: then the saved state is newer and wins. Any other link,
// someone's or an older one of yours, wins over what is saved.

/** @param {Doc} state @param {string} [base] @param {boolean} [ahead] */
export function saveLocal(state, base = "", ahead = false) {
  try {
    localStorage.setItem(
      STORAGE_KEY,
      JSON.stringify({
        ...linkState(state),
        base: String(base || ""),
        ahead: Boolean(ahead),
      }),
    );
  } catch {
    // private mode or quota: the permalink still works
  }
}

/** The saved state, or null. With `hash`: only edits saved ahead of that very hash.
 *  @param {string | null} [hash] @returns {Doc | null} */
export function loadLocal(hash = null) {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const obj = JSON.parse(raw);
    if (hash !== null && !(obj && obj.base === hash && obj.ahead === true)) return null;
    return normalize(obj);
  } catch {
    return null;
  }
}

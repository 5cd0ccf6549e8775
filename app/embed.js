// Embed mode (`index.html?embed`, `&edit`; app/embed-init.js marks the page before it paints):
// the <iframe> code for the current state, the link back to the full page, and a postMessage
// API for the host page that mirrors window.explainer.
//
// The message API answers only the page that embeds this one: a message counts only if it comes
// from window.parent and from the parent's origin (location.ancestorOrigins, else the referrer's
// origin); replies go to that origin alone. Without a known parent origin there is no API. What
// a host sends is treated as the setters treat the UI's input: plain data, checked.

/** "read", "edit" or null (the full page). */
export const embedMode = document.documentElement.dataset.embed ?? null;

const API_VERSION = 1;
// window.explainer's methods a host may call (README, "Embedding API")
const METHODS = new Set([
  "setSource",
  "setKnown",
  "setValue",
  "setMode",
  "setPolicy",
  "setFolding",
  "setInstantiate",
  "setStep",
  "loadExample",
  "examples",
  "state",
  "settled",
  "permalink",
  "jaxSnippet",
]);
const EMBED_WIDTH = 700;
const EMBED_HEIGHT = 720;

/** The page's address with the embed flags (or none) and the permalink's hash.
 *  @param {string} permalink @param {string} flags */
function pageUrl(permalink, flags) {
  const hash = new URL(permalink).hash;
  return `${location.origin}${location.pathname}${flags}${hash}`;
}

/** The <iframe> that embeds `permalink`'s state, read-only. @param {string} permalink */
export function embedCode(permalink) {
  const src = pageUrl(permalink, "?embed");
  return (
    `<iframe src="${src}" title="Partial evaluation in JAX, live" width="${EMBED_WIDTH}" ` +
    `height="${EMBED_HEIGHT}" style="border: 0; max-width: 100%;" loading="lazy"></iframe>`
  );
}

/** The origin of the page that embeds this one, or null (not framed, or not known). */
export function parentOrigin() {
  if (window.parent === window) return null;
  const ancestors = location.ancestorOrigins;
  if (ancestors && ancestors.length) return ancestors[0];
  try {
    return document.referrer ? new URL(document.referrer).origin : null;
  } catch {
    return null;
  }
}

/**
 * Answer the host page's calls: {type: "explainer:call", id, method, args} ->
 * {type: "explainer:reply", id, ok, result | error}. Announces {type: "explainer:ready"}.
 * @param {any} explainer window.explainer
 */
export function mountEmbedApi(explainer) {
  const origin = parentOrigin();
  if (!origin || origin === "null") return;
  const host = window.parent;
  window.addEventListener("message", async (e) => {
    if (e.source !== host || e.origin !== origin) return; // only the embedding page
    const msg = e.data;
    if (!msg || typeof msg !== "object" || msg.type !== "explainer:call") return;
    const id = typeof msg.id === "string" || typeof msg.id === "number" ? msg.id : null;
    const reply = (/** @type {object} */ body) => host.postMessage({ type: "explainer:reply", id, ...body }, origin);
    if (typeof msg.method !== "string" || !METHODS.has(msg.method)) {
      reply({ ok: false, error: `unknown method ${JSON.stringify(String(msg.method)).slice(0, 60)}` });
      return;
    }
    if (msg.args !== undefined && !Array.isArray(msg.args)) {
      reply({ ok: false, error: "args must be a list" });
      return;
    }
    try {
      reply({ ok: true, result: await explainer[msg.method](...(msg.args ?? [])) });
    } catch (err) {
      // whatever was thrown: an Error's message, or the thing itself
      const thrown = /** @type {{message?: unknown} | null | undefined} */ (err);
      reply({ ok: false, error: String(thrown?.message ?? err) });
    }
  });
  host.postMessage({ type: "explainer:ready", version: API_VERSION }, origin);
}

/**
 * The embed's own line under the stage: a link that opens this state in the full page (the
 * address bar follows the reader's edits in `&edit`, so the link is made when it is used).
 * @param {Element} after where it goes
 */
export function mountEmbedFooter(after) {
  const p = document.createElement("p");
  p.className = "embed-footer";
  const a = document.createElement("a");
  a.target = "_blank";
  a.rel = "noopener";
  a.textContent = "Open in the full explainer ↗";
  const follow = () => (a.href = pageUrl(location.href, ""));
  follow();
  a.addEventListener("pointerdown", follow);
  a.addEventListener("focus", follow);
  p.append(a);
  after.after(p);
}

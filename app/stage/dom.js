// Tiny DOM helpers for the stage (no framework; record data becomes text nodes, never HTML).

const SVG_NS = "http://www.w3.org/2000/svg";
const HTML_NS = "http://www.w3.org/1999/xhtml";

/**
 * An attribute's value: null or false leaves it out, true sets it empty; `dataset` takes an
 * object, an `on…` attribute a listener.
 * @typedef {string | number | boolean | null | undefined | EventListener | Record<string, string>} AttrValue
 * @typedef {Record<string, AttrValue>} Attrs
 * @typedef {Node | string | number | boolean | null | undefined | Children} Child null and false are left out
 * @typedef {Array<Child>} Children
 */

/** @template {HTMLElement | SVGElement} E @param {E} el @param {Attrs | null | undefined} attrs */
function apply(el, attrs) {
  if (!attrs) return el;
  // (for...in, not Object.entries: a new split makes thousands of elements, each an array of pairs less)
  for (const k in attrs) {
    const v = attrs[k];
    if (v == null || v === false) continue;
    if (k === "class") el.setAttribute("class", String(v));
    else if (k === "text") el.textContent = String(v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  return el;
}

/** The nodes and texts of `children`, nested lists flattened, null and false left out.
 *  @param {unknown[]} children @param {unknown[]} out */
function flatten(children, out) {
  for (const c of children) {
    if (Array.isArray(c)) flatten(c, out);
    else if (c != null && c !== false) out.push(c);
  }
  return out;
}

/** @template {Element} E @param {E} el @param {Child[]} children */
function append(el, children) {
  const adopting = making != null && "els" in making;
  const inPlace = adopting && adopted.has(el);
  /** @type {Array<Node | string>} */
  const nodes = [];
  for (const c of flatten(children, [])) {
    // while adopting, an adopted element is already where the build put it, and so is an
    // adopted parent's text
    if (adopting && (c instanceof Node ? adopted.has(c) : inPlace)) continue;
    nodes.push(c instanceof Node ? c : String(c));
  }
  // one call for them all: most elements have one or two children, and each call crosses into the browser
  if (nodes.length) el.append(...nodes);
  return el;
}

// ---------------------------------------------------------------- the build's first frame
// The build draws the stage of the page's first record into the HTML with this same code
// (tools/prerender.mjs), recording the elements h() and s() make in the order they are made.
// The page runs the same code over that HTML and each element made is, in turn, the one the
// build made there (adopted): the code attaches its listeners and keeps its references, its
// attributes and children are the HTML's already, and nothing on screen is drawn again.
/** @typedef {{made: Element[]} | {els: (Element | null | undefined)[], i: number, ok: boolean}} Making */
/** @type {Making | null} */
let making = null; // {els, i, ok} while adopting; {made} while recording
/** @type {WeakSet<Node>} */
const adopted = new WeakSet();

/** An element `tag` of namespace `ns` (HTML's or SVG's). @param {string} ns @param {string} tag
 *  @returns {HTMLElement | SVGElement} */
function make(ns, tag) {
  const queue = making;
  if (queue && "els" in queue) {
    const el = queue.els[queue.i++];
    if (el && el.localName === tag && el.namespaceURI === ns) {
      adopted.add(el);
      return /** @type {HTMLElement | SVGElement} */ (el);
    }
    // not what the build made here (null: not in its HTML): made anew, and told
    if (el !== null) queue.ok = false;
  }
  const el =
    ns === HTML_NS ? document.createElement(tag) : /** @type {SVGElement} */ (document.createElementNS(ns, tag));
  if (queue && "made" in queue) queue.made.push(el);
  return el;
}

/**
 * `fn()`, with the elements h() and s() make meanwhile either recorded (`{made: []}`: the
 * build, in order) or taken in turn from the build's HTML (`{els, i, ok}`: the page; null
 * there means make one anew). `ok` turns false when one is not what the build made at that
 * place (another tag, or none left), which the caller then draws anew.
 * @template T
 * @param {Making} queue
 * @param {() => T} fn
 * @returns {T}
 */
export function makingWith(queue, fn) {
  const outer = making;
  making = queue;
  try {
    return fn();
  } finally {
    making = outer;
  }
}

/**
 * h("div", {class: "x", "data-testid": "y"}, child, "text", [more])
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Attrs | null} [attrs] @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  return /** @type {HTMLElementTagNameMap[K]} */ (made(make(HTML_NS, tag), attrs, children));
}

/**
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag @param {Attrs | null} [attrs] @param {...Child} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function s(tag, attrs, ...children) {
  return /** @type {SVGElementTagNameMap[K]} */ (made(make(SVG_NS, tag), attrs, children));
}

/** A section of the stage: its heading, a muted paragraph saying what it shows, then its body.
 *  @param {Attrs} attrs @param {"h3" | "h4"} level @param {string} title @param {Child} intro
 *  @param {...Child} body */
export function section(attrs, level, title, intro, ...body) {
  return h("section", attrs, h(level, null, title), h("p", { class: "st-muted" }, intro), ...body);
}

/** Append `children` to `el`, as h() does: nodes the build's HTML already holds stay put.
 *  @template {Element} E @param {E} el @param {...Child} children */
export function add(el, ...children) {
  return append(el, children);
}

/** @template {HTMLElement | SVGElement} E @param {E} el @param {Attrs | null | undefined} attrs
 *  @param {Child[]} children */
function made(el, attrs, children) {
  if (!(making && "els" in making && adopted.has(el))) return append(apply(el, attrs), children);
  // the HTML has its attributes and children: only the listeners are the page's
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
  }
  return el;
}

// What an element's listeners act on (a lazy body's builder, a call toggle's call) is kept
// here, not in their closures: a stage that updates the DOM it has (reconcile.js) keeps an
// element whose markup did not change and hands it the data of its twin in the new build, so
// the kept element acts on the new record.
/** @type {WeakMap<Element, Record<string, any>>} */
const states = new WeakMap();

/** The data `el`'s listeners act on (made empty on first use). @param {Element} el */
export function stateOf(el) {
  let st = states.get(el);
  if (!st) states.set(el, (st = {}));
  return st;
}

/** `to` takes `from`'s place: its listeners act on `from`'s data from now on.
 *  @param {Element} from @param {Element} to */
export function handOver(from, to) {
  const st = states.get(from);
  if (st) states.set(to, st);
  else states.delete(to);
}

// A closed <details> is not drawn, and few readers open one, yet its body was a third of the
// elements each new split built (grad-mlp: the table view, 225 of 828). So its body is built
// when it first opens: on the summary's click, which comes before the details opens (no empty
// frame), or on its toggle event when it is opened some other way.

/** The body of a lazy details, made now if it is not yet. @param {Element} el */
function fill(el) {
  const st = states.get(el);
  if (!st?.build) return;
  const build = st.build;
  delete st.build;
  append(el, [build()]);
}

/** A <details> with `summary` whose body, `build()`'s nodes, is made when it first opens.
 *  @param {Attrs} attrs @param {Child} summary @param {() => Child} build */
export function lazyDetails(attrs, summary, build) {
  const el = h("details", attrs, h("summary", null, summary));
  stateOf(el).build = build;
  el.addEventListener("click", (e) => {
    if (/** @type {Element} */ (e.target).closest?.("summary")?.parentElement === el) fill(el);
  });
  el.addEventListener("toggle", () => {
    if (el.open) fill(el);
  });
  return el;
}

/** Open a details (lazyDetails' or not), its body there in the same frame.
 *  @param {HTMLDetailsElement} el */
export function openDetails(el) {
  fill(el);
  el.open = true;
}

/** Text with `code` spans, as the engine writes narration. @param {string | null | undefined} text */
export function richText(text) {
  const frag = document.createDocumentFragment();
  String(text ?? "")
    .split("`")
    .forEach((part, i) => {
      if (!part) return;
      frag.append(i % 2 ? h("code", null, part) : part);
    });
  return frag;
}

/** "line 5 · h = jnp.tanh(...)": where an equation came from in the user's code.
 *  @param {number} line @param {string | null | undefined} source */
export function sourceAnchor(line, source) {
  return h(
    "span",
    { class: "st-src", "data-testid": "eqn-source", "aria-hidden": "true" },
    h("span", { class: "st-src-n" }, `line ${line}`),
    source ? h("span", { class: "st-src-text" }, source) : null,
  );
}

/** @param {string | null | undefined} text */
export function stripTicks(text) {
  return String(text ?? "").replaceAll("`", "");
}

/** Bytes as JAX users read them: "4 B", "1.5 KiB". @param {number | null | undefined} n */
export function formatBytes(n) {
  if (n == null) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Is focus somewhere the user types (editor, form field)? Then stage keys stay out.
 *  @param {Element | null} el */
export function isTypingTarget(el) {
  if (!el || el === document.body) return false;
  if (
    (el instanceof HTMLElement && el.isContentEditable) ||
    el.closest?.("[contenteditable]:not([contenteditable=false])")
  ) {
    return true;
  }
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

const ARROW_WIDGETS = [
  "tablist",
  "tab",
  "radiogroup",
  "radio",
  "menu",
  "menubar",
  "menuitem",
  "listbox",
  "option",
  "grid",
  "tree",
  "treegrid",
  "slider",
  "spinbutton",
  "toolbar",
  "combobox",
  "scrollbar",
]
  .map((r) => `[role="${r}"]`)
  .join(",");

/** Widgets that use the arrow keys (and Home/End) themselves, or opted out of stage keys.
 *  @param {Element | null} el */
export function ownsArrowKeys(el) {
  if (!el || el === document.body) return false;
  return !!el.closest?.(`${ARROW_WIDGETS},[data-stage-keys="off"]`);
}

/** Elements where Space already means "activate": let the browser do it. @param {Element | null} el */
export function isActivatable(el) {
  if (!el || el === document.body) return false;
  const tag = el.tagName;
  return (
    tag === "BUTTON" ||
    tag === "A" ||
    tag === "SUMMARY" ||
    ["button", "link", "checkbox", "switch", "menuitem", "tab", "option"].includes(el.getAttribute?.("role") ?? "")
  );
}

/** @param {string} text @returns {Promise<boolean>} whether it was copied */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the textarea fallback
  }
  const ta = h("textarea", { readonly: true, "aria-hidden": "true", class: "st-offscreen" });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** Select the contents of an element (the last resort when copying is not allowed).
 *  @param {Node} el */
export function selectContents(el) {
  const range = document.createRange();
  range.selectNodeContents(el);
  // null only in a frame that is not displayed (Firefox)
  const sel = getSelection();
  sel?.removeAllRanges();
  sel?.addRange(range);
}

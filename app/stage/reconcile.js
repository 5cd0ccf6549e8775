// A new record of the drawn split's shape drawn by updating the DOM the stage has, not by
// replacing it. The new view is built as ever (detached), then the drawn DOM is made equal to
// it: an element whose markup did not change stays (the browser lays it out again only if
// something around it moved), the rest is patched, inserted or removed; then the new view's
// references (the panes' rows, the strip's chips, the timeline) are pointed at the elements
// that stayed. Consecutive edits of a function differ in a few equations: a transformer
// block's 2727 elements were all made and laid out again for each one (issue 46).
//
// Elements are matched among their siblings by content: a container the stage keeps across
// records (the panes, their bodies, the strip) by what it is, any other element by its tag and
// text, then taken only if its markup is the same. Such an element is kept whole with its
// listeners, which act on the data its twin in the new build was given (dom.js handOver).

import { handOver } from "./dom.js";

/** @typedef {import("./view.js").View} View */

// Elements patched in place, their children matched in turn: they have no listeners of their
// own, and hold many rows of which few change. (Anything with listeners or state, such as
// the residual list, a roving tab stop of its own, is kept only when unchanged.)
const CONTAINERS = new Set([
  "st-panes-wrap",
  "st-panes",
  "st-pane",
  "st-pane-head",
  "st-pane-title",
  "st-pane-sub",
  "st-code",
  "st-body",
  "st-line",
  "st-trace",
  "st-trace-head",
  "st-trace-list",
  "st-res",
  "st-res-head",
]);
// the scrollers among them: a new view's are at their start
const SCROLLERS = ".st-panes-wrap, .st-trace-list";

/** @param {Node} n @returns {boolean} */
const isContainer = (n) => n instanceof Element && CONTAINERS.has(n.classList[0]);

/** What a node is matched by among its siblings. @param {Node} n */
function keyOf(n) {
  if (!(n instanceof Element)) return `#${n.nodeType}${n.nodeValue}`;
  if (isContainer(n)) return `${n.localName}|${n.getAttribute("class")}|${n.getAttribute("data-pane")}`;
  return `${n.localName}|${n.textContent}`;
}

/** `kept` stands for `fresh` from now on, and so does each of its descendants for its twin
 *  (elements: what the view and the timeline refer to, and what has listeners).
 *  @param {Element} kept @param {Element} fresh @param {Map<Node, Node>} map */
function pair(kept, fresh, map) {
  map.set(fresh, kept);
  handOver(fresh, kept);
  const kk = kept.children;
  const fk = fresh.children;
  for (let i = 0; i < fk.length; i++) pair(kk[i], fk[i], map);
}

/** The container `kept` given `fresh`'s attributes and children. @param {Element} kept
 *  @param {Element} fresh @param {Map<Node, Node>} map */
function patch(kept, fresh, map) {
  map.set(fresh, kept);
  handOver(fresh, kept);
  for (const { name } of [...kept.attributes]) if (!fresh.hasAttribute(name)) kept.removeAttribute(name);
  for (const { name, value } of fresh.attributes) if (kept.getAttribute(name) !== value) kept.setAttribute(name, value);
  update(kept, fresh, map);
}

/** Make `live`'s children `fresh`'s: each of `fresh`'s children either a child of `live`
 *  that matches it (kept, or patched if a container) or itself (moved in).
 *  @param {ParentNode & Node} live @param {ParentNode & Node} fresh @param {Map<Node, Node>} map */
function update(live, fresh, map) {
  const had = [...live.childNodes];
  /** @type {Map<string, Node[]>} */
  const byKey = new Map();
  for (const n of had) {
    const k = keyOf(n);
    const list = byKey.get(k);
    if (list) list.push(n);
    else byKey.set(k, [n]);
  }
  const next = [...fresh.childNodes].map((f) => {
    const list = byKey.get(keyOf(f));
    const container = isContainer(f);
    // the same markup (attributes in any order, children in order): the browser's own compare
    const at = list ? list.findIndex((n) => container || n.isEqualNode(f)) : -1;
    if (!list || at < 0) return f;
    const [kept] = list.splice(at, 1);
    if (container) patch(/** @type {Element} */ (kept), /** @type {Element} */ (f), map);
    else if (kept instanceof Element) pair(kept, /** @type {Element} */ (f), map);
    return kept;
  });
  const staying = new Set(next);
  for (const n of had) if (!staying.has(n)) live.removeChild(n);
  let at = live.firstChild;
  for (const n of next) {
    if (n === at) at = at.nextSibling;
    else live.insertBefore(n, at);
  }
}

/** Whether a record's model `next` can be drawn by updating the drawn `drawn`'s DOM: two
 *  splits of one mode (checkpoint cards, errors and the placeholder are drawn anew).
 *  @param {import("./model.js").Model} drawn @param {import("./model.js").Model} next */
export function updatable(drawn, next) {
  const cards = (/** @type {import("./model.js").Model} */ m) => m.record != null && "policies" in m.record;
  return drawn.kind === "panes" && next.kind === "panes" && drawn.mode === next.mode && !cards(drawn) && !cards(next);
}

/**
 * Make `root`'s children the new view's `view.nodes`, keeping what is drawn there where it is
 * the same, and point the view and the timeline at what was kept.
 * @param {HTMLElement} root the stage's content, the drawn record's view in it
 * @param {View} view built for the new record, not in the document
 * @param {import("./timeline.js").Timeline} timeline the new record's
 */
export function updateDrawn(root, view, timeline) {
  // read before anything changes (no layout forced), reset after: a new view starts at the top
  const scrolled = [...root.querySelectorAll(SCROLLERS)].filter((el) => el.scrollTop || el.scrollLeft);
  const fresh = document.createDocumentFragment();
  fresh.append(...view.nodes);
  /** @type {Map<Node, Node>} */
  const map = new Map();
  update(root, fresh, map);
  for (const el of scrolled) {
    if (!el.isConnected) continue;
    el.scrollTop = 0;
    el.scrollLeft = 0;
  }
  const to = /** @type {<T>(n: T) => T} */ ((n) => /** @type {any} */ (map.get(/** @type {any} */ (n)) ?? n));
  timeline.remap(to);
  remapView(view, to);
}

/** The view's references to elements, each made the element kept in its place.
 *  @param {View} view @param {<T>(n: T) => T} to */
function remapView(view, to) {
  view.nodes = view.nodes.map(to);
  view.wrap = to(view.wrap);
  view.paneWrap = to(view.paneWrap);
  view.policies = view.policies && to(view.policies);
  view.memory = view.memory && to(view.memory);
  view.trace.el = to(view.trace.el);
  view.trace.list = to(view.trace.list);
  view.trace.chips = view.trace.chips.map(to);
  view.table.el = view.table.el && to(view.table.el);
  view.resChips = view.resChips?.map(to);
  view.resList = view.resList && to(view.resList);
  view.saved = view.saved && to(view.saved);
  for (const pv of view.panes) {
    pv.el = to(pv.el);
    pv.body = to(pv.body);
    pv.headLine = to(pv.headLine);
    pv.footLine = to(pv.footLine);
    pv.count = to(pv.count);
    pv.eqnEls = pv.eqnEls.map(to);
    pv.invarEls = pv.invarEls.map(to);
    pv.outEls = pv.outEls.map(to);
    for (const [name, el] of pv.varEls) pv.varEls.set(name, to(el));
  }
}

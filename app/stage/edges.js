// Residual edges: one SVG over the panes, one edge per residual, from where the known program
// makes it to every unknown equation that reads it, through its label.
//
// The panes scroll together inside one scroller (view.js), and the SVG scrolls with them, so
// geometry is in the panes' own coordinates and a scroll redraws nothing. `measure()` (after a
// layout change) reads every anchor once; `draw()` (after it, or a step) places the labels in
// the gutter and routes the edges:
//   - every label gets its own slot (columns of the gutter, never two in one place), as near
//     its source's height as the slots already taken allow;
//   - every end gets its own port: ends that meet one equation are spread over its height;
//   - an end further from the label than the scroller shows at once (the reader could never
//     see both) becomes a pair of stubs: an arrow from the label toward it, and a short arrow
//     into the equation, whose own tag names the residual. The edge is still drawn and counts.

import { setAttr } from "../dom-writes.js";
import { add, s } from "./dom.js";
import { placeLabels } from "./label-slots.js";

const STUB = 16; // length of a stub, px
const LABEL_H = 15; // a label's height, px

/** @typedef {{x: number, y: number}} Point */
/** @typedef {{left: number, right: number, top: number, bottom: number}} Box in the host's coordinates */
/** @typedef {{pane: number, y: number}} End where an edge meets an element: its port's height */
/**
 * One residual's edge as drawn: its elements, and (measure()) its source and judged readers' ends.
 * @typedef {object} EdgeItem
 * @property {import("./model.js").Edge} e
 * @property {SVGGElement} g
 * @property {SVGPathElement} path
 * @property {SVGPathElement} heads
 * @property {SVGPathElement} halo
 * @property {SVGGElement} label
 * @property {SVGRectElement} box
 * @property {SVGTextElement} text
 * @property {End | null} src
 * @property {Array<import("./model.js").Edge["to"][number] & {end: End}>} dsts
 */
/** @typedef {EdgeItem & {src: End}} Drawn an edge drawn: its source is on screen */
/**
 * What measure() reads of the layout: the host's size, the scroller's height, each pane's box,
 * and whether the panes are stacked (one under the other) rather than side by side.
 * @typedef {{box: {w: number, h: number}, scrollerHeight: number, panes: Box[], stacked: boolean}} Layout
 */

export class EdgeLayer {
  /**
   * @param {HTMLElement} scroller the element that scrolls the panes (the window edges are drawn for)
   * @param {HTMLElement} host the panes' element the SVG covers (position: relative)
   * @param {import("./model.js").Model} model view model (model.js)
   * @param {import("./panes.js").PaneView[]} paneViews renderPane() results, indexed like model.panes
   * @param {import("./timeline.js").Reveal} reveal reveal(el, step) from the stage
   */
  constructor(scroller, host, model, paneViews, reveal) {
    this.scroller = scroller;
    this.host = host;
    this.model = model;
    this.paneViews = paneViews;
    this.step = model.total;
    this.svg = s("svg", { class: "st-edges", "aria-hidden": "true", focusable: "false" });
    /** @type {EdgeItem[]} */
    this.items = model.edges.map((e) => {
      const path = s("path", { class: "st-edge-line" });
      const heads = s("path", { class: "st-edge-head" });
      const halo = s("path", { class: "st-edge-halo" });
      const box = s("rect", { class: "st-edge-label-box", rx: "3" });
      const text = s("text", { class: "st-edge-label", "dominant-baseline": "central" }, e.label);
      const label = s("g", { class: "st-edge-tag", "data-testid": "residual-label", "data-k": e.k }, box, text);
      const g = s(
        "g",
        { class: "st-edge", "data-testid": "residual-edge", "data-k": e.k, "data-consumers": e.consumers.join(" ") },
        halo,
        path,
        heads,
        label,
      );
      add(this.svg, g);
      reveal(g, e.reveal);
      return { e, g, path, heads, halo, label, box, text, src: null, dsts: [] };
    });
    add(host, this.svg);
    /** @type {Layout | null} */
    this.layout = null;
    this.frame = 0;
    this.dirty = true;
    this.schedule = this.schedule.bind(this);
    this.ro = new ResizeObserver(() => this.schedule(true));
    this.ro.observe(host);
    this.ro.observe(scroller);
  }

  /** The step the stage shows: consumers not judged yet have no branch. @param {number} step */
  setStep(step) {
    this.step = step;
    this.schedule(false);
  }

  /** Light an edge. @param {EdgeItem} item @param {boolean} on */
  highlight(item, on) {
    item.g.classList.toggle("is-hl", on);
  }

  schedule(layoutChanged = true) {
    if (layoutChanged) this.dirty = true;
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Draw now if a frame is pending (before a promise resolves on the drawn state). */
  flush() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!this.host.isConnected) return;
    if (this.dirty) this.measure();
    this.draw();
  }

  /** Read layout: pane boxes and every anchor, in the host's coordinates. */
  measure() {
    this.dirty = false;
    const hr = this.host.getBoundingClientRect();
    const box = { w: this.host.scrollWidth, h: this.host.scrollHeight };
    // read here, with the rest of the layout: read in draw(), after its writes, it laid the
    // page out a second time at every step (the observer marks a resized scroller dirty)
    const scrollerHeight = this.scroller.clientHeight;
    const panes = this.paneViews.map((v) => {
      const p = v.el.getBoundingClientRect();
      return { left: p.left - hr.left, right: p.right - hr.left, top: p.top - hr.top, bottom: p.bottom - hr.top };
    });
    const ends = this.edgePanes();
    const stacked = ends != null && panes[ends[1]].top >= panes[ends[0]].bottom - 1;
    this.layout = { box, scrollerHeight, panes, stacked };
    /** @param {Element | null | undefined} el @returns {Box | null} */
    const rowBox = (el) => {
      if (!el || !el.getClientRects().length) return null;
      const r = el.getBoundingClientRect();
      return { top: r.top - hr.top, bottom: r.bottom - hr.top, left: r.left - hr.left, right: r.right - hr.left };
    };
    // ends that meet one element share its height: one port each
    /** @type {Map<Element, {box: Box, pane: number, kind: string, ends: End[]}>} */
    const ports = new Map();
    /** @param {Element | null | undefined} el @param {number} pane @param {"src" | "dst"} kind
     *  @returns {End | null} */
    const port = (el, pane, kind) => {
      const box = rowBox(el);
      if (!el || !box) return null;
      const key = el;
      if (!ports.has(key)) ports.set(key, { box, pane, kind, ends: [] });
      const end = { pane, y: 0 };
      ports.get(key)?.ends.push(end);
      return end;
    };
    for (const it of this.items) {
      const e = it.e;
      it.src = null;
      it.dsts = [];
      if (e.from) {
        const v = this.paneViews[e.from.pane];
        const invar = e.from.invar != null ? v.varEls.get(e.from.invar) : null;
        const el = e.from.eqn != null ? v.eqnEls[e.from.eqn] : invar || v.headLine;
        it.src = port(el, e.from.pane, "src");
      }
      for (const t of e.to) {
        const end = port(this.paneViews[t.pane].eqnEls[t.eqn], t.pane, "dst");
        if (end) it.dsts.push({ ...t, end });
      }
    }
    for (const { box, ends } of ports.values()) {
      const h = box.bottom - box.top;
      const inset = Math.min(5, h / 4);
      ends.forEach((end, i) => {
        end.y = box.top + inset + ((i + 1) * (h - 2 * inset)) / (ends.length + 1);
      });
    }
  }

  /** The panes the edges run between, [known, unknown] (every edge leaves the one, reaches the
   *  other); null when no edge has both ends. @returns {[number, number] | null} */
  edgePanes() {
    const e = this.model.edges.find((x) => x.from && x.to.length);
    return e?.from ? [e.from.pane, e.to[0].pane] : null;
  }

  /** The gutter the labels live in: [x0, x1] in the host's coordinates. @param {Layout} layout */
  gutter(layout) {
    const ends = this.edgePanes();
    if (ends == null) return [0, 0];
    const k = layout.panes[ends[0]];
    const u = layout.panes[ends[1]];
    return layout.stacked ? [2, Math.min(k.left, u.left) - 2] : [k.right + 2, u.left - 2];
  }

  draw() {
    const layout = this.layout;
    if (!layout) return;
    setAttr(this.svg, "width", String(layout.box.w));
    setAttr(this.svg, "height", String(layout.box.h));
    setAttr(this.svg, "viewBox", `0 0 ${layout.box.w} ${layout.box.h}`);
    const [gx0, gx1] = this.gutter(layout);
    const shown = this.items.filter(
      /** @returns {it is Drawn} */ (it) => it.src != null && it.e.reveal <= this.step && this.targets(it).length > 0,
    );
    for (const it of this.items) it.g.classList.toggle("st-edge--orphan", !shown.some((d) => d === it));
    const slots = placeLabels(
      shown.map((it) => ({ want: it.src.y, width: 8 + 6.5 * it.e.label.length })),
      { x0: gx0, x1: gx1, height: LABEL_H, gap: 2, fromRight: layout.stacked },
    );
    // an end further than this from its label becomes stubs (see the top of the file)
    const reach = Math.max(160, layout.scrollerHeight * 0.6);
    shown.forEach((it, n) => this.route(it, slots[n], reach, layout));
  }

  /** @param {EdgeItem} it */
  targets(it) {
    return it.dsts.filter((d) => d.consumer < this.step);
  }

  /** One edge: source -> label -> each judged consumer, stubs for ends out of reach.
   *  @param {Drawn} it @param {{x: number, y: number, width: number}} slot its label's
   *  @param {number} reach @param {Layout} layout */
  route(it, slot, reach, layout) {
    const src = it.src;
    const k = layout.panes[src.pane];
    const L = { x: slot.x, y: slot.y };
    const parts = [];
    const heads = [];
    const out = layout.stacked ? -1 : 1; // the source is left through its pane's right side, or left
    const sx = layout.stacked ? k.left : k.right;
    parts.push(curve({ x: sx, y: src.y }, L, out, out));
    /** @type {Set<number>} */
    const far = new Set();
    for (const d of this.targets(it)) {
      const q = { x: layout.panes[d.pane].left, y: d.end.y };
      heads.push(`M ${f(q.x)} ${f(q.y)} l -7 -3.5 l 0 7 z`);
      if (Math.abs(q.y - L.y) <= reach) {
        parts.push(curve(L, q, 1, 1));
      } else {
        far.add(q.y < L.y ? -1 : 1);
        parts.push(`M ${f(q.x - STUB - 6)} ${f(q.y)} L ${f(q.x)} ${f(q.y)}`);
      }
    }
    // from the label, an arrow up (or down) toward the readers out of reach
    for (const dir of far) {
      const y0 = L.y + dir * (LABEL_H / 2 + 1);
      const y1 = y0 + dir * STUB;
      parts.push(`M ${f(L.x)} ${f(y0)} L ${f(L.x)} ${f(y1)}`);
      heads.push(`M ${f(L.x)} ${f(y1 + dir * 2)} l -3.5 ${-dir * 7} l 7 0 z`);
    }
    const d = parts.join(" ");
    setAttr(it.path, "d", d);
    setAttr(it.halo, "d", d);
    setAttr(it.heads, "d", heads.join(" "));
    const w = slot.width;
    setAttr(it.box, "x", f(L.x - w / 2));
    setAttr(it.box, "y", f(L.y - LABEL_H / 2));
    setAttr(it.box, "width", f(w));
    setAttr(it.box, "height", String(LABEL_H));
    setAttr(it.text, "x", f(L.x));
    setAttr(it.text, "y", f(L.y));
    setAttr(it.text, "text-anchor", "middle");
    setAttr(it.g, "data-stub", far.size ? "far" : null);
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.ro.disconnect();
    this.svg.remove();
  }
}

const f = (/** @type {number} */ v) => v.toFixed(1);

/** A cubic from p to q with horizontal tangents: it leaves p heading `out` (+1 right, -1
 *  left) and reaches q heading `arrive`. @param {Point} p @param {Point} q @param {number} out
 *  @param {number} arrive */
function curve(p, q, out, arrive) {
  const dx = Math.max(12, Math.abs(q.x - p.x) * 0.5);
  return `M ${f(p.x)} ${f(p.y)} C ${f(p.x + out * dx)} ${f(p.y)} ${f(q.x - arrive * dx)} ${f(q.y)} ${f(q.x)} ${f(q.y)}`;
}

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

export class EdgeLayer {
  /**
   * @param scroller   the element that scrolls the panes (the window edges are drawn for)
   * @param host       the panes' element the SVG covers (position: relative)
   * @param model      view model (model.js)
   * @param paneViews  renderPane() results, indexed like model.panes
   * @param reveal     reveal(el, step) from the stage
   */
  constructor(scroller, host, model, paneViews, reveal) {
    this.scroller = scroller;
    this.host = host;
    this.model = model;
    this.paneViews = paneViews;
    this.step = model.total;
    this.svg = s("svg", { class: "st-edges", "aria-hidden": "true", focusable: "false" });
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
    this.frame = 0;
    this.dirty = true;
    this.schedule = this.schedule.bind(this);
    this.ro = new ResizeObserver(() => this.schedule(true));
    this.ro.observe(host);
    this.ro.observe(scroller);
  }

  /** The step the stage shows: consumers not judged yet have no branch. */
  setStep(step) {
    this.step = step;
    this.schedule(false);
  }

  /** Light an edge. */
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
    this.box = { w: this.host.scrollWidth, h: this.host.scrollHeight };
    // read here, with the rest of the layout: read in draw(), after its writes, it laid the
    // page out a second time at every step (the observer marks a resized scroller dirty)
    this.scrollerHeight = this.scroller.clientHeight;
    this.panes = this.paneViews.map((v) => {
      const p = v.el.getBoundingClientRect();
      return { left: p.left - hr.left, right: p.right - hr.left, top: p.top - hr.top, bottom: p.bottom - hr.top };
    });
    const [a, b] = this.edgePanes();
    this.stacked = a != null && b != null && this.panes[b].top >= this.panes[a].bottom - 1;
    const rowBox = (el) => {
      if (!el || !el.getClientRects().length) return null;
      const r = el.getBoundingClientRect();
      return { top: r.top - hr.top, bottom: r.bottom - hr.top, left: r.left - hr.left, right: r.right - hr.left };
    };
    // ends that meet one element share its height: one port each
    const ports = new Map();
    const port = (el, pane, kind) => {
      const box = rowBox(el);
      if (!box) return null;
      const key = el;
      if (!ports.has(key)) ports.set(key, { box, pane, kind, ends: [] });
      const end = { pane, y: 0 };
      ports.get(key).ends.push(end);
      return end;
    };
    for (const it of this.items) {
      const e = it.e;
      it.src = null;
      it.dsts = [];
      if (e.from) {
        const v = this.paneViews[e.from.pane];
        const el = e.from.eqn != null ? v.eqnEls[e.from.eqn] : v.varEls.get(e.from.invar) || v.headLine;
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

  edgePanes() {
    const e = this.model.edges.find((x) => x.from && x.to.length);
    return e ? [e.from.pane, e.to[0].pane] : [null, null];
  }

  /** The gutter the labels live in: [x0, x1] in the host's coordinates. */
  gutter() {
    const [a, b] = this.edgePanes();
    if (a == null) return [0, 0];
    const k = this.panes[a];
    const u = this.panes[b];
    return this.stacked ? [2, Math.min(k.left, u.left) - 2] : [k.right + 2, u.left - 2];
  }

  draw() {
    if (!this.panes) return;
    setAttr(this.svg, "width", String(this.box.w));
    setAttr(this.svg, "height", String(this.box.h));
    setAttr(this.svg, "viewBox", `0 0 ${this.box.w} ${this.box.h}`);
    const [gx0, gx1] = this.gutter();
    const shown = this.items.filter((it) => it.src && it.e.reveal <= this.step && this.targets(it).length);
    for (const it of this.items) it.g.classList.toggle("st-edge--orphan", !shown.includes(it));
    const slots = placeLabels(
      shown.map((it) => ({ want: it.src.y, width: 8 + 6.5 * it.e.label.length })),
      { x0: gx0, x1: gx1, height: LABEL_H, gap: 2, fromRight: this.stacked },
    );
    // an end further than this from its label becomes stubs (see the top of the file)
    const reach = Math.max(160, this.scrollerHeight * 0.6);
    shown.forEach((it, n) => this.route(it, slots[n], reach));
  }

  targets(it) {
    return it.dsts.filter((d) => d.consumer < this.step);
  }

  /** One edge: source -> label -> each judged consumer, stubs for ends out of reach. */
  route(it, slot, reach) {
    const [a] = this.edgePanes();
    const k = this.panes[a];
    const L = { x: slot.x, y: slot.y };
    const parts = [];
    const heads = [];
    const out = this.stacked ? -1 : 1; // the source is left through its pane's right side, or left
    const sx = this.stacked ? k.left : k.right;
    parts.push(curve({ x: sx, y: it.src.y }, L, out, out));
    const far = new Set();
    for (const d of this.targets(it)) {
      const q = { x: this.panes[d.pane].left, y: d.end.y };
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

const f = (v) => v.toFixed(1);

/** A cubic from p to q with horizontal tangents: it leaves p heading `out` (+1 right, -1
 *  left) and reaches q heading `arrive`. */
function curve(p, q, out, arrive) {
  const dx = Math.max(12, Math.abs(q.x - p.x) * 0.5);
  return `M ${f(p.x)} ${f(p.y)} C ${f(p.x + out * dx)} ${f(p.y)} ${f(q.x - arrive * dx)} ${f(q.y)} ${f(q.x)} ${f(q.y)}`;
}

// Residual edges: one SVG over the panes, one edge per residual, from where the known program
// makes it to every unknown equation that reads it, through its label.
//
// The panes scroll together inside one scroller (view.js), and the SVG scrolls with them, so
// geometry is in the panes' own coordinates. `measure()` (after a layout change) reads every
// anchor once; `draw()` (after a scroll or a step) places the labels in the gutter and routes
// the edges, for the part of the panes the scroller shows:
//   - every label gets its own slot (columns of the gutter, never two in one place), as near
//     its source's height as the slots already taken allow;
//   - every end gets its own port: ends that meet one equation are spread over its height;
//   - an end scrolled out of view becomes a stub: a short arrow from the label pointing up or
//     down to where the end is. The edge is still drawn and still counts.

import { s } from "./dom.js";
import { placeLabels } from "./label-slots.js";

const PAD = 8; // px kept clear at the top and bottom of the visible window
const STUB = 16; // length of a stub, px

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
      this.svg.append(g);
      reveal(g, e.reveal);
      return { e, g, path, heads, halo, label, box, text, src: null, dsts: [] };
    });
    host.append(this.svg);
    this.frame = 0;
    this.dirty = true;
    this.schedule = this.schedule.bind(this);
    this.ro = new ResizeObserver(() => this.schedule(true));
    this.ro.observe(host);
    this.ro.observe(scroller);
    this.onScroll = () => this.schedule(false);
    scroller.addEventListener("scroll", this.onScroll, { passive: true });
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
    this.svg.setAttribute("width", String(this.box.w));
    this.svg.setAttribute("height", String(this.box.h));
    this.svg.setAttribute("viewBox", `0 0 ${this.box.w} ${this.box.h}`);
    const top = this.scroller.scrollTop + PAD;
    const bottom = this.scroller.scrollTop + this.scroller.clientHeight - PAD;
    const [gx0, gx1] = this.gutter();
    const shown = this.items.filter((it) => it.src && it.e.reveal <= this.step && this.targets(it).length);
    for (const it of this.items) it.g.classList.toggle("st-edge--orphan", !shown.includes(it));
    const labels = placeLabels(
      shown.map((it) => ({ want: clamp(it.src.y, top, bottom), width: 8 + 6.5 * it.e.label.length })),
      { x0: gx0, x1: gx1, top, bottom, height: 15, gap: 2, fromRight: this.stacked },
    );
    shown.forEach((it, n) => this.route(it, labels.slots[n], top, bottom));
    // more columns than the gutter holds: widen it (the panes lay out again, then a redraw)
    const want = Math.ceil(labels.columns * labels.colW + 6);
    if (labels.columns && want > gx1 - gx0 + 4 && want !== this.gutterPx) {
      this.gutterPx = want;
      this.host.style.setProperty("--st-gutter", `${want}px`);
    }
  }

  targets(it) {
    return it.dsts.filter((d) => d.consumer < this.step);
  }

  /** One edge: source -> label -> each judged consumer, stubs for ends out of view. */
  route(it, slot, top, bottom) {
    const [a] = this.edgePanes();
    const k = this.panes[a];
    const L = { x: slot.x, y: slot.y };
    const parts = [];
    const heads = [];
    const stubs = [];
    const out = this.stacked ? -1 : 1; // the source is left through its pane's right side, or left
    const sy = it.src.y;
    if (sy < top || sy > bottom) stubs.push(sy < top ? -1 : 1);
    else parts.push(curve({ x: this.stacked ? k.left : k.right, y: sy }, L, out, out));
    const targets = this.targets(it);
    for (const d of targets) {
      const q = { x: this.panes[d.pane].left, y: d.end.y };
      if (q.y < top || q.y > bottom) {
        stubs.push(q.y < top ? -1 : 1);
        continue;
      }
      parts.push(curve(L, q, 1, 1));
      heads.push(`M ${f(q.x)} ${f(q.y)} l -7 -3.5 l 0 7 z`);
    }
    // a stub per direction: from the label, an arrow up (or down) toward the ends out of view
    for (const dir of new Set(stubs)) {
      const y0 = L.y + dir * 8;
      const y1 = y0 + dir * STUB;
      parts.push(`M ${f(L.x)} ${f(y0)} L ${f(L.x)} ${f(y1)}`);
      heads.push(`M ${f(L.x)} ${f(y1 + dir * 2)} l -3.5 ${-dir * 7} l 7 0 z`);
    }
    const d = parts.join(" ");
    it.path.setAttribute("d", d);
    it.halo.setAttribute("d", d);
    it.heads.setAttribute("d", heads.join(" "));
    const w = slot.width;
    it.box.setAttribute("x", (L.x - w / 2).toFixed(1));
    it.box.setAttribute("y", (L.y - 7.5).toFixed(1));
    it.box.setAttribute("width", w.toFixed(1));
    it.box.setAttribute("height", "15");
    it.text.setAttribute("x", L.x.toFixed(1));
    it.text.setAttribute("y", L.y.toFixed(1));
    it.text.setAttribute("text-anchor", "middle");
    // "source", "consumer", or "all" when no end is in view
    if (!stubs.length) delete it.g.dataset.stub;
    else it.g.dataset.stub = stubs.length > targets.length ? "all" : sy < top || sy > bottom ? "source" : "consumer";
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.ro.disconnect();
    this.scroller.removeEventListener("scroll", this.onScroll);
    this.svg.remove();
  }
}

function clamp(v, lo, hi) {
  return Math.min(Math.max(v, lo), Math.max(lo, hi));
}

const f = (v) => v.toFixed(1);

/** A cubic from p to q with horizontal tangents: it leaves p heading `out` (+1 right, -1
 *  left) and reaches q heading `arrive`. */
function curve(p, q, out, arrive) {
  const dx = Math.max(12, Math.abs(q.x - p.x) * 0.5);
  return `M ${f(p.x)} ${f(p.y)} C ${f(p.x + out * dx)} ${f(p.y)} ${f(q.x - arrive * dx)} ${f(q.y)} ${f(q.x)} ${f(q.y)}`;
}

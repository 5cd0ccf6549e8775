// Residual edges: one SVG overlay over the panes, one <g> per (residual, consumer).
//
// Geometry is cached: `measure()` (after a resize) reads each anchor's offset inside its pane's
// scroll body once; `draw()` (after a scroll) only combines those offsets with the bodies'
// scroll positions. Both run in one requestAnimationFrame, reads before writes.

import { s } from "./dom.js";

let markerSeq = 0;

export class EdgeLayer {
  /**
   * @param wrap       element the SVG covers (position: relative)
   * @param model      view model (model.js)
   * @param paneViews  renderPane() results, indexed like model.panes
   * @param reveal     reveal(el, step) from the stage
   */
  constructor(wrap, model, paneViews, reveal) {
    this.wrap = wrap;
    this.model = model;
    this.paneViews = paneViews;
    const id = `st-arrow-${++markerSeq}`;
    this.svg = s("svg", { class: "st-edges", "aria-hidden": "true", focusable: "false" });
    const defs = s("defs", null);
    for (const variant of ["", "-hl"]) {
      defs.append(
        s(
          "marker",
          {
            id: id + variant,
            viewBox: "0 0 10 10",
            refX: "8.5",
            refY: "5",
            markerWidth: "7",
            markerHeight: "7",
            orient: "auto-start-reverse",
            markerUnits: "strokeWidth",
            class: `st-marker${variant ? " st-marker--hl" : ""}`,
          },
          s("path", { d: "M 0 0.5 L 10 5 L 0 9.5 z" }),
        ),
      );
    }
    this.svg.append(defs);
    this.markerId = id;
    this.items = model.edges.map((e) => {
      const path = s("path", { class: "st-edge-line", "marker-end": `url(#${id})` });
      const halo = s("path", { class: "st-edge-halo" });
      const text = s("text", { class: "st-edge-label", "text-anchor": "middle", dy: "0.35em" }, e.label);
      const g = s(
        "g",
        {
          class: "st-edge",
          "data-testid": "residual-edge",
          "data-k": e.k,
          "data-consumer": e.consumer,
        },
        halo,
        path,
        text,
      );
      this.svg.append(g);
      reveal(g, e.reveal);
      return { e, g, path, halo, text };
    });
    wrap.append(this.svg);
    this.frame = 0;
    this.dirty = true;
    this.schedule = this.schedule.bind(this);
    this.ro = new ResizeObserver(() => this.schedule(true));
    this.ro.observe(wrap);
    for (const v of paneViews) {
      this.ro.observe(v.el);
      v.body.addEventListener("scroll", () => this.schedule(false), { passive: true });
      v.headLine.addEventListener("scroll", () => this.schedule(true), { passive: true });
    }
  }

  /** Light an edge (its arrowhead too: markers do not follow the path's class). */
  highlight(item, on) {
    item.g.classList.toggle("is-hl", on);
    item.path.setAttribute("marker-end", `url(#${this.markerId}${on ? "-hl" : ""})`);
  }

  schedule(layoutChanged = true) {
    if (layoutChanged) this.dirty = true;
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (!this.wrap.isConnected) return;
      if (this.dirty) this.measure();
      this.draw();
    });
  }

  /** Read layout: pane body boxes (relative to wrap) and anchor offsets inside the bodies. */
  measure() {
    this.dirty = false;
    const w = this.wrap.getBoundingClientRect();
    this.box = { w: w.width, h: w.height };
    this.bodies = this.paneViews.map((v) => {
      const r = v.body.getBoundingClientRect();
      const p = v.el.getBoundingClientRect();
      return {
        left: r.left - w.left,
        right: r.right - w.left,
        top: r.top - w.top,
        bottom: r.bottom - w.top,
        paneLeft: p.left - w.left,
        paneRight: p.right - w.left,
        paneTop: p.top - w.top,
      };
    });
    const [a, b] = this.edgePanes();
    this.stacked = a != null && b != null && this.bodies[b].paneTop >= this.bodies[a].bottom - 1;
    for (const it of this.items) {
      it.src = this.anchor(it.e.from);
      it.dst = this.anchor(it.e.to);
    }
  }

  edgePanes() {
    const e = this.model.edges.find((x) => x.from && x.to);
    return e ? [e.from.pane, e.to.pane] : [null, null];
  }

  anchor(at) {
    if (!at) return null;
    const v = this.paneViews[at.pane];
    if (at.eqn != null) {
      const el = v.eqnEls[at.eqn];
      if (!el) return null;
      return { pane: at.pane, inBody: true, y: el.offsetTop + el.offsetHeight / 2 };
    }
    const el = v.varEls.get(at.invar) || v.headLine;
    const w = this.wrap.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return { pane: at.pane, inBody: false, y: r.top + r.height / 2 - w.top, x: r.right - w.left };
  }

  /** Where an anchor is now, given the current scroll of its body. */
  point(a) {
    const b = this.bodies[a.pane];
    if (!a.inBody) return { y: a.y, clipped: false };
    const y = b.top + a.y - this.scroll[a.pane];
    const pad = 6;
    const cy = Math.min(Math.max(y, b.top + pad), b.bottom - pad);
    return { y: cy, clipped: Math.abs(cy - y) > 0.5 };
  }

  draw() {
    if (!this.bodies) return;
    this.scroll = this.paneViews.map((v) => v.body.scrollTop);
    this.svg.setAttribute("viewBox", `0 0 ${this.box.w} ${this.box.h}`);
    this.svg.setAttribute("width", this.box.w);
    this.svg.setAttribute("height", this.box.h);
    for (const it of this.items) {
      if (!it.src || !it.dst) {
        it.g.classList.add("st-edge--orphan");
        continue;
      }
      const sb = this.bodies[it.src.pane];
      const tb = this.bodies[it.dst.pane];
      const p = this.point(it.src);
      const q = this.point(it.dst);
      let d;
      let lx;
      let ly;
      if (!this.stacked) {
        const sx = sb.paneRight;
        const tx = tb.paneLeft;
        const dx = Math.max(24, (tx - sx) * 0.55);
        d = `M ${sx} ${p.y} C ${sx + dx} ${p.y} ${tx - dx} ${q.y} ${tx} ${q.y}`;
        // label near the source: edges of one residual share it, edges of different ones part
        const t = 0.16 + 0.09 * (it.e.k % 4); // residuals leaving one row: labels apart
        const u = 1 - t;
        lx = u * u * u * sx + 3 * u * u * t * (sx + dx) + 3 * u * t * t * (tx - dx) + t * t * t * tx;
        ly = u * u * u * p.y + 3 * u * u * t * p.y + 3 * u * t * t * q.y + t * t * t * q.y - 7;
      } else {
        const sx = sb.paneLeft;
        const tx = tb.paneLeft;
        const depth = 12 + (it.e.k % 3) * 4;
        d = `M ${sx} ${p.y} C ${sx - depth * 1.4} ${p.y} ${tx - depth * 1.4} ${q.y} ${tx} ${q.y}`;
        lx = sx - depth * 0.9;
        ly = (p.y + q.y) / 2;
      }
      it.path.setAttribute("d", d);
      it.halo.setAttribute("d", d);
      it.text.setAttribute("x", lx.toFixed(1));
      it.text.setAttribute("y", ly.toFixed(1));
      it.g.classList.toggle("st-edge--clipped", p.clipped !== q.clipped);
      // both ends scrolled out of their panes: nothing to point at, and cheaper not to paint
      it.g.classList.toggle("st-edge--offscreen", p.clipped && q.clipped);
    }
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.ro.disconnect();
    this.svg.remove();
  }
}

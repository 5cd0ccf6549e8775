// Linked highlighting: an equation, a residual or a source line lights everything that
// belongs to it (its equations in every pane, its chip, its table row, its residual and the
// residual's edges and header variables).

import { resolveLink } from "./model.js";

/** @typedef {import("./model.js").Model} Model */
/** @typedef {import("./model.js").Link} Link */
/** @typedef {ReturnType<typeof import("./view.js").buildView>} View */

/** @param {HTMLElement} root the stage */
export function createHighlighter(root) {
  /** @type {Element[]} */
  let lit = []; // elements marked is-hl
  /** @type {import("./edges.js").EdgeItem[]} */
  let litEdges = []; // edge items lit through the edge layer (edges.js's)

  /** @param {View | null} view */
  function clear(view) {
    for (const el of lit) el.classList.remove("is-hl");
    for (const it of litEdges) view?.edges?.highlight(it, false);
    lit = [];
    litEdges = [];
    delete root.dataset.hl;
  }

  /** Light what `link` refers to; returns the first event lit (or null).
   *  @param {Model} model @param {View | null} view @param {Link | null} link @returns {number | null} */
  function apply(model, view, link) {
    clear(view);
    if (!link || !view) return null;
    const { events, residuals } = resolveLink(model, link);
    if (!events.size && !residuals.size) return null;
    const add = (/** @type {Element | null | undefined} */ el) => {
      if (!el) return;
      el.classList.add("is-hl");
      lit.push(el);
    };
    for (const i of events) {
      for (const [pi, j] of model.events[i].places) add(view.panes[pi]?.eqnEls[j]);
      add(view.trace?.chips[i]);
      add(view.table?.rows[i]);
    }
    for (const k of residuals) {
      add(view.resChips?.[k]);
      for (const pv of view.panes) for (const el of pv.resVarEls?.get(k) || []) add(el);
    }
    for (const it of view.edges?.items ?? []) {
      const e = it.e;
      const producer = model.residuals[e.k].producer;
      const byEvent =
        link.residual == null && (e.consumers.some((c) => events.has(c)) || (producer != null && events.has(producer)));
      if (residuals.has(e.k) && (link.residual != null || byEvent || link.line != null)) {
        view.edges?.highlight(it, true); // (the layer whose items these are)
        litEdges.push(it);
      }
    }
    root.dataset.hl = "on";
    const first = Math.min(...events);
    return Number.isFinite(first) ? first : null;
  }

  return { apply, clear };
}

/** The link an element of the stage's content stands for (an event or a residual), or null.
 *  @param {Model} model @param {Element} content
 *  @param {EventTarget | null} el what the pointer or focus is on (an element, or the document)
 *  @returns {Link | null} */
export function linkOf(model, content, el) {
  const t = /** @type {HTMLElement | null | undefined} */ (
    /** @type {Element | null} */ (el)?.closest?.("[data-residual], [data-event]")
  );
  if (!t || !content.contains(t)) return null;
  if (t.dataset.residual != null) {
    const k = Number(t.dataset.residual);
    const r = model.residuals[k];
    if (!r) return null;
    const line = r.producer != null ? (model.events[r.producer]?.line ?? null) : null;
    return { residual: k, event: r.producer ?? undefined, line };
  }
  const i = Number(t.dataset.event);
  const ev = model.events[i];
  return ev ? { event: i, line: ev.line ?? null } : null;
}

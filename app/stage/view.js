// The DOM of one record on the stage, built once: the policy cards (checkpoint), the legend,
// the traced strip, the panes with their residual edges, the residual list, the residual
// memory (grad, checkpoint) and the table;
// and how to scroll it (the strip and the pane bodies, never the page) to an event.

import { callToggle } from "./calls.js";
import { renderCheckpoint } from "./checkpoint.js";
import { h, openDetails } from "./dom.js";
import { EdgeLayer } from "./edges.js";
import { renderLegend } from "./legend.js";
import { renderMemory } from "./memory.js";
import { renderPane, renderTrace } from "./panes.js";
import { fillSaved, renderResidualList } from "./residual-list.js";
import { renderTable } from "./table.js";

/** @typedef {import("./model.js").Model} Model */
/** @typedef {import("./panes.js").PaneView} PaneView */
/** @typedef {(link: import("./model.js").Link | null) => void} OnLink */
/**
 * The DOM of one record (buildView): `nodes` in the order the stage shows them, and the parts
 * the stage steps, lights and scrolls.
 * @typedef {object} View
 * @property {Element[]} nodes
 * @property {HTMLElement | null} policies the policy cards (a checkpoint record)
 * @property {HTMLElement | null} memory the memory chart (grad, checkpoint)
 * @property {ReturnType<typeof renderTrace>} trace
 * @property {HTMLDivElement} wrap the panes' scroller
 * @property {HTMLDivElement} paneWrap the panes, the edges' layer over them
 * @property {PaneView[]} panes indexed like model.panes
 * @property {ReturnType<typeof renderTable>} table
 * @property {HTMLLIElement[] | undefined} resChips resChips[k]: residual k's (a split only)
 * @property {HTMLUListElement | undefined} resList
 * @property {HTMLDetailsElement | null | undefined} saved print_saved_residuals' lines
 * @property {EdgeLayer | null} edges
 */

/** The residuals each pane shows in its header and footer, by residual: Map(k -> elements).
 *  @param {Model} model @param {PaneView} pv */
function residualVars(model, pv) {
  /** @type {Map<number, Element[]>} */
  const byResidual = new Map();
  /** @param {Array<import("./model.js").ModelResidual | null>} labels
   *  @param {(j: number) => Element | undefined} elOf the element of label j */
  const label = (labels, elOf) =>
    labels.forEach((r, j) => {
      const el = r && elOf(j);
      if (!el) return;
      const els = byResidual.get(r.k) ?? [];
      if (!byResidual.has(r.k)) byResidual.set(r.k, els);
      els.push(el);
    });
  label(pv.pane.outLabels, (j) => pv.outEls[j]);
  label(pv.pane.inLabels, (j) => pv.invarEls[j]);
  if (pv.pane.role === "known") {
    // a forwarded input is its own residual: its name in the header is the edge's source
    label(
      model.residuals.map((r) => (r.from_input != null ? r : null)),
      (k) => pv.varEls.get(model.residuals[k].known_name),
    );
  }
  return byResidual;
}

/**
 * Build the record's view. `timeline` registers what each step reveals and which elements
 * belong to which event; `onLink` is handed to the policy cards. `settle(view)`, if given,
 * puts the view's elements in place before its edges are drawn over them (reconcile.js: in
 * the DOM already drawn, which then holds other elements than those built).
 * @param {Model} model @param {import("./timeline.js").Timeline} timeline @param {OnLink} onLink
 * @param {((view: View) => void) | null} [settle]
 * @returns {View}
 */
export function buildView(model, timeline, onLink, settle = null) {
  const reveal = timeline.reveal;
  const trace = renderTrace(model, reveal);
  const panes = model.panes.map((p) => renderPane(model, p, reveal));
  for (const pv of panes) {
    pv.eqnEls.forEach((el, j) => {
      const i = pv.pane.eqnEvent[j];
      if (i >= 0) timeline.belongsTo(el, i);
    });
  }
  trace.chips.forEach((c, i) => timeline.belongsTo(c, i));
  const table = renderTable(model, (rows) => rows.forEach((r, i) => timeline.belongsTo(r, i)));

  const known = model.panes.find((p) => p.role === "known");
  const unknown = model.panes.find((p) => p.role === "unknown");
  const split = known != null && unknown != null;
  const lastSplitPane = Math.max(...model.panes.map((p, i) => (p.role !== "other" ? i : -1)));
  // the residual edges run in a gutter before the unknown program
  const paneWrap = h(
    "div",
    { class: "st-panes", "data-count": String(panes.length), "data-edges": split },
    panes.map((pv) => [
      split && pv === panes[unknown.index] ? h("div", { class: "st-gutter", "aria-hidden": "true" }) : null,
      pv.el,
      // the calls opened from these programs, at their whole width, before a backward program
      pv.pane.index === lastSplitPane ? h("div", { class: "st-opened", "data-testid": "opened-calls" }) : null,
    ]),
  );
  // one scroller for every pane: the programs scroll together, and the edges with them
  const wrap = h("div", { class: "st-panes-wrap", "data-testid": "panes" }, paneWrap);
  const residuals = split ? renderResidualList(model, reveal) : null;
  const { policies, memory } = policyNodes(model.record, onLink);
  const nodes = [policies, renderLegend(model.mode), trace.el, wrap, residuals?.el, memory, table.el];
  /** @type {View} */
  const view = {
    nodes: nodes.filter((n) => n != null),
    policies,
    memory,
    trace,
    wrap,
    paneWrap,
    panes,
    table,
    resChips: residuals?.chips,
    resList: residuals?.list,
    saved: residuals?.saved,
    edges: null,
  };
  settle?.(view);
  for (const pv of view.panes) pv.resVarEls = residualVars(model, pv);
  if (model.edges.length) view.edges = new EdgeLayer(view.wrap, view.paneWrap, model, view.panes, reveal);
  return view;
}

/** The policy cards (checkpoint) and the memory chart (grad, checkpoint) of a record.
 *  @param {import("../contract/record.js").EngineRecord} record @param {OnLink} onLink */
function policyNodes(record, onLink) {
  const ckpt = "policies" in record && Array.isArray(record.policies) ? record : null;
  const policies = ckpt ? renderCheckpoint(ckpt, { onLink, animated: true }) : null;
  const lines = record.memory ?? [];
  const memory = lines.length ? renderMemory(lines, ckpt?.selected ?? "", ckpt?.pending_policies ?? []) : null;
  return { policies, memory };
}

/** Draw the cards and the memory chart of `record` in place of the view's: the same split
 *  with more policies answered, everything else of the view left as it is (none drawn: nothing).
 *  @param {View | null} view @param {import("../contract/record.js").CheckpointRecord} record
 *  @param {OnLink} onLink */
export function renewPolicies(view, record, onLink) {
  const next = policyNodes(record, onLink);
  for (const part of /** @type {const} */ (["policies", "memory"])) {
    if (!view?.[part] || !next[part]) continue; // a checkpoint record has both, from its first answer
    const focus = carryOver(view[part], next[part]);
    view[part].replaceWith(next[part]);
    view[part] = next[part];
    focus?.focus({ preventScroll: true });
  }
}

/** The model of `record`, the record drawn completed (app/page/pending-whole.js): each call's
 *  row in the view given the toggle it would have had, the saved residuals their lines; the
 *  split, its step and its marks stay as they are.
 *  @param {View | null} view @param {Model} model
 *  @param {{events: import("../contract/record.js").Event[], saved_residuals?: import("../contract/record.js").SavedResidual[] | null}} record
 *  @returns {Model} */
export function completeView(view, model, record) {
  const events = model.events.map((ev, i) => (record.events[i]?.call ? { ...ev, call: record.events[i].call } : ev));
  for (const pv of view?.panes ?? []) {
    pv.eqnEls.forEach((li, j) => {
      const call = events[pv.pane.eqnEvent[j]]?.call;
      if (!call || li.querySelector(".st-call-toggle")) return;
      let tags = li.querySelector(".st-eqn-tags");
      if (!tags) li.append((tags = h("span", { class: "st-eqn-tags" })));
      tags.append(callToggle(li, call, 1));
    });
  }
  if (view?.saved && Array.isArray(record.saved_residuals)) fillSaved(view.saved, record.saved_residuals);
  return { ...model, record, events };
}

/** What the reader did in a card drawn anew, carried to the new card of the same policy: its
 *  programs stay open; returns the control to focus once it is in place (if one had it).
 *  @param {Element} from @param {Element} to */
function carryOver(from, to) {
  /** The element of `to` that is `el` of `from`: the same policy's, `sel`'s in the same place.
   *  @param {Element} el @param {string} sel */
  const twin = (el, sel) => {
    const card = el.closest("[data-policy]");
    const name = card?.getAttribute("data-policy");
    if (!card || name == null) return null;
    const next = to.querySelector(`[data-policy="${CSS.escape(name)}"]`);
    return next?.querySelectorAll(sel)[[...card.querySelectorAll(sel)].indexOf(el)] ?? null;
  };
  for (const d of from.querySelectorAll("details[open]")) {
    const t = twin(d, "details");
    if (t) openDetails(/** @type {HTMLDetailsElement} */ (t));
  }
  const focused = document.activeElement;
  return focused && from.contains(focused)
    ? /** @type {HTMLElement | null} */ (twin(focused, "button, summary, [tabindex]"))
    : null;
}

/** How far down the page the stage's sticky controls reach (rows above it are hidden).
 *  @param {View} view */
function stickyBottom(view) {
  const top = view.wrap.closest(".stage")?.querySelector(".st-top");
  if (!top || getComputedStyle(top).position !== "sticky") return 0;
  return Math.max(0, top.getBoundingClientRect().bottom);
}

/** Scroll the panes' scroller, then the page if it must, so `el` is in view: inside the
 *  scroller, and on screen below the sticky controls.
 *  @param {View | null} view @param {Element | null | undefined} el @param {boolean} [page] */
export function scrollRowIntoView(view, el, page = true) {
  if (!view || !el || !el.getClientRects().length) return;
  const sc = view.wrap;
  const r = el.getBoundingClientRect();
  const box = sc.getBoundingClientRect();
  if (r.top < box.top || r.bottom > box.bottom) {
    sc.scrollTop += r.top - box.top - (sc.clientHeight - r.height) / 2;
  }
  if (!page) return;
  const row = el.getBoundingClientRect();
  const top = stickyBottom(view) + 8;
  const bottom = innerHeight - 8;
  if (row.top < top) scrollBy({ top: row.top - top, behavior: "instant" });
  else if (row.bottom > bottom) scrollBy({ top: Math.min(row.bottom - bottom, row.top - top), behavior: "instant" });
}

/** Scroll the strip and the panes so event i is visible (its first place on screen).
 *  @param {View | null} view @param {Model} model @param {number} i @param {boolean} [page] */
export function keepInView(view, model, i, page = false) {
  if (!view) return;
  const chip = view.trace?.chips[i];
  if (chip) {
    const list = view.trace.list;
    const l = chip.offsetLeft;
    const r = l + chip.offsetWidth;
    if (l < list.scrollLeft || r > list.scrollLeft + list.clientWidth) {
      list.scrollLeft = Math.max(0, l - list.clientWidth / 2 + chip.offsetWidth / 2);
    }
  }
  const place = model.events[i].places.at(-1);
  if (place) scrollRowIntoView(view, view.panes[place[0]]?.eqnEls[place[1]], page);
}

/** Scrubbing: scroll once per frame, for the latest step only, inside the frame's own layout.
 *  `current()` gives the view and model drawn.
 *  @param {() => {view: View | null, model: Model}} current @returns {(i: number, page: boolean) => void} */
export function frameScroller(current) {
  let frame = 0;
  let target = -1;
  let onPage = false;
  return (i, page) => {
    target = i;
    onPage = page;
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const { view, model } = current();
      if (target >= 0 && target < model.total) keepInView(view, model, target, onPage);
    });
  };
}

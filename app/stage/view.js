// The DOM of one record on the stage, built once: the policy cards (checkpoint), the legend,
// the traced strip, the panes with their residual edges, the residual list and the table;
// and how to scroll it (the strip and the pane bodies, never the page) to an event.

import { renderCheckpoint } from "./checkpoint.js";
import { h } from "./dom.js";
import { EdgeLayer } from "./edges.js";
import { renderLegend } from "./legend.js";
import { renderPane, renderTrace } from "./panes.js";
import { renderResidualList } from "./residual-list.js";
import { renderTable } from "./table.js";

/** The residuals each pane shows in its header and footer, by residual: Map(k -> elements). */
function residualVars(model, pv) {
  const byResidual = new Map();
  const label = (labels, elOf) =>
    labels.forEach((r, j) => {
      const el = r && elOf(j);
      if (!el) return;
      if (!byResidual.has(r.k)) byResidual.set(r.k, []);
      byResidual.get(r.k).push(el);
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
 * belong to which event; `onLink` is handed to the policy cards.
 * @returns {{nodes: Element[], trace, panes, table, resChips, edges}}
 */
export function buildView(model, timeline, onLink) {
  const reveal = timeline.reveal;
  const trace = renderTrace(model, reveal);
  const panes = model.panes.map((p) => renderPane(model, p, reveal));
  for (const pv of panes) {
    pv.eqnEls.forEach((el, j) => {
      const i = pv.pane.eqnEvent[j];
      if (i >= 0) timeline.belongsTo(el, i);
    });
    pv.resVarEls = residualVars(model, pv);
  }
  trace.chips.forEach((c, i) => timeline.belongsTo(c, i));
  const table = renderTable(model);
  table.rows.forEach((r, i) => timeline.belongsTo(r, i));

  const paneWrap = h(
    "div",
    { class: "st-panes", "data-count": String(panes.length) },
    panes.map((pv) => pv.el),
  );
  const wrap = h("div", { class: "st-panes-wrap" }, paneWrap);
  const known = model.panes.find((p) => p.role === "known");
  const unknown = model.panes.find((p) => p.role === "unknown");
  if (known && unknown) {
    paneWrap.insertBefore(h("div", { class: "st-gutter", "aria-hidden": "true" }), panes[unknown.index].el);
    paneWrap.dataset.edges = "";
  }
  const residuals = known && unknown ? renderResidualList(model, reveal) : null;
  const edges = model.edges.length ? new EdgeLayer(wrap, model, panes, reveal) : null;
  const policies = Array.isArray(model.record.policies)
    ? renderCheckpoint(model.record, { onLink, animated: true })
    : null;
  const nodes = [policies, renderLegend(model.mode), trace.el, wrap, residuals?.el, table.el];
  return { nodes: nodes.filter(Boolean), trace, panes, table, resChips: residuals?.chips, edges };
}

/** Scroll a pane body (never the page) so its equation j is visible. */
export function scrollBodyTo(view, pi, j) {
  const pv = view?.panes[pi];
  const el = pv?.eqnEls[j];
  if (!el) return;
  const body = pv.body;
  const t = el.offsetTop;
  const b = t + el.offsetHeight;
  if (t < body.scrollTop || b > body.scrollTop + body.clientHeight) {
    body.scrollTop = Math.max(0, t - body.clientHeight / 2 + el.offsetHeight / 2);
  }
}

/** Scroll the strip and the pane bodies so event i is visible. */
export function keepInView(view, model, i) {
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
  for (const [pi, j] of model.events[i].places) scrollBodyTo(view, pi, j);
}

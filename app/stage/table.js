// The split as a real table: the text-mode view and the screen-reader view of the diagram.

import { formatBytes, h, lazyDetails, richText } from "./dom.js";
import { SIDE_BADGE, SIDE_LABEL } from "./model.js";
import { badgeRole } from "./panes.js";
import { modeOf } from "../modes.js";

/** @typedef {import("./model.js").Model} Model */

/** @param {Model} model @param {import("./model.js").ModelEvent} ev */
function residualCell(model, ev) {
  /** @type {Element[]} */
  const parts = [];
  /** @param {number} k @param {string} verb */
  const mk = (k, verb) => {
    const r = model.residuals[k];
    return h(
      "span",
      { class: "st-table-res" },
      `${verb} `,
      h("span", { class: "st-rtag" }, r.label),
      ` ${r.known_name} → ${r.unknown_name} (${r.aval}, ${formatBytes(r.bytes)})`,
    );
  };
  for (const k of ev.produces) parts.push(mk(k, "produces"));
  for (const k of ev.residuals || []) if (!ev.produces.includes(k)) parts.push(mk(k, "creates"));
  for (const k of ev.reads) if (!(ev.residuals || []).includes(k)) parts.push(mk(k, "reads"));
  return parts.length ? parts : "—";
}

/** Returns {el, rows[]}: the table view, its body built when it first opens (lazyDetails);
 *  until then rows is empty. `onRows(rows)` is told when they are made; rows[i] is event i's
 *  <tr>.
 *  @param {Model} model @param {(rows: Element[]) => void} onRows */
export function renderTable(model, onRows) {
  /** @type {{el: Element | null, rows: Element[]}} */
  const view = { el: null, rows: [] };
  view.el = lazyDetails({ class: "st-table-wrap" }, "Table view", () => {
    view.rows = tableRows(model);
    onRows(view.rows);
    return tableBody(model, view.rows);
  });
  return view;
}

/** @param {Model} model @returns {Element[]} */
function tableRows(model) {
  const isJit = Boolean(modeOf(model.mode)?.staged);
  return model.events.map((ev) =>
    h(
      "tr",
      { "data-event": ev.i, "data-side": ev.side },
      h("td", { class: "st-num" }, ev.i + 1),
      h("th", { scope: "row" }, h("code", null, ev.short || ev.eqn)),
      h("td", { class: "st-num" }, ev.line ?? "—"),
      h(
        "td",
        null,
        h(
          "span",
          { class: `st-badge st-badge--${badgeRole(ev.side)}`, "aria-hidden": "true" },
          SIDE_BADGE[ev.side] ?? "?",
        ),
        " ",
        SIDE_LABEL[ev.side] ?? ev.side,
      ),
      h("td", null, richText(ev.narration || "")),
      isJit ? null : h("td", null, residualCell(model, ev)),
    ),
  );
}

/** @param {Model} model @param {Element[]} rows */
function tableBody(model, rows) {
  const isJit = Boolean(modeOf(model.mode)?.staged);
  const caption = isJit
    ? "Every traced equation and how jit staged it."
    : "Every traced equation, in trace order: which program it went to, why, and the " + "residuals it made or reads.";
  const head = h(
    "tr",
    null,
    h("th", { scope: "col" }, "Step"),
    h("th", { scope: "col" }, "Equation"),
    h("th", { scope: "col" }, "Line"),
    h("th", { scope: "col" }, isJit ? "Result" : "Program"),
    h("th", { scope: "col" }, "Reason"),
    isJit ? null : h("th", { scope: "col" }, "Residuals"),
  );
  const table = h(
    "table",
    { class: "st-table", "data-testid": "split-table" },
    h("caption", null, caption),
    h("thead", null, head),
    h("tbody", null, rows),
  );
  const total = model.residuals.reduce((a, r) => a + (r.bytes || 0), 0);
  const summary = isJit
    ? null
    : h(
        "p",
        { class: "st-table-sum" },
        `${model.residuals.length} residual${model.residuals.length === 1 ? "" : "s"}, ` +
          `${formatBytes(total)} in all.`,
      );
  return [
    h("div", { class: "st-table-scroll", tabindex: "0", role: "region", "aria-label": "Table view (scrolls)" }, table),
    summary,
  ];
}

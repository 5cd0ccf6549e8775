// The residual list under the panes: one chip per residual (known name → unknown name, type,
// bytes, value, where it came from), and what JAX's print_saved_residuals would print.

import { formatBytes, h } from "./dom.js";
import { accountData, accountText } from "./memory-account.js";
import { madeBy } from "./model.js";

/** @typedef {import("./model.js").Model} Model */
/** @typedef {import("./model.js").ModelResidual} ModelResidual */
/** @typedef {import("./timeline.js").Reveal} Reveal */
/** @typedef {import("../contract/record.js").SavedResidual} SavedResidual */

/** @param {Model} model @param {ModelResidual} r */
function origin(model, r) {
  if (r.from_input != null) return `the known input ${r.from_input}, forwarded as is`;
  const made = madeBy(model, r);
  return made ? `computed by ${madeText(made)}` : "a known value";
}

/** "b = sin a, line 5" @param {NonNullable<ReturnType<typeof madeBy>>} m */
const madeText = (m) => `${m.short}${m.line != null ? `, line ${m.line}` : ""}`;

/** @param {Model} model @param {ModelResidual} r @param {Reveal} reveal */
function chip(model, r, reveal) {
  const made = madeBy(model, r);
  const readers = r.consumers.map((c) => model.events[c].unknown_short?.[0] ?? model.events[c].short).join("; ");
  const li = h(
    "li",
    {
      class: "st-rchip",
      "data-residual": r.k,
      "data-testid": "residual-chip",
      tabindex: "-1",
      "data-from-input": r.from_input != null ? "true" : null,
      "aria-label":
        `Residual ${r.label}: known ${r.known_name} becomes unknown input ` +
        `${r.unknown_name}, ${r.aval}, ${formatBytes(r.bytes)}; ${origin(model, r)}` +
        `${readers ? `; read by ${readers}` : ""}.`,
    },
    h("span", { class: "st-rtag" }, r.label),
    h(
      "code",
      { class: "st-rflow" },
      h("span", { class: "st-rname st-rname--known", title: "name in the known program's outputs" }, r.known_name),
      h("span", { class: "st-arrow", "aria-hidden": "true" }, " → "),
      h(
        "span",
        { class: "st-rname st-rname--unknown", title: "name among the unknown program's inputs" },
        r.unknown_name,
      ),
    ),
    h("span", { class: "st-aval" }, r.aval),
    h("span", { class: "st-bytes" }, formatBytes(r.bytes)),
    r.value != null ? h("span", { class: "st-value", title: `value: ${r.value}` }, `= ${r.value}`) : null,
    h(
      "span",
      { class: "st-rorigin st-muted" },
      r.from_input != null ? `input ${r.from_input}` : made ? `from ${madeText(made)}` : "",
    ),
  );
  reveal(li, r.reveal);
  return li;
}

/** @param {SavedResidual[]} saved */
const savedLines = (saved) => saved.map((r) => `${r.aval} ${r.description}`).join("\n");

/** What JAX's print_saved_residuals would print for this function (grad and checkpoint
 *  records); null (an edit's first grad answer) is a placeholder that fillSaved completes.
 *  @param {SavedResidual[] | null | undefined} saved the record's (a split has none) */
function savedResiduals(saved) {
  if (saved !== null && (!Array.isArray(saved) || !saved.length)) return null;
  return h(
    "details",
    { class: "st-saved", "data-testid": "saved-residuals", "aria-busy": saved === null ? "true" : null },
    h("summary", null, "In JAX's words: ", h("code", null, "jax.ad_checkpoint.print_saved_residuals")),
    h("pre", { class: "st-pre", tabindex: "0" }, saved === null ? "tracing it…" : savedLines(saved)),
  );
}

/** The placeholder of savedResiduals given its lines (none: it goes).
 *  @param {Element} el @param {SavedResidual[]} saved */
export function fillSaved(el, saved) {
  if (!saved.length) {
    el.remove();
    return;
  }
  /** @type {HTMLPreElement} */ (el.querySelector("pre")).textContent = savedLines(saved);
  el.removeAttribute("aria-busy");
}

/** The residual section: {el, chips, list, saved} (chips[k] is residual k's; saved: the
 *  print_saved_residuals block, or null).
 *  @param {Model} model @param {Reveal} reveal */
export function renderResidualList(model, reveal) {
  const rs = model.residuals;
  const account = model.record.memory_account;
  const chips = rs.map((r) => chip(model, r, reveal));
  const summary = rs.length
    ? h(
        "span",
        { class: "st-muted", "data-testid": "residual-total", ...accountData(account) },
        `${rs.length} known value${rs.length === 1 ? "" : "s"} handed to the unknown program · ` +
          `${accountText(account)} · shown as known name → unknown name`,
      )
    : h("span", { class: "st-muted" }, "none: the unknown program reads no known values");
  const saved = savedResiduals(model.record.saved_residuals);
  const list = h("ul", { class: "st-res-list", "aria-label": "Residuals: arrow keys move between them" }, chips);
  const el = h(
    "section",
    { class: "st-res", "data-testid": "residuals" },
    h("div", { class: "st-res-head" }, h("h3", null, "Residuals"), summary),
    list,
    saved,
  );
  return { el, chips, list, saved };
}

// "Next unknown" and "next/previous residual": where each jumps to (pure, no DOM).

import { badgeRole } from "./panes.js";
import { madeBy } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/** The step that shows the next (dir 1) or previous (dir -1) unknown equation after `step`,
 *  wrapping around; null when no equation is unknown.
 *  @param {Model} model @param {number} step @param {number} [dir] @returns {number | null} */
export function unknownStep(model, step, dir = 1) {
  const n = model.total;
  for (let d = 1; d <= n; d++) {
    const s = ((((step - 1 + dir * d) % n) + n) % n) + 1;
    const side = badgeRole(model.events[s - 1].side);
    if (side === "unknown" || side === "both") return s;
  }
  return null;
}

/** The residual after (dir 1) or before (dir -1) residual k (null: none selected yet).
 *  @param {Model} model @param {number | null} k @param {number} [dir] @returns {number | null} */
export function residualAfter(model, k, dir = 1) {
  const n = model.residuals.length;
  if (!n) return null;
  if (k == null) return dir > 0 ? 0 : n - 1;
  return (((k + dir) % n) + n) % n;
}

/** What the narration says about a residual. @param {Model} model @param {number} k */
export function residualText(model, k) {
  const r = model.residuals[k];
  const made = madeBy(model, r);
  const from =
    r.from_input != null
      ? `the known input ${r.from_input}, forwarded`
      : made
        ? `made by the known program's \`${made.short}\`${made.line != null ? ` (line ${made.line})` : ""}`
        : "a known value";
  // the readers as the unknown program prints them (the names the reader sees there)
  const readers = r.consumers
    .map((c) => `\`${model.events[c].unknown_short?.[0] ?? model.events[c].short}\``)
    .join(", ");
  return (
    `Residual ${r.label} of ${model.residuals.length}: known \`${r.known_name}\` becomes unknown ` +
    `input \`${r.unknown_name}\` (${r.aval}, ${r.bytes} B), ${from}` +
    `${readers ? `; read by ${readers}` : ""}.`
  );
}

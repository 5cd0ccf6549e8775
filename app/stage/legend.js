// The legend above the traced strip: what the colours, badges and arrows mean.

import { h, s } from "./dom.js";
import { modeOf } from "../modes.js";

/** @param {string} cls @param {string | null} badgeText @param {string} name @param {string} text */
function item(cls, badgeText, name, text) {
  return h(
    "li",
    { class: `st-legend-item ${cls}` },
    badgeText ? h("span", { class: `st-badge st-badge--${cls}`, "aria-hidden": "true" }, badgeText) : null,
    h("span", { class: "st-legend-swatch", "aria-hidden": "true" }),
    h("strong", null, name),
    " ",
    h("span", { class: "st-muted" }, text),
  );
}

/** @param {string | null} mode */
export function renderLegend(mode) {
  if (modeOf(mode)?.staged) {
    return h(
      "ul",
      { class: "st-legend", "aria-label": "Legend" },
      item("staged", "S", "Staged", "every operation becomes an equation; nothing runs now"),
    );
  }
  return h(
    "ul",
    { class: "st-legend", "aria-label": "Legend" },
    item("known", "K", "Known", "solid: all inputs known, runs now"),
    item("unknown", "U", "Unknown", "dashed: needs an unknown input, staged for later"),
    h(
      "li",
      { class: "st-legend-item residual" },
      s(
        "svg",
        { class: "st-legend-edge", viewBox: "0 0 40 12", "aria-hidden": "true" },
        s("path", { class: "st-edge-line", d: "M 2 6 L 30 6" }),
        s("path", { class: "st-legend-arrow", d: "M 30 1.5 L 38 6 L 30 10.5 z" }),
      ),
      h("strong", null, "Residual"),
      " ",
      h("span", { class: "st-muted" }, "dotted arrow: a known value the unknown program reads"),
    ),
  );
}

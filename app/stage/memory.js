// The residual memory view (grad and checkpoint): residual bytes kept (activations + inputs
// kept, memory-account.js) over the forward then the backward pass, one line per policy on shared axes, so a reader sees what a policy buys
// (a lower peak) and what it costs (equations recomputed). SVG, coloured by CSS custom
// properties (both themes), with an accessible name and the numbers as a table beside it.

import { POLICY_ROWS } from "../contract/values.js";
import { add, formatBytes, h, lazyDetails, s, section } from "./dom.js";
import { accountData, accountText } from "./memory-account.js";

/** @typedef {import("../contract/record.js").MemoryLine} MemoryLine */
/** @typedef {MemoryLine & {hue: number}} ChartLine a line as drawn: its colour (and dashes) */

const W = 640;
const H = 220;
const M = { left: 64, right: 12, top: 12, bottom: 34 };
const LINES = 8; // --mem-0 .. --mem-7 (JAX has 7 policies); dashes tell lines apart without colour
const DASHES = ["", "6 4", "2 3", "10 3 2 3", "1 5", "8 2", "4 2 1 2", "12 4"];

/**
 * @param {MemoryLine[]} memory
 * @param {string} selected the policy the stage shows (its line is drawn on top, thicker)
 * @param {string[]} pending policies whose lines are still being computed (held in the legend)
 */
export function renderMemory(memory, selected = "", pending = []) {
  // plain grad's one line has no policy name; a policy keeps its colour whatever else is drawn
  /** @type {ChartLine[]} */
  const lines = memory.map((l, n) => {
    const rank = POLICY_ROWS.indexOf(l.policy);
    return { ...l, label: l.label || "grad", hue: (rank < 0 ? n : rank) % LINES };
  });
  // each step holds its bytes until the next one: a step line, step i over [i, i + 1)
  const steps = Math.max(1, ...lines.map((l) => l.points.length));
  const peak = Math.max(1, ...lines.map((l) => l.peak_bytes));
  const x = (/** @type {number} */ i) => M.left + (i / steps) * (W - M.left - M.right);
  const y = (/** @type {number} */ b) => H - M.bottom - (b / peak) * (H - M.top - M.bottom);
  const titleId = `st-mem-${Math.random().toString(36).slice(2, 8)}`;
  const summary = lines.map((l) => `${l.label}: peak ${accountText(l.account)}, ${l.recomputed} recomputed`).join("; ");

  const svg = s("svg", {
    class: "st-mem-chart",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-labelledby": titleId,
    "data-testid": "memory-chart",
  });
  add(
    svg,
    s(
      "title",
      { id: titleId },
      `Residual bytes kept over the forward and backward pass, activations + inputs kept. ${summary}.`,
    ),
  );
  // axes: bytes (0, half, peak) and the turn from forward to backward
  for (const b of [0, peak / 2, peak]) {
    add(
      svg,
      s("line", { class: "st-mem-grid", x1: M.left, x2: W - M.right, y1: y(b), y2: y(b) }),
      s(
        "text",
        { class: "st-mem-tick", x: M.left - 6, y: y(b), "text-anchor": "end", "dominant-baseline": "central" },
        formatBytes(Math.round(b)),
      ),
    );
  }
  // the forward passes are alike (a policy changes what is saved, not what runs forward)
  const turn = lines[0]?.points.findIndex((p) => p.phase === "backward") ?? -1;
  if (turn > 0) {
    add(
      svg,
      s("line", { class: "st-mem-turn", x1: x(turn), x2: x(turn), y1: M.top, y2: H - M.bottom }),
      s("text", { class: "st-mem-tick", x: (M.left + x(turn)) / 2, y: H - 10, "text-anchor": "middle" }, "forward"),
      s(
        "text",
        { class: "st-mem-tick", x: (x(turn) + W - M.right) / 2, y: H - 10, "text-anchor": "middle" },
        "backward",
      ),
    );
  }
  const order = lines
    .map((l, n) => n)
    .sort((a, b) => Number(lines[a].policy === selected) - Number(lines[b].policy === selected));
  for (const n of order) {
    const l = lines[n];
    add(
      svg,
      s("polyline", {
        class: `st-mem-line${l.policy === selected ? " is-selected" : ""}`,
        "data-testid": "memory-line",
        "data-policy": l.policy,
        style: `--mem: var(--mem-${l.hue})`,
        "stroke-dasharray": DASHES[l.hue] || null,
        points: l.points
          .map((p, i) => `${x(i).toFixed(1)},${y(p.bytes).toFixed(1)} ${x(i + 1).toFixed(1)},${y(p.bytes).toFixed(1)}`)
          .join(" "),
      }),
    );
  }

  const legend = h(
    "ul",
    { class: "st-mem-legend" },
    lines.map((l) =>
      h(
        "li",
        {
          style: `--mem: var(--mem-${l.hue})`,
          class: l.policy === selected ? "is-selected" : null,
          "data-testid": "memory-total",
          "data-policy": l.policy,
          ...accountData(l.account),
        },
        h("span", { class: "st-mem-swatch", "aria-hidden": "true" }),
        `${l.label}: peak ${accountText(l.account)}, ${l.recomputed} equation${l.recomputed === 1 ? "" : "s"} recomputed`,
      ),
    ),
    pending.map((name) =>
      h("li", { class: "st-muted", "data-testid": "memory-pending", "aria-busy": "true" }, `${name}: computing…`),
    ),
  );
  return section(
    { class: "st-mem", "data-testid": "memory" },
    "h3",
    "Residual memory",
    "Residual bytes kept after each step, activations + inputs kept: the inputs kept are held " +
      "throughout; the activations pile up on the forward pass and are freed as the backward pass reads them.",
    svg,
    legend,
    memoryTable(lines),
  );
}

/** The chart's numbers: one row per step, one column per line. @param {ChartLine[]} lines */
function memoryTable(lines) {
  return lazyDetails({ class: "st-table-wrap" }, "Memory as a table", () => {
    const longest = lines.reduce((a, l) => (l.points.length > a.points.length ? l : a), lines[0]);
    const rows = (longest?.points ?? []).map((p, i) =>
      h(
        "tr",
        null,
        h("th", { scope: "row" }, `${i} (${p.phase})`),
        lines.map((l) => h("td", null, l.points[i] ? formatBytes(l.points[i].bytes) : "")),
      ),
    );
    const table = h(
      "table",
      { class: "st-table", "data-testid": "memory-table" },
      h("caption", null, "Residual bytes kept after each step (activations + inputs kept)"),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { scope: "col" }, "step"),
          lines.map((l) => h("th", { scope: "col" }, l.label)),
        ),
      ),
      h("tbody", null, rows),
    );
    return h(
      "div",
      { class: "st-table-scroll", tabindex: "0", role: "region", "aria-label": "Memory table (scrolls)" },
      table,
    );
  });
}

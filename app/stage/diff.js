// What changed between two splits of the same function (an edit, a flipped input): the
// equations that moved to the other program or are new, the residuals that are new or gone.
// Events are matched by what they are (primitive, source line, and which occurrence of that
// pair), not by printed names, which shift with every edit.

import { h } from "./dom.js";
import { badgeRole } from "./panes.js";

const DIFF_MS = 4000; // how long what changed since the last split stays marked

/** @typedef {import("./model.js").Model} Model */
/** @typedef {import("./model.js").ModelResidual} ModelResidual */
/** @typedef {ReturnType<typeof import("./view.js").buildView>} View */
/**
 * @typedef {{flipped: Map<number, string>, added: Set<number>, newResiduals: Set<number>,
 *            gone: ModelResidual[], summary: string}} Diff
 */

/** @param {Model} model */
const eventKeys = (model) => {
  /** @type {Map<string, number>} */
  const seen = new Map();
  return model.events.map((ev) => {
    const base = `${ev.primitive}@${ev.line ?? "-"}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}#${n}`;
  });
};

/** @param {Model} model @param {string[]} keys */
function residualKeys(model, keys) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  return model.residuals.map((r) => {
    // (a residual with no producer: keys[-1] is undefined too)
    const base = r.from_input != null ? `in:${r.from_input}` : `${keys[r.producer ?? -1] ?? "-"}:${r.aval}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}#${n}`;
  });
}

/**
 * @param {Model | null} prev @param {Model} next
 * @returns {Diff | null} null when the two are not comparable (another
 *           function, another mode) or nothing changed
 */
function diffModels(prev, next) {
  if (!prev || prev.kind !== "panes" || next.kind !== "panes") return null;
  if (prev.mode !== next.mode || prev.record.fn !== next.record.fn) return null;
  const pk = eventKeys(prev);
  const nk = eventKeys(next);
  const before = new Map(pk.map((k, i) => [k, prev.events[i]]));
  /** @type {Map<number, string>} */
  const flipped = new Map(); // event -> the side it had before
  /** @type {Set<number>} */
  const added = new Set();
  nk.forEach((k, i) => {
    const old = before.get(k);
    if (!old) added.add(i);
    else if (badgeRole(old.side) !== badgeRole(next.events[i].side)) flipped.set(i, old.side);
  });
  const prk = residualKeys(prev, pk);
  const nrk = residualKeys(next, nk);
  const newResiduals = new Set(nrk.flatMap((k, i) => (prk.includes(k) ? [] : [i])));
  const gone = prev.residuals.filter((_, i) => !nrk.includes(prk[i]));
  const removed = pk.filter((k) => !nk.includes(k)).length;
  if (!flipped.size && !added.size && !newResiduals.size && !gone.length && !removed) return null;
  const n = (/** @type {number} */ count, /** @type {string} */ one, many = `${one}s`) =>
    `${count} ${count === 1 ? one : many}`;
  const toKnown = [...flipped.keys()].filter((i) => badgeRole(next.events[i].side) === "known").length;
  /** @type {string[]} */
  const parts = [];
  if (toKnown) parts.push(`${n(toKnown, "equation")} moved to the known program`);
  if (flipped.size - toKnown) parts.push(`${n(flipped.size - toKnown, "equation")} moved to the unknown program`);
  if (added.size) parts.push(`${n(added.size, "new equation")}`);
  if (removed) parts.push(`${n(removed, "equation")} gone`);
  if (newResiduals.size)
    parts.push(`${n(newResiduals.size, "new residual")} (${[...newResiduals].map((k) => `r${k}`).join(", ")})`);
  if (gone.length) parts.push(`${n(gone.length, "residual")} gone`);
  return { flipped, added, newResiduals, gone, summary: `Since the last split: ${parts.join("; ")}.` };
}

/** Mark what changed on the view for a moment; returns a function that clears the marks.
 *  @param {View} view @param {Model} model @param {Diff} diff
 *  @param {{onGone: (r: ModelResidual) => Element}} handlers */
function markDiff(view, model, diff, { onGone }) {
  /** @type {Array<HTMLElement | SVGElement>} */
  const marked = [];
  /** @param {HTMLElement | SVGElement | null | undefined} el @param {string} kind */
  const mark = (el, kind) => {
    if (!el) return;
    el.dataset.diff = kind;
    marked.push(el);
  };
  for (const [i, was] of diff.flipped) {
    for (const [pi, j] of model.events[i].places) mark(view.panes[pi]?.eqnEls[j], "flipped");
    const chip = view.trace?.chips[i];
    mark(chip, "flipped");
    if (chip) chip.title = `${chip.title} (was ${was})`;
  }
  for (const i of diff.added) {
    for (const [pi, j] of model.events[i].places) mark(view.panes[pi]?.eqnEls[j], "new");
    mark(view.trace?.chips[i], "new");
  }
  for (const k of diff.newResiduals) {
    mark(view.resChips?.[k], "new");
    mark(view.edges?.items[k]?.g, "new");
  }
  const goneEls = diff.gone.map((r) => onGone(r));
  return () => {
    for (const el of marked) delete el.dataset.diff;
    for (const el of goneEls) el?.remove();
  };
}

/** The chip of a residual the last split had and this one does not, for the residual list.
 *  @param {ModelResidual} r */
function goneChip(r) {
  return h(
    "li",
    { class: "st-rchip st-rchip--gone is-on", "data-testid": "residual-gone", "data-diff": "gone" },
    h("span", { class: "st-rtag" }, r.label),
    h("code", null, `${r.known_name} → ${r.unknown_name}`),
    h("span", { class: "st-muted" }, `${r.aval}: gone`),
  );
}

/** What changed since the last split, said in its `note` and marked on the view for a moment. */
export function createDiffMarks() {
  const note = h("p", { class: "st-diff-note", "data-testid": "diff-summary", "aria-live": "polite", hidden: true });
  let clear = () => {};
  let timer = 0;
  const stop = () => {
    clearTimeout(timer);
    clear();
    clear = () => {};
  };
  return {
    note,
    /** The new split `model` drawn in `view`, after `prev` (null: nothing to compare).
     *  @param {Model | null} prev @param {Model} model @param {View | null} view */
    show(prev, model, view) {
      stop();
      const diff = diffModels(prev, model);
      note.hidden = !diff;
      note.textContent = diff?.summary ?? "";
      if (!diff || !view) return; // a diff is of two splits drawn: there is a view
      clear = markDiff(view, model, diff, {
        onGone: (r) => {
          const gone = goneChip(r);
          view.resList?.append(gone);
          return gone;
        },
      });
      timer = setTimeout(() => {
        stop();
        note.hidden = true;
      }, DIFF_MS);
    },
    stop,
  };
}

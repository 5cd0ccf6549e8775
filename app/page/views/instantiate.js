// Split mode's per-output instantiate (JAX's `instantiate` argument of
// partial_eval_jaxpr_nounits): one toggle per output of the traced program. A known output
// that is forced moves into the unknown program, which then returns it, and its value crosses
// over as a residual. Outputs that are unknown anyway have nothing to force.

import { setHidden } from "../../dom-writes.js";
import { modeOf } from "../../modes.js";

/** @typedef {import("../update.js").PageState} PageState */
/** @typedef {import("../../contract/record.js").SplitRecord} SplitRecord */

/**
 * @param {HTMLElement} root the bar (data-testid="instantiate")
 * @param {{getState: () => PageState, dispatch: (change: object) => void}} deps
 * @returns {(state: PageState) => void} render
 */
export function createInstantiate(root, { getState, dispatch }) {
  // the bar's list of toggles (index.html): always there
  const list = /** @type {Element} */ (root.querySelector(".instantiate-outputs"));

  /** @param {number} i @param {number} count */
  function toggle(i, count) {
    const cur = getState().doc.instantiate;
    const next = Array.from({ length: count }, (_, j) => (j === i ? !cur[j] : Boolean(cur[j])));
    dispatch({ type: "instantiate", instantiate: next, run: "now" });
  }

  return function render(s) {
    // a split record (its mode says so), while the page is in a mode whose outputs may be forced
    const rec =
      modeOf(s.doc.mode)?.instantiate && s.record?.mode === s.doc.mode ? /** @type {SplitRecord} */ (s.record) : null;
    const outs = rec ? rec.program.outvars : [];
    const forced = rec?.instantiate ?? [];
    const outUnknowns = rec?.out_unknowns ?? [];
    // a bar of disabled toggles only says "nothing to force": shown when one can act
    setHidden(root, !outs.some((_, i) => !outUnknowns[i] || forced[i]));
    if (root.hidden) return;
    list.replaceChildren(
      ...outs.map((v, i) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "instantiate-toggle";
        b.dataset.testid = `instantiate-${i}`;
        const on = Boolean(forced[i]);
        const unknownAnyway = outUnknowns[i] && !on;
        b.setAttribute("aria-pressed", String(on));
        b.disabled = unknownAnyway;
        const name = document.createElement("code");
        name.textContent = v.name;
        const what = document.createElement("span");
        what.className = "instantiate-what";
        what.textContent = unknownAnyway ? "unknown" : on ? "forced unknown" : "known";
        b.append(`out ${i} `, name, " ", what);
        b.title = unknownAnyway
          ? "This output is computed by the unknown program already"
          : on
            ? "Let this output stay in the known program"
            : "Force this output into the unknown program (instantiate)";
        b.addEventListener("click", () => toggle(i, outs.length));
        return b;
      }),
    );
  };
}

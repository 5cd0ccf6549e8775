// Checkpoint mode steps inside the remat: the checkpointed function is one remat2 equation
// in every pane, so the steps are its inner split's equations. The call is opened (under
// the programs, calls.js) and each step shows the inner equations judged so far, the one
// just judged marked, as the outer programs do; the outer programs stay whole.

import { openCall } from "./calls.js";
import { insideCall, insideModel } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/**
 * Show the outer programs whole, open the record's remat call, and turn the model into one
 * whose steps are its inner events: the timeline is reset to step `at` of them (the step the
 * build's first frame shows, or 0).
 * @param {import("./view.js").View | null} view @param {Model} model
 * @param {import("./timeline.js").Timeline} timeline @param {number} at
 * @returns {Model} the model to step (`inside.split`: the opened remat)
 */
export function enterInside(view, model, timeline, at) {
  const call = insideCall(model.record);
  if (!call || !view) return model;
  timeline.showAll();
  for (const pv of view.panes) pv.showStep(model.total);
  view.edges?.setStep(model.total);
  const [pi, j] = model.events[0]?.places?.[0] ?? [];
  const row = pi != null ? view.panes[pi]?.eqnEls[j] : null;
  const btn = row?.querySelector('[data-testid="call-toggle"]');
  // opened as the build's first frame has it opened too: the same elements made in turn
  if (btn) openCall(btn);
  const split = view.wrap.querySelector('.st-opened > [data-testid="call-split"]');
  split?.setAttribute("data-inside", "");
  const inner = insideModel(model);
  if (inner.inside) inner.inside.split = split; // (it has one: the call is there)
  timeline.reset(inner.total, at);
  return inner;
}

/** The opened remat at `step` of its inner events: the row of the event just judged.
 *  @param {Model} model @param {number} step @returns {Element | null} */
export function showInside(model, step) {
  const split = model.inside?.split;
  if (!split?.isConnected) return null;
  let current = null;
  const rows = split.querySelectorAll(':scope > [role="group"] > .st-call-panes [data-testid="eqn"]');
  for (const li of rows) {
    const e = /** @type {HTMLElement} */ (li).dataset.innerEvent;
    const i = e == null || e === "" ? null : Number(e);
    li.classList.toggle("is-on", i == null ? step === model.total : i < step);
    const now = i != null && i === step - 1;
    li.classList.toggle("is-current", now);
    if (now && !current) current = li;
  }
  return current;
}

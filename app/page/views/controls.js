// The controls above the stage: the mode tabs and their options, the examples menu, the
// mode's blurb and the inputs panel. Each dispatches what the reader did.

import { setText } from "../../dom-writes.js";
import { mountExamples } from "../../examples.js";
import { createInputs } from "../../inputs.js";
import { modeOf } from "../../modes.js";
import { createModes } from "./mode-tabs.js";
import { isKnown, soleDifferentiated, stateFromExample } from "../../state.js";

// how the engine words "no argument differentiated" (the record contract, issue 12)
const NO_ARGNUMS = /^choose at least one input to differentiate/;

/**
 * The page's elements the controls draw into (the page's, and the build's first frame's).
 * @param {(sel: string) => any} $ querySelector of the page's document
 */
export const controlElements = ($) => ({
  modes: $("#modes"),
  examples: $('[data-testid="examples"]'),
  blurb: $("#mode-blurb"),
  inputs: $('[data-testid="inputs"]'),
  inputsNote: $('[data-testid="inputs-note"]'),
});

/**
 * @param {{modes: Element, examples: HTMLSelectElement, blurb: Element, inputs: Element,
 *          inputsNote: HTMLElement}} els
 * @param {import("../../examples.js").Examples} examples examples.json
 * @param {() => import("../update.js").PageState} getState
 * @param {(change: object) => void} dispatch
 */
export function createControls(els, examples, getState, dispatch) {
  const inputs = createInputs(els.inputs, {
    modeNote: els.inputsNote,
    onToggle(name) {
      const doc = getState().doc;
      // aria-disabled: jit has no mask, and grad differentiates at least one input
      if (modeOf(doc.mode)?.mask === "none" || soleDifferentiated(doc, name)) return;
      dispatch({ type: "known", name, known: !isKnown(doc, name), run: "now" });
    },
    onValue(name, text) {
      dispatch({ type: "value", name, text, run: "debounced" });
    },
  });
  const modes = createModes(els.modes, {
    onMode: (/** @type {string} */ mode) => dispatch({ type: "mode", mode, run: "now" }),
    onFolding: (/** @type {boolean} */ on) => dispatch({ type: "folding", on, run: "now" }),
    onPolicy: (/** @type {string} */ policy) => dispatch({ type: "policy", policy, run: "now" }),
  });
  const menu = mountExamples(els.examples, examples, (ex) =>
    dispatch({ type: "load", doc: stateFromExample(ex), exampleId: ex.id, byUser: true, run: "now" }),
  );

  /** @param {import("../update.js").PageState} s */
  return function render(s) {
    const message = s.error?.message ?? "";
    modes.render(s.doc);
    menu.show(s.exampleId);
    setText(els.blurb, modeOf(s.doc.mode)?.blurb ?? "");
    inputs.render({
      // the inputs of the function the engine read last (an edit's, once the engine has read it)
      params: s.signature?.params ?? [],
      state: s.doc,
      record: s.record,
      mode: s.doc.mode,
      // grad/checkpoint with no input differentiated: the toggles are at fault, not a value
      ...(NO_ARGNUMS.test(message)
        ? { badInput: null, toggleError: message }
        : { badInput: s.error?.input ?? null, toggleError: null }),
    });
  };
}

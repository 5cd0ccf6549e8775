// The embed's caption over the stage. An embed hides the mode tabs, and a read-only one the
// inputs too, so without it a reader sees "Forward / Linear" with no word of which transform
// made them or which inputs it differentiates. One line, from the link's state alone.
import { setText } from "../../dom-writes.js";
import { jaxWords, modeOf } from "../../modes.js";

/** @typedef {import("../update.js").Doc} Doc */
/** @typedef {import("../../modes.js").Mode} Mode */

/** Names joined as a reader says them: "x", "x and y", "x, W and b". @param {string[]} names */
function listed(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** A mode's own option in words, as the doc sets it. @type {Record<string, (doc: Doc) => string>} */
const OPTION_WORDS = {
  folding: (doc) => (doc.folding ? " (eager constant folding on)" : ""),
  policy: (doc) => ` (policy ${doc.policy})`,
};

/** What a mode's programs are of, by what its toggles mean (app/modes.js's `mask`), given the
 *  inputs marked known and those unknown.
 *  @type {Record<string, (doc: Doc, mode: Mode, known: string[], unknown: string[]) => string>} */
const CAPTIONS = {
  known: (doc, mode, known, unknown) =>
    `Partial evaluation: ${known.length ? `${listed(known)} known` : "no input known"}; ` +
    `${unknown.length ? `${listed(unknown)} unknown` : "no input unknown"}.`,
  none: (doc, mode) =>
    `${jaxWords(mode)}: every input is a parameter, so every operation is staged${option(doc, mode)}.`,
  argnums: (doc, mode, known, unknown) =>
    `${jaxWords(mode)}${option(doc, mode)} with respect to ${differentiated(known, unknown)}.`,
};

/** @param {Doc} doc @param {Mode} mode */
function option(doc, mode) {
  return mode.option ? OPTION_WORDS[mode.option](doc) : "";
}

/** @param {string[]} known @param {string[]} unknown */
function differentiated(known, unknown) {
  if (!unknown.length) return "no input (choose one)";
  return known.length ? `${listed(unknown)}; ${listed(known)} held fixed` : listed(unknown);
}

/** The caption's text for a doc (state.js's Doc: mode, known, policy, folding). @param {Doc} doc */
export function captionText(doc) {
  const names = Object.keys(doc.known);
  const known = names.filter((n) => doc.known[n]);
  const unknown = names.filter((n) => !doc.known[n]);
  const mode = modeOf(doc.mode);
  return mode ? CAPTIONS[mode.mask](doc, mode, known, unknown) : "";
}

/**
 * createEmbedCaption(before) puts the caption before `before` (the stage).
 * @param {Element} before
 */
export function createEmbedCaption(before) {
  const p = document.createElement("p");
  p.className = "embed-caption";
  p.dataset.testid = "embed-caption";
  before.before(p);
  return {
    /** @param {{doc: import("../update.js").Doc}} state */
    render(state) {
      setText(p, captionText(state.doc));
    },
  };
}

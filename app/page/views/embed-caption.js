// The embed's caption over the stage. An embed hides the mode tabs, and a read-only one the
// inputs too, so without it a reader sees "Forward / Linear" with no word of which transform
// made them or which inputs it differentiates. One line, from the link's state alone.
import { setText } from "../../dom-writes.js";

/** @typedef {import("../update.js").Doc} Doc */

/** Names joined as a reader says them: "x", "x and y", "x, W and b". @param {string[]} names */
function listed(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** What each mode's programs are of, given the inputs marked known and those unknown.
 *  @type {Record<string, (doc: Doc, known: string[], unknown: string[]) => string>} */
const CAPTIONS = {
  split: (doc, known, unknown) =>
    `Partial evaluation: ${known.length ? `${listed(known)} known` : "no input known"}; ` +
    `${unknown.length ? `${listed(unknown)} unknown` : "no input unknown"}.`,
  jit: (doc) =>
    `jax.jit: every input is a parameter, so every operation is staged` +
    `${doc.folding ? " (eager constant folding on)" : ""}.`,
  grad: (doc, known, unknown) => `jax.grad with respect to ${differentiated(known, unknown)}.`,
  checkpoint: (doc, known, unknown) =>
    `jax.checkpoint with policy ${doc.policy}, differentiated with respect to ` + `${differentiated(known, unknown)}.`,
};

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
  return (CAPTIONS[doc.mode] ?? (() => ""))(doc, known, unknown);
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

// The guided tour's path: the seed's five questions in order, each answered by a live part of
// the page, said in terms of the reader's current function. Pure (tests/js/tour_steps.mjs).
//
//   tourSteps(record) -> [{id, question, targets, text}]   targets: selectors, first present wins

import { MODE_TABLE, modeOf } from "../modes.js";

/** @import { EngineAnswer, EngineRecord, Event, Residual } from "../contract/record.js" */

const KNOWN = new Set(["known", "known-dropped"]);
const UNKNOWN = new Set(["unknown", "unknown-dropped"]);

/** @param {number} n @param {string} one @param {string} [many] */
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const code = (/** @type {string} */ s) => `\`${s}\``;

/** What the record says of the reader's function: counts by side, its residuals, an example.
 *  @param {EngineRecord | null} record */
function facts(record) {
  /** @type {Event[]} */
  const events = record && "events" in record && Array.isArray(record.events) ? record.events : [];
  /** @type {Residual[]} */
  const residuals = record && "residuals" in record && Array.isArray(record.residuals) ? record.residuals : [];
  const known = events.filter((e) => KNOWN.has(e.side));
  const mode = modeOf(record?.mode) ?? MODE_TABLE.split;
  // argnums modes trace the function's JVP: its events are the tangents' too
  const jvp = mode.mask === "argnums";
  return {
    mode: record?.mode ?? "split",
    n: events.length,
    known,
    unknown: events.filter((e) => UNKNOWN.has(e.side)),
    both: events.filter((e) => e.side === "both"),
    staged: mode.staged,
    // what the events are of: the function itself (split, jit) or its JVP (the argnums modes)
    primal: !jvp,
    traced: jvp ? `Under ${mode.label}, your function with its tangents traced` : "Your function traced",
    residuals,
    renamed: residuals.find((r) => r.known_name !== r.unknown_name) ?? null,
  };
}

/** @typedef {ReturnType<typeof facts>} Facts */

/** @param {Facts} f */
function whatSplits(f) {
  if (!f.n) return "Your function has no traced equations yet: type one in the editor and this step follows it.";
  if (f.staged) {
    return `In jit mode all ${plural(f.n, "equation")} of your function are staged: nothing is known at a jit boundary. Switch to split or grad to see the rule divide them.`;
  }
  const both = f.both.length ? `, ${f.both.length} split in two (a call)` : "";
  return (
    `${f.traced} ${plural(f.n, "equation")}: ${f.known.length} ran now (known) and ` +
    `${f.unknown.length} were staged (unknown)${both}. One unknown input makes an equation unknown. ` +
    "Press Predict on the stage to guess each one before it lands."
  );
}

/** @param {Facts} f */
function whatCrosses(f) {
  if (f.staged) return "jit has no residuals: nothing is known, so nothing crosses. Switch to split or grad.";
  if (!f.residuals.length) {
    return "Your split has no residuals: no staged equation reads a known value. Flip an input to unknown and one appears.";
  }
  const shown = f.residuals.slice(0, 3).map((r) => `${code(r.known_name)} (${r.aval}, ${r.bytes} B)`);
  const more = f.residuals.length > 3 ? ", ..." : "";
  return (
    `Your split has ${plural(f.residuals.length, "residual")}: ${shown.join(", ")}${more}. ` +
    "Each is computed by the known program and read by the unknown one; under grad these are the activations kept for the backward pass."
  );
}

/** @param {Facts} f */
function whyNoFolding(f) {
  const { primal } = f; // the events are the function's own
  const all = primal ? `all ${plural(f.n, "equation")} of your function are` : "every equation of your function is";
  const example = f.known.length ? code(f.known[0].short) : null;
  const runNow = !example
    ? ""
    : primal
      ? ` ${f.known.length} of them have only known inputs here and still become equations, ${example} among them.`
      : ` Even ${example}, which runs now in this ${f.mode} split, becomes an equation.`;
  return (
    `Inside jit ${all} staged, literals and all.${runNow} ` +
    "Only device_put, convert_element_type and stage fold while tracing; XLA folds the rest later."
  );
}

/** @param {Facts} f */
function whereVariables(f) {
  const r = f.renamed;
  const example = r
    ? ` In your split the same value is ${code(r.known_name)} in the known program and ${code(r.unknown_name)} in the unknown one.`
    : "";
  return `A jaxpr variable has no name: the letters are the printer's, given as it walks.${example} This demo traces your function and lists where each variable came from.`;
}

/** @param {Facts} f */
function twoInterpreters(f) {
  const split = f.staged
    ? ""
    : ` In ${f.mode} mode JaxprTrace ran ${f.known.length} of these ${f.n} equations and recorded ${f.n - f.known.length}; DynamicJaxprTrace would record all ${f.n}.`;
  return `JaxprTrace computes what it can and records the rest; DynamicJaxprTrace computes nothing.${split} This demo runs both on your function.`;
}

const PATH = [
  {
    id: "rule",
    question: "What is partial evaluation in JAX?",
    targets: ['[data-testid="stage"]'],
    say: whatSplits,
  },
  {
    id: "residuals",
    question: "What is a residual in JAX autodiff?",
    targets: ['[data-testid="residuals"]', '[data-testid="demo-residuals"]'],
    say: whatCrosses,
  },
  {
    id: "constant-folding",
    question: "Why does JAX not constant-fold inside jit?",
    targets: ['[data-testid="demo-folding"]'],
    say: whyNoFolding,
  },
  {
    id: "variables",
    question: "Where does a jaxpr get its variables?",
    targets: ['[data-testid="demo-variables"]'],
    say: whereVariables,
  },
  {
    id: "interpreters",
    question: "What is the difference between JaxprTrace and DynamicJaxprTrace?",
    targets: ['[data-testid="demo-interpreters"]'],
    say: twoInterpreters,
  },
];

/**
 * The five steps on the reader's current record (null before the first answer).
 * @param {EngineAnswer | null} record
 * @returns {{id: string, question: string, targets: string[], text: string}[]}
 */
export function tourSteps(record) {
  const f = facts(!record || "error" in record ? null : record);
  return PATH.map(({ say, ...step }) => ({ ...step, text: say(f) }));
}

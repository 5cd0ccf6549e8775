// Predict, then reveal: the reader guesses where each traced equation lands before it does.
// A pure state machine over the stage's events (no DOM; tests/js/predict_machine.mjs runs it).
//
//   let s = startPredict(model.events, model.mode);
//   s = answerSide(s, "unknown");          // K / U / B: known, unknown, or both (a call that splits)
//   s = answerResiduals(s, ["a"]);          // only at a mixed equation: which operands cross
//   s.at                                    // events settled: the stage may show steps 0..s.at
//   scoreOf(s)                              // {right, asked, sides, residuals}
//
// The truth is the record's own: an event's side (the engine's judgement), and at a mixed
// equation its staged operands (the record's `staged_operands`): what its equation reads in
// the unknown pane, in that pane's names, the ones with a residual crossing from the known
// program. The question, the reveal and the engine's narration all speak in those names.

/** @typedef {"known" | "unknown" | "both"} Side */
/** @typedef {import("../contract/record.js").Event} Event */
/** @typedef {import("../contract/record.js").StagedOperand} StagedOperand */
/**
 * @typedef {object} Question
 * @property {number} i the event asked
 * @property {string} short its equation as traced (the strip's names)
 * @property {string} staged a mixed equation as the unknown pane runs it ("" otherwise)
 * @property {number | null} line the user's line
 * @property {Side} truth
 * @property {string[]} operands a mixed equation's operands, in the unknown pane's names
 * @property {string[]} sources where each operand comes from, in the user's terms (no answer in it)
 * @property {string[]} residuals the operands that are residuals
 * @property {string} reason the engine's narration, and the mode's why
 * @typedef {{side: Side, sideRight: boolean, residuals: string[] | null, residualsRight: boolean | null}} Answer
 * @typedef {Answer & {i: number}} Settled an answer and the question it answers
 * @typedef {object} PredictState
 * @property {string} key
 * @property {Question[]} questions
 * @property {number} at questions settled (the stage shows at most this step)
 * @property {"side" | "residuals" | "done"} phase
 * @property {Answer[]} answers answers[i]: question i's
 * @property {Settled | null} last the answer just settled (or half settled: a mixed equation's side)
 * @typedef {{right: number, asked: number}} Tally
 */

/** Where each side the engine reports lands, as the reader is asked it.
 *  @type {Record<string, Side>} */
const TRUTH = {
  known: "known",
  "known-dropped": "known",
  unknown: "unknown",
  "unknown-dropped": "unknown",
  staged: "unknown", // jit: nothing is known at its boundary, every equation is staged
  both: "both",
};

/** Why, in words, beyond the event's own narration (keyed by the engine's side).
 *  @type {Record<string, string>} */
const WHY = {
  staged: "Under jit nothing is known: DynamicJaxprTrace evaluates nothing and stages every operation.",
  both: "A call's rule splits its inner program: part runs now, part is staged.",
};

/** @type {Record<Side, string>} */
export const SIDE_WORD = { known: "known", unknown: "unknown", both: "both" };

/** Where an operand comes from, as the reader wrote it; says nothing of which side has it.
 *  @param {StagedOperand} o */
const sourceOf = (o) => (o.arg != null ? `argument ${o.arg}` : o.line != null ? `from line ${o.line}` : "a constant");

/**
 * One question per event (a call opened in place is asked as one equation, as the stage steps it).
 * @param {Event[]} events the stage model's events
 * @returns {Question[]}
 */
export function questionsOf(events) {
  return events.map((ev, i) => {
    const truth = TRUTH[ev.side] ?? "unknown";
    const staged = ev.staged_operands ?? [];
    // mixed: staged, and some operand its unknown-pane equation reads is a residual
    const mixed = truth === "unknown" && staged.some((o) => o.residual != null);
    const asked = mixed ? staged : [];
    return {
      i,
      short: ev.short ?? ev.eqn ?? "",
      staged: mixed ? (ev.unknown_short ?? []).join("; ") : "",
      line: ev.line ?? null,
      truth,
      operands: asked.map((o) => o.name),
      sources: asked.map(sourceOf),
      residuals: asked.filter((o) => o.residual != null).map((o) => o.name),
      reason: [ev.narration ?? "", WHY[ev.side] ?? ""].filter(Boolean).join(" "),
    };
  });
}

/** A signature of the events: a different split (another function, mask or mode) starts over.
 *  @param {Event[]} events @param {string | null} [mode] */
export function eventsKey(events, mode = null) {
  return `${mode}\n${events.map((e) => `${e.side}|${e.short ?? e.eqn}`).join("\n")}`;
}

/**
 * @param {Event[]} events
 * @param {string | null} [mode]
 * @returns {PredictState}
 */
export function startPredict(events, mode = null) {
  return {
    key: eventsKey(events, mode),
    questions: questionsOf(events),
    at: 0,
    phase: events.length ? "side" : "done",
    answers: [],
    last: null,
  };
}

/** The question being asked, or null when every one is settled.
 *  @param {PredictState} state @returns {Question | null} */
export function current(state) {
  return state.phase === "done" ? null : state.questions[state.at];
}

/** @param {PredictState} state @param {Answer} answer @returns {PredictState} */
function settle(state, answer) {
  const answers = [...state.answers];
  answers[state.at] = answer;
  const at = state.at + 1;
  return {
    ...state,
    answers,
    at,
    phase: at >= state.questions.length ? "done" : "side",
    last: { ...answer, i: state.at },
  };
}

/**
 * The reader's known/unknown/both guess for the current question.
 * @param {PredictState} state
 * @param {Side} guess
 * @returns {PredictState}
 */
export function answerSide(state, guess) {
  const q = current(state);
  if (!q || state.phase !== "side" || !(guess in SIDE_WORD)) return state;
  /** @type {Answer} */
  const answer = { side: guess, sideRight: guess === q.truth, residuals: null, residualsRight: null };
  if (q.residuals.length) return { ...state, phase: "residuals", last: { ...answer, i: state.at } };
  return settle(state, answer);
}

/**
 * The reader's choice of the operands that become residuals (the current, mixed question).
 * @param {PredictState} state
 * @param {string[]} names
 * @returns {PredictState}
 */
export function answerResiduals(state, names) {
  const q = current(state);
  if (!q || state.phase !== "residuals" || !state.last) return state;
  const picked = q.operands.filter((n) => names.includes(n));
  const right = picked.length === q.residuals.length && picked.every((n) => q.residuals.includes(n));
  return settle(state, { ...state.last, residuals: picked, residualsRight: right });
}

/** Right answers out of questions asked, in all and by kind.
 *  @param {PredictState} state @returns {Tally & {sides: Tally, residuals: Tally}} */
export function scoreOf(state) {
  // a mixed equation's side counts as soon as it is answered, before its residuals are
  const half = state.phase === "residuals" && state.last ? [state.last] : [];
  const done = [...state.answers.filter(Boolean), ...half];
  const sides = { right: done.filter((a) => a.sideRight).length, asked: done.length };
  const res = done.filter((a) => a.residualsRight != null);
  const residuals = { right: res.filter((a) => a.residualsRight).length, asked: res.length };
  return { right: sides.right + residuals.right, asked: sides.asked + residuals.asked, sides, residuals };
}

/** The reveal of the answer just given (state.last): right or not, the truth and, once the
 *  question is settled, the rule's reason (backticks are code).
 *  @param {PredictState} state */
export function revealText(state) {
  const a = state.last;
  if (!a) return "";
  const q = state.questions[a.i];
  const side = `${a.sideRight ? "Right" : "Not this time"}: it is ${SIDE_WORD[q.truth]}.`;
  if (a.residuals == null) {
    return q.residuals.length ? `${side} Now: which of its operands become residuals?` : `${side} ${q.reason}`;
  }
  const names = q.residuals.map((n) => `\`${n}\``).join(", ");
  const verb = q.residuals.length === 1 ? "becomes a residual" : "become residuals";
  return `${side} ${a.residualsRight ? "Right" : "Not this time"}: ${names} ${verb}. ${q.reason}`;
}

/** The closing line: the score, in words.
 *  @param {PredictState} state */
export function scoreText(state) {
  const s = scoreOf(state);
  const res = s.residuals.asked ? `; residuals ${s.residuals.right} of ${s.residuals.asked}` : "";
  return `You predicted ${s.right} of ${s.asked}: known or unknown ${s.sides.right} of ${s.sides.asked}${res}.`;
}

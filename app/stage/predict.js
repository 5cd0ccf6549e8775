// Predict, then reveal: the reader guesses where each traced equation lands before it does.
// A pure state machine over the stage's events (no DOM; tests/js/predict_machine.mjs runs it).
//
//   let s = startPredict(model.events, model.mode);
//   s = answerSide(s, "unknown");          // K / U / B: known, unknown, or both (a call that splits)
//   s = answerResiduals(s, ["c"]);          // only at a mixed equation: which operands cross
//   s.at                                    // events settled: the stage may show steps 0..s.at
//   scoreOf(s)                              // {right, asked, sides, residuals}
//
// The truth is the record's own: an event's side (the engine's judgement), and at a mixed
// equation the known operands that are not literals, which the split rule instantiates as
// residuals (the same operands the engine's narration names).

/** @typedef {"known" | "unknown" | "both"} Side */

/** Where each side the engine reports lands, as the reader is asked it. */
const TRUTH = {
  known: "known",
  "known-dropped": "known",
  unknown: "unknown",
  "unknown-dropped": "unknown",
  staged: "unknown", // jit: nothing is known at its boundary, every equation is staged
  both: "both",
};

/** Why, in words, beyond the event's own narration (keyed by the engine's side). */
const WHY = {
  staged: "Under jit nothing is known: DynamicJaxprTrace evaluates nothing and stages every operation.",
  both: "A call's rule splits its inner program: part runs now, part is staged.",
};

export const SIDE_WORD = { known: "known", unknown: "unknown", both: "both" };

/**
 * One question per event (a call opened in place is asked as one equation, as the stage steps it).
 * @param {any[]} events the stage model's events
 */
export function questionsOf(events) {
  return events.map((ev, i) => {
    const truth = TRUTH[ev.side] ?? "unknown";
    const vars = (ev.inputs ?? []).filter((x) => x.origin !== "literal");
    const operands = [...new Set(vars.map((x) => x.name))];
    const known = new Set(vars.filter((x) => x.known).map((x) => x.name));
    // mixed: staged although some operand is known, so those known operands cross as residuals
    const mixed = truth === "unknown" && known.size > 0 && (ev.residuals ?? []).length > 0;
    return {
      i,
      short: ev.short ?? ev.eqn ?? "",
      line: ev.line ?? null,
      truth,
      operands: mixed ? operands : [],
      residuals: mixed ? operands.filter((n) => known.has(n)) : [],
      reason: [ev.narration ?? "", WHY[ev.side] ?? ""].filter(Boolean).join(" "),
    };
  });
}

/** A signature of the events: a different split (another function, mask or mode) starts over. */
export function eventsKey(events, mode = null) {
  return `${mode}\n${events.map((e) => `${e.side}|${e.short ?? e.eqn}`).join("\n")}`;
}

/**
 * @param {any[]} events
 * @param {string | null} [mode]
 */
export function startPredict(events, mode = null) {
  return {
    key: eventsKey(events, mode),
    questions: questionsOf(events),
    at: 0, // questions settled (the stage shows at most this step)
    phase: events.length ? "side" : "done", // side | residuals | done
    answers: [], // answers[i]: {side, sideRight, residuals, residualsRight}
    last: null, // the answer just settled (or half settled: the side of a mixed equation)
  };
}

/** The question being asked, or null when every one is settled. */
export function current(state) {
  return state.phase === "done" ? null : state.questions[state.at];
}

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
 * @param {any} state
 * @param {Side} guess
 */
export function answerSide(state, guess) {
  const q = current(state);
  if (!q || state.phase !== "side" || !(guess in SIDE_WORD)) return state;
  const answer = { side: guess, sideRight: guess === q.truth, residuals: null, residualsRight: null };
  if (q.residuals.length) return { ...state, phase: "residuals", last: { ...answer, i: state.at } };
  return settle(state, answer);
}

/**
 * The reader's choice of the operands that become residuals (the current, mixed question).
 * @param {any} state
 * @param {string[]} names
 */
export function answerResiduals(state, names) {
  const q = current(state);
  if (!q || state.phase !== "residuals") return state;
  const picked = q.operands.filter((n) => names.includes(n));
  const right = picked.length === q.residuals.length && picked.every((n) => q.residuals.includes(n));
  return settle(state, { ...state.last, residuals: picked, residualsRight: right });
}

/** Right answers out of questions asked, in all and by kind. */
export function scoreOf(state) {
  // a mixed equation's side counts as soon as it is answered, before its residuals are
  const done = [...state.answers.filter(Boolean), ...(state.phase === "residuals" ? [state.last] : [])];
  const sides = { right: done.filter((a) => a.sideRight).length, asked: done.length };
  const res = done.filter((a) => a.residualsRight != null);
  const residuals = { right: res.filter((a) => a.residualsRight).length, asked: res.length };
  return { right: sides.right + residuals.right, asked: sides.asked + residuals.asked, sides, residuals };
}

/** The reveal of the answer just given (state.last): right or not, the truth and, once the
 *  question is settled, the rule's reason (backticks are code). */
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

/** The closing line: the score, in words. */
export function scoreText(state) {
  const s = scoreOf(state);
  const res = s.residuals.asked ? `; residuals ${s.residuals.right} of ${s.residuals.asked}` : "";
  return `You predicted ${s.right} of ${s.asked}: known or unknown ${s.sides.right} of ${s.sides.asked}${res}.`;
}

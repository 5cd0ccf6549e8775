// The one way the page asks the engine for a record: the call, its failures turned into error
// answers the page can show, and the contract check (app/contract/validate.js) on what comes
// back, so an answer that breaks the contract becomes an error and is never drawn.

import { answerProblems, policyAnswerProblems, signatureProblems } from "./contract/validate.js";

/** @typedef {import("./contract/record.js").EngineAnswer} EngineAnswer */
/** @typedef {import("./contract/record.js").PolicyAnswer} PolicyAnswer */
/** @typedef {import("./contract/record.js").ErrorRecord} ErrorRecord */
/** @typedef {import("./contract/record.js").SignatureAnswer} SignatureAnswer */
/**
 * What a failed call rejects with: engine-client.js's EngineError, with the extras it sets.
 * @typedef {object} EngineFailure
 * @property {string} message
 * @property {string} [type] timeout, crashed, restarted, a Python exception's name, ...
 * @property {number | null} [lineno] a Python exception's line in the source
 * @property {boolean} [restarted] the engine was restarted to stop the call
 * @property {boolean} [interruptSent] an interrupt was tried first
 * @property {number} [timeoutMs]
 * @property {boolean} [notStarted] the engine never started
 * @property {string} [reason] why it did not start, or crashed
 */

/**
 * @param {{call: Function}} engine the client (engine-client.js)
 * @param {{mode: string, kwargs: object}} request
 * @param {{timeoutMs?: number, quiet?: boolean, handle?: {hurry: () => void}}} [options]
 *   quiet: asked ahead of the reader; handle.hurry(): the reader waits for it now
 *   (engine-client.js)
 * @returns {Promise<{answer: EngineAnswer, cacheable: boolean}>} cacheable: the engine's own
 *   answer (a timeout or a crash may go another way next time)
 */
export function askEngine(engine, request, options = {}) {
  const kwargs = { mode: request.mode, ...request.kwargs };
  return ask(engine, "pe_engine.explain.run", kwargs, answerProblems, options);
}

/**
 * One pending policy of a checkpoint record (app/page/pending-policies.js), as askEngine asks.
 * @param {{call: Function}} engine @param {object} kwargs
 * @param {{quiet?: boolean}} [options] as askEngine's
 * @returns {Promise<{answer: PolicyAnswer | ErrorRecord, cacheable: boolean}>}
 */
export function askPolicy(engine, kwargs, options = {}) {
  return ask(engine, "pe_engine.explain.checkpoint_policy", kwargs, policyAnswerProblems, options);
}

/**
 * The function a source's requests trace (pe_engine.explain.signature), as askEngine asks.
 * @param {{call: Function}} engine @param {string} source
 * @param {{quiet?: boolean}} [options] as askEngine's
 * @returns {Promise<{answer: SignatureAnswer | ErrorRecord, cacheable: boolean}>}
 */
export function askSignatureOf(engine, source, options = {}) {
  return ask(engine, "pe_engine.explain.signature", { source }, signatureProblems, options);
}

/**
 * @param {{call: Function}} engine @param {string} entry @param {object} kwargs
 * @param {(answer: unknown) => string[]} problemsOf @param {object} options
 * @returns {Promise<{answer: any, cacheable: boolean}>} any: the engine's answer, of the type
 *   each caller names once problemsOf found nothing wrong with it
 */
async function ask(engine, entry, kwargs, problemsOf, options) {
  let answer;
  try {
    answer = await engine.call(entry, kwargs, options);
  } catch (caught) {
    const err = /** @type {EngineFailure} */ (caught);
    return { answer: errorAnswer(err.type || "engine", engineFailure(err), err.lineno ?? null), cacheable: false };
  }
  const problems = problemsOf(answer);
  if (problems.length) {
    const what = `the engine's answer breaks the record contract (${problems.join("; ")})`;
    return { answer: errorAnswer("contract", what), cacheable: false };
  }
  return { answer, cacheable: true };
}

/** An error answer made by the page itself.
 *  @param {string} type @param {string} message @param {number | null} [lineno]
 *  @returns {ErrorRecord} */
export function errorAnswer(type, message, lineno = null) {
  return { error: { type, message, lineno } };
}

// What a reader whose browser cannot run the engine is told, here and in the status line.
export const NO_ENGINE = "The Python engine could not start in this browser";
export const STILL_SHOWN = "the examples still show their programs, computed when the site was built";

/** The answer to anything asked of an engine that could not start.
 *  @param {string | null | undefined} reason */
export function notStarted(reason) {
  return `${NO_ENGINE} (${reason ?? "no detail"}), so this cannot run; ${STILL_SHOWN}.`;
}

/** Which way a runaway was stopped: the reader learns why the next answer may take a while. */
/** @param {EngineFailure} err */
function howStopped(err) {
  if (!err.restarted) return "Python was interrupted.";
  if (err.interruptSent)
    return "it did not stop when interrupted (a loop inside a C function), so the Python engine was restarted.";
  return "this browser cannot interrupt Python here, so the Python engine was restarted.";
}

/** The message for a call the engine could not answer (runaway, crash, restart).
 *  @param {EngineFailure} err */
function engineFailure(err) {
  if (err.type === "timeout") {
    const secs = err.timeoutMs ? ` ${Math.round(err.timeoutMs / 100) / 10} s` : "";
    return `Stopped: the trace ran longer than${secs} (an endless loop, or a long Python loop?); ${howStopped(err)}`;
  }
  if (err.notStarted) return notStarted(err.reason);
  if (err.type === "crashed")
    return `The Python engine crashed (${err.reason || "fatal error"}) and was restarted; your code is kept.`;
  return err.message;
}

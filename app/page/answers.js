// The engine session's pure core (page/session.js asks, this keeps and merges): the answers
// kept by request key, the records the build answered (seeded, checked against the contract
// when first used), and the record that arrives in parts: what a first answer still waits for
// (its whole request's rest: pending-whole.js; its other policies: pending-policies.js), how to
// ask for it, and how the part is merged in. Pure: no DOM, no engine, no clock.

import { firstRequest, pendingOf, policyKwargs, withPolicy } from "./pending-policies.js";
import { waitsForWhole, wholeRequest, withWhole } from "./pending-whole.js";

/** @import { EngineAnswer } from "../contract/record.js" */
/** @import { PageRequest } from "./pending-whole.js" */

/**
 * @param {{limit: number, check: (record: unknown) => string[]}} how limit: answers kept (a
 *   record may be megabytes); check: a seeded record's contract problems ([] when it keeps it)
 */
export function createAnswers({ limit, check }) {
  /** @type {Map<string, EngineAnswer>} request key -> answer (record or {error}), oldest first */
  const kept = new Map();
  /** @type {Map<string, unknown>} request key -> a record answered at build time, not checked yet */
  const seeded = new Map();

  /** Keeps an answer, forgetting the oldest beyond `limit`. @param {string} key @param {EngineAnswer} answer */
  function keep(key, answer) {
    kept.delete(key);
    kept.set(key, answer);
    const oldest = kept.keys().next();
    if (kept.size > limit && !oldest.done) kept.delete(oldest.value);
  }

  /** The answer at hand for key: one kept, or a seeded record that keeps the contract.
   *  @param {string} key @returns {EngineAnswer | undefined} */
  function get(key) {
    if (kept.has(key) || !seeded.has(key)) return kept.get(key);
    const rec = seeded.get(key);
    seeded.delete(key);
    if (check(rec).length) return undefined; // a broken build: the engine is asked
    const checked = /** @type {EngineAnswer} */ (rec); // it keeps the contract
    keep(key, checked);
    return checked;
  }

  return {
    keep,
    get,
    /** Whether key has an answer, without checking a seeded one (a first frame's task would
     *  pay for it). */
    has: (/** @type {string} */ key) => kept.has(key) || seeded.has(key),
    seed: (/** @type {string} */ key, /** @type {unknown} */ record) => seeded.set(key, record),
  };
}

/** @typedef {{kind: "whole"} | {kind: "policy", policy: string}} Part */

/**
 * The next part a record waits for: the rest of its whole request first, then its pending
 * policies one at a time; null when it is complete.
 * @param {EngineAnswer | null | undefined} record @returns {Part | null}
 */
export function nextPart(record) {
  if (waitsForWhole(record)) return { kind: "whole" };
  const [policy] = pendingOf(record);
  return policy ? { kind: "policy", policy } : null;
}

/** Whether a record still waits for a part. */
export const waitsForPart = (/** @type {EngineAnswer | null | undefined} */ record) => nextPart(record) !== null;

/**
 * What to ask the engine for a part of the record of `req` (its request as the state makes it):
 * the entry point and its kwargs.
 * @param {PageRequest} req @param {Part} part
 * @returns {{entry: "run", request: PageRequest} | {entry: "policy", kwargs: object}}
 */
export function partRequest(req, part) {
  if (part.kind === "whole") return { entry: "run", request: wholeRequest(firstRequest(req)) };
  return { entry: "policy", kwargs: policyKwargs(req, part.policy) };
}

/**
 * `record` with a part's answer merged in; null when the answer does not fit it (another
 * split's rest).
 * @param {any} record @param {Part} part @param {any} answer
 */
export function mergePart(record, part, answer) {
  return part.kind === "whole" ? withWhole(record, answer) : withPolicy(record, answer);
}

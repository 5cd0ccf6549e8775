// The function each source's requests trace (its name, its parameters in order, the line of
// its `def`), as the engine reads it: pe_engine.explain.signature. The page parses no Python:
// a request's inputs are one per parameter, so a source's signature is known before any request
// on it is built. The build writes the signatures of the sources the page opens with (the
// examples', the demos') into examples.json, so the first frame needs no engine; any other
// source's is asked once (page/runner.js; a demo's own function: page/session.js) and kept here.

import { signatureProblems } from "./contract/validate.js";
import { askSignatureOf } from "./engine-answers.js";

/** @typedef {import("./contract/record.js").SignatureAnswer} SignatureAnswer */
/** @typedef {import("./contract/record.js").ErrorRecord} ErrorRecord */
/** @typedef {SignatureAnswer & {code: string}} Signature the answer, with the source it reads */

const KEPT = 64; // sources remembered (a reader's edits: each asks once)
const known = new Map(); // source -> Signature, or ErrorRecord when it has no function

/**
 * The signature of `code` (the same object each time): undefined while the engine has not been
 * asked, null when the engine found no function to trace there (signatureError says why).
 * @param {string} code @returns {Signature | null | undefined}
 */
export function signatureOf(code) {
  const answer = known.get(code);
  if (answer === undefined) return undefined;
  return "error" in answer ? null : answer;
}

/** The engine's error for a source with no function to trace, or null. @param {string} code */
export function signatureError(code) {
  const answer = known.get(code);
  return answer && "error" in answer ? answer : null;
}

/** The parameters of `code`'s function ([] when unknown or none). @param {string} code */
export const paramsOf = (code) => signatureOf(code)?.params ?? [];

/** @param {string} code @param {SignatureAnswer | ErrorRecord} answer */
function keep(code, answer) {
  known.delete(code);
  known.set(code, "error" in answer ? answer : { ...answer, code });
  if (known.size > KEPT) known.delete(known.keys().next().value);
}

/**
 * The build's signatures ({source: SignatureAnswer}, examples.json's `signatures`), each
 * checked against the contract (one that breaks it is asked of the engine instead).
 * @param {Record<string, unknown> | undefined} signatures
 */
export function seedSignatures(signatures) {
  for (const [code, answer] of Object.entries(signatures ?? {})) {
    if (!signatureProblems(answer).length) keep(code, /** @type {SignatureAnswer} */ (answer));
  }
}

/**
 * Ask the engine for `code`'s signature (once: a known one is not asked again) and keep its
 * answer. Resolves to {answer, kept}: kept false when the engine could not answer (not
 * started, interrupted, a broken answer), which says nothing of the code: asked again later.
 * @param {{call: Function}} engine @param {string} code @param {{quiet?: boolean}} [options]
 * @returns {Promise<{answer: SignatureAnswer | ErrorRecord, kept: boolean}>}
 */
export async function askSignature(engine, code, options = {}) {
  const had = known.get(code);
  if (had) return { answer: had, kept: true };
  const { answer, cacheable } = await askSignatureOf(engine, code, options);
  if (cacheable) keep(code, answer);
  return { answer, kept: cacheable };
}

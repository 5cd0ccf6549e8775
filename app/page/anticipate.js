// The requests a reader is likely to make next: the page's own with one input flipped
// (known <-> unknown), the input flipped last first. The runner asks the engine for them in
// idle time (page/runner.js), so that a flip is drawn from the cache, not after a trace.
// Pure: no DOM, no engine.

import { parseSignature, requestFor, requestKey } from "../state.js";
import { firstRequest } from "./pending-policies.js";

/** @typedef {import("./update.js").Doc} Doc */

/** The known flag the engine is sent for a parameter (state.js: known unless marked). */
const knownOf = (doc, name) => doc.known[name] ?? true;

/**
 * The parameter whose known flag differs between two docs of the same code, or null.
 * @param {Doc | null} prev @param {Doc} next @returns {string | null}
 */
export function flippedInput(prev, next) {
  if (!prev || prev.code !== next.code) return null;
  const params = parseSignature(next.code)?.params ?? [];
  return params.find((p) => knownOf(prev, p) !== knownOf(next, p)) ?? null;
}

/**
 * The doc's requests with one input flipped, `first` (the input flipped last) first, then the
 * others in the signature's order. Each is the one the page sends first for that doc (a
 * checkpoint request asks for its selected policy alone).
 * @param {Doc} doc @param {string | null} first
 * @returns {{name: string, key: string, req: {mode: string, kwargs: object}}[]}
 */
export function flipRequests(doc, first) {
  const params = parseSignature(doc.code)?.params ?? [];
  const order = params.includes(first ?? "") ? [first, ...params.filter((p) => p !== first)] : params;
  return order.map((name) => {
    const known = Object.assign(Object.create(null), doc.known, { [name]: !knownOf(doc, name) });
    const req = requestFor({ ...doc, known });
    return { name, key: requestKey(req), req: firstRequest(req) };
  });
}

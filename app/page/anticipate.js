// The requests a reader is likely to make next: the page's own with one input flipped
// (known <-> unknown), the input flipped last first, then the same function in the other
// modes. The runner asks the engine for them in idle time (page/runner.js), so that a flip or
// a mode switch is drawn from the cache, not after a trace. Pure: no DOM, no engine.

import { MODES } from "../modes.js";
import { isKnown, requestFor, requestKey } from "../state.js";
import { paramsOf } from "../signatures.js";
import { firstRequest } from "./pending-policies.js";

/** @typedef {import("./update.js").Doc} Doc */

/**
 * The parameter whose known flag differs between two docs of the same code, or null.
 * @param {Doc | null} prev @param {Doc} next @returns {string | null}
 */
export function flippedInput(prev, next) {
  if (!prev || prev.code !== next.code) return null;
  const params = paramsOf(next.code);
  return params.find((p) => isKnown(prev, p) !== isKnown(next, p)) ?? null;
}

/** A doc's request as the runner keys it, and as it is sent first (a checkpoint request asks
 *  for its selected policy alone). @param {Doc} doc */
function asked(doc) {
  const req = requestFor(doc);
  return { key: requestKey(req), req: firstRequest(req) };
}

/**
 * The doc's requests with one input flipped, `first` (the input flipped last) first, then the
 * others in the signature's order; then the doc in each other mode, in the tabs' order.
 * @param {Doc} doc @param {string | null} first
 * @returns {{key: string, req: import("./pending-whole.js").PageRequest}[]}
 */
export function nextRequests(doc, first) {
  const params = paramsOf(doc.code);
  const order = first !== null && params.includes(first) ? [first, ...params.filter((p) => p !== first)] : params;
  const flips = order.map((name) =>
    asked({ ...doc, known: Object.assign(Object.create(null), doc.known, { [name]: !isKnown(doc, name) }) }),
  );
  const modes = MODES.filter((m) => m !== doc.mode).map((mode) => asked({ ...doc, mode }));
  return [...flips, ...modes];
}

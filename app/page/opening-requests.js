// Every request the page makes on its opening state, the main view's and the demos': the
// build answers them in CPython (tools/precompute.py, via tools/page_requests.mjs), so the
// first frame draws before Python has started in the browser; and every source they read,
// whose signature the build writes into examples.json (signatures.js). Pure: no DOM.

import { defaultExample } from "../examples.js";
import {
  CHECKPOINT_CODE,
  CHECKPOINT_VALUES,
  FOLDING_CODE,
  FOLDING_VALUES,
  checkpointRequest,
  demoKwargs,
  foldingRequests,
  followingRequests,
} from "../sections/requests.js";
import { MODES } from "../modes.js";
import { masksRequest, requestFor, requestKey, stateFromExample } from "../state.js";

/** @typedef {import("../examples.js").Examples} Examples */

/** [{mode, kwargs, key}]: each request once, in order.
 *  @param {{mode: string, kwargs: object}[]} requests */
const unique = (requests) => {
  const byKey = new Map(requests.map((r) => [requestKey(r), r]));
  return [...byKey].map(([key, r]) => ({ mode: r.mode, kwargs: r.kwargs, key }));
};

/** Every source the page opens with, each once: the examples' and the demos'.
 *  @param {Examples} examples */
export function openingSources(examples) {
  return [...new Set([...examples.examples.map((ex) => ex.code), CHECKPOINT_CODE, FOLDING_CODE])];
}

/** [{mode, kwargs, key}], the main view's first; each request once. @param {Examples} examples */
export function openingRequests(examples) {
  const opening = stateFromExample(defaultExample(examples));
  const main = requestFor(opening);
  const folding = demoKwargs(FOLDING_CODE, FOLDING_VALUES);
  const all = [
    main,
    ...followingRequests(main.kwargs),
    ...[masksRequest(opening) ?? []].flat(), // the Masks view (if the opening mode has one)
    checkpointRequest(demoKwargs(CHECKPOINT_CODE, CHECKPOINT_VALUES)),
    ...foldingRequests(folding, false),
    ...foldingRequests(folding, true),
  ];
  return unique(all);
}

/** [{mode, kwargs, key, example}]: what the page asks when a reader picks any example, then
 *  any mode, by example (the build answers them too, so switching never waits for Python).
 *  @param {Examples} examples */
export function exampleRequests(examples) {
  return examples.examples.flatMap((ex) => {
    const state = stateFromExample(ex);
    const masks = MODES.flatMap((mode) => masksRequest({ ...state, mode }) ?? []);
    const asks = unique([...MODES.map((mode) => requestFor({ ...state, mode })), ...masks]);
    return asks.map((r) => ({ ...r, example: ex.id }));
  });
}

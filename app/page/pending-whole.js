// The rest of a record, after its split (issue 14): an edit asks the engine for the split with
// its calls unopened (open_calls false: a quarter of a checkpoint answer is opening the remat
// call) and, for grad, without what print_saved_residuals prints (saved false: a third trace
// of the function). The page draws that at once, then asks the same request whole in idle
// time and copies in what was left out: each call's inner split (`call`), where the call's row
// gets its "open" toggle, and grad's saved residuals. Pure: no DOM, no engine.

import { modeOf } from "../modes.js";

/** @import { EngineAnswer } from "../contract/record.js" */
/** @typedef {{mode: string, kwargs: Record<string, unknown>}} PageRequest a request as the state makes it */

/** The events (their `i`) whose calls a record left unopened ([] when none).
 *  @param {EngineAnswer | null | undefined} record @returns {number[]} */
export function unopenedOf(record) {
  return record && "unopened_calls" in record && Array.isArray(record.unopened_calls) ? record.unopened_calls : [];
}

/** Whether a grad record left out its saved residuals (asked with saved false).
 *  @param {EngineAnswer | null | undefined} record */
export function savedPending(record) {
  if (!record || !("mode" in record) || modeOf(record.mode)?.first?.saved !== false) return false;
  return "saved_residuals" in record && record.saved_residuals === null;
}

/** Whether a record waits for the rest that its whole request has.
 *  @param {EngineAnswer | null | undefined} record */
export function waitsForWhole(record) {
  return unopenedOf(record).length > 0 || savedPending(record);
}

/** The whole request of `req` (a first request): its calls opened, its saved residuals
 *  traced; a checkpoint request still asks for its selected policy alone (the others come
 *  apart). @param {PageRequest} req @returns {PageRequest} */
export function wholeRequest(req) {
  const kwargs = { ...req.kwargs };
  delete kwargs.open_calls;
  delete kwargs.saved;
  return { mode: req.mode, kwargs };
}

/**
 * `record` with what `whole` (the answer of wholeRequest) has and it left out: the calls of
 * its unopened events, its saved residuals; everything else of `record` kept (its cards above
 * all, which may have come since). null when `whole` is not the same split (its events differ
 * in number or primitive).
 * @param {any} record @param {any} whole
 */
export function withWhole(record, whole) {
  const events = record.events;
  const from = whole?.events;
  if (!Array.isArray(from) || from.length !== events.length) return null;
  if (
    events.some((/** @type {{primitive: string}} */ ev, /** @type {number} */ i) => ev.primitive !== from[i].primitive)
  )
    return null;
  if (savedPending(record) && !Array.isArray(whole.saved_residuals)) return null;
  const next = events.map((/** @type {object} */ ev, /** @type {number} */ i) =>
    unopenedOf(record).includes(i) && from[i].call ? { ...ev, call: from[i].call } : ev,
  );
  const done = { ...record, events: next };
  delete done.unopened_calls;
  if (savedPending(record)) {
    done.saved_residuals = whole.saved_residuals;
    done.saved_bytes = whole.saved_bytes;
  }
  return done;
}

/**
 * Whether `next` is `prev` completed (withWhole): the split drawn for `prev` stands, and only
 * its call rows gain their toggles and its saved residuals their lines.
 * @param {any} prev @param {any} next
 */
export function wholeArrived(prev, next) {
  if (!waitsForWhole(prev) || waitsForWhole(next)) return false;
  if (prev.panes !== next.panes || prev.residuals !== next.residuals) return false;
  return (
    prev.events.length === next.events.length &&
    next.events.every((/** @type {{call?: object}} */ ev, /** @type {number} */ i) => ev === prev.events[i] || ev.call)
  );
}

// Calls opened after the split (issue 14): an edit asks the engine for the split with its
// calls unopened (open_calls false: a quarter of a checkpoint answer is opening the remat
// call), the page draws it at once, then asks the same request whole in idle time and copies
// each call's inner split (`call`) into the record drawn, where the call's row gets its
// "open" toggle. Pure: no DOM, no engine.

/** The modes whose records have events that may be calls (split, and grad's and checkpoint's
 *  linearized split). */
export const CALL_MODES = ["split", "grad", "checkpoint"];

/** The events (their `i`) whose calls a record left unopened ([] when none). */
export function unopenedOf(record) {
  return Array.isArray(record?.unopened_calls) ? record.unopened_calls : [];
}

/** The request that opens the calls `req` (a first request) left unopened: the same, whole;
 *  a checkpoint request still asks for its selected policy alone (the others come apart). */
export function callsRequest(req) {
  const kwargs = { ...req.kwargs };
  delete kwargs.open_calls;
  return { mode: req.mode, kwargs };
}

/**
 * `record` with the calls of `whole` (the answer of callsRequest) copied into its unopened
 * events; everything else of `record` kept (its cards above all, which may have come since).
 * null when `whole` is not the same split (its events differ in number or primitive).
 * @param {any} record @param {any} whole
 */
export function withCalls(record, whole) {
  const events = record.events;
  const from = whole?.events;
  if (!Array.isArray(from) || from.length !== events.length) return null;
  if (events.some((ev, i) => ev.primitive !== from[i].primitive)) return null;
  const next = events.map((ev, i) =>
    unopenedOf(record).includes(i) && from[i].call ? { ...ev, call: from[i].call } : ev,
  );
  const opened = { ...record, events: next };
  delete opened.unopened_calls;
  return opened;
}

/**
 * Whether `next` is `prev` with its calls opened (withCalls): the split drawn for `prev`
 * stands, and only its call rows gain their toggles.
 * @param {any} prev @param {any} next
 */
export function callsOpened(prev, next) {
  if (!unopenedOf(prev).length || unopenedOf(next).length) return false;
  if (prev.panes !== next.panes || prev.residuals !== next.residuals) return false;
  return prev.events.length === next.events.length && next.events.every((ev, i) => ev === prev.events[i] || ev.call);
}

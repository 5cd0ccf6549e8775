// Every limit the page itself keeps, in one table (the engine's own limits, on what user code
// may compute, are pe_engine/explain/limits.py; the names differ so a search finds one each).
// Nothing here can be changed from the URL: a link is written by someone else.

// How long one engine call may run before it is interrupted (KeyboardInterrupt).
export const CALL_TIMEOUT_MS = 5_000;
// How long an interrupted call has to answer before the engine is torn down and booted again
// (a loop in C never sees the interrupt).
export const INTERRUPT_GRACE_MS = 1_500;
// How long the engine may take to start.
export const BOOT_TIMEOUT_MS = 120_000;
// The largest answer the page reads from the engine (its JSON text; the engine caps records
// at 8 000 000 characters and errors at 2000, so anything bigger is not the engine's).
export const MAX_ANSWER_CHARS = 8_100_000;

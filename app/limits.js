// Every limit and timing the page itself keeps, in one table (the engine's own limits, on what
// user code may compute, are pe_engine/explain/limits.py; the names differ so a search finds
// one definition of each). Nothing here can be changed from the URL: a link is written by
// someone else.

// How long one engine call may run before it is interrupted (KeyboardInterrupt).
export const CALL_TIMEOUT_MS = 5_000;
// A section demo's call: larger programs (every policy, both interpreters) run longer.
export const SECTION_CALL_TIMEOUT_MS = 15_000;
// How long an interrupted call has to answer before the engine is torn down and booted again
// (a loop in C never sees the interrupt).
export const INTERRUPT_GRACE_MS = 1_500;
// How long the engine may take to start.
export const BOOT_TIMEOUT_MS = 120_000;
// The largest answer the page reads from the engine (its JSON text; the engine caps records
// at 8 000 000 characters and errors at 2000, so anything bigger is not the engine's).
export const MAX_ANSWER_CHARS = 8_100_000;
// Typing in the editor or a value field runs the engine this long after the last key.
export const EDIT_DEBOUNCE_MS = 250;
// Checkpoint's other policies are asked one per idle slice, each waiting at most this long
// for one (app/page/runner.js).
export const FOLLOW_UP_WAIT_MS = 500;
// The reader's likely next requests (a flip of an input, another mode) are asked ahead of them
// (app/page/anticipate.js) only while the engine answers within this long: a reader's call
// interrupts one asked ahead, so a slower one would only waste the engine's time.
export const ANTICIPATE_UNDER_MS = 150;
// ... the likeliest of them at once, the others once the page has drawn its answer and nothing
// has changed for this long (a reader changing something else at once interrupts one call, not
// a queue of them).
export const ANTICIPATE_AFTER_MS = 150;
// window.explainer's promises resolve two frames after the answer is drawn, or this long
// after it where no frame comes (a tab in the background).
export const IDLE_FRAME_WAIT_MS = 250;
// The answers the page keeps for requests met again (an undo, a flip back, an example).
export const ANSWERS_KEPT = 64;
// The mask explorer asks for every mask of the function once the edits have paused this
// long (its call would otherwise hold the engine while the reader types on).
export const MASKS_QUIET_MS = 400;
// A link to a section keeps it at the top while the page above it changes height (a demo
// drawn once near the viewport) for this long, unless the reader scrolls.
export const SECTION_LANDING_MS = 3_000;
// The address bar follows edits this long after the last one.
export const URL_DEBOUNCE_MS = 1_000;
// A notice that is not sticky hides after this long.
export const NOTICE_MS = 6_000;
// Links longer than this are refused, on write and on read; and the code a link may carry:
// the command line writes links too (pe_engine/explain/page_state.py, where both are declared).
export { MAX_LINK_CHARS, MAX_LINK_CODE_CHARS } from "./contract/values.js";
// Chat services cut links around here: the share button warns.
export const LONG_LINK_CHARS = 2_000;

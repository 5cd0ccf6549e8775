// Giving the main thread back: a long start is cut into tasks, so that a key or a tap is
// answered between them (a task over 50 ms is one the reader can feel).

/** Resolves in a new task, after whatever input came meanwhile (scheduler.yield where the
 *  browser has it: the rest of the start keeps its place ahead of other tasks). */
export function yieldToMain() {
  const scheduler = /** @type {any} */ (globalThis).scheduler;
  return scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0));
}

/** Run `callback` when the main thread is idle (requestIdleCallback, where there is one). */
export const onIdle = globalThis.requestIdleCallback ?? ((callback) => setTimeout(callback, 1));
export const cancelIdle = globalThis.cancelIdleCallback ?? clearTimeout;

// Running the engine for the page's state: debounced, one call at a time, cached by request
// key. Every answer (the engine's, or the page's own when there is nothing to ask) becomes
// an {type: "answer"} change.

import { askEngine, errorAnswer } from "../engine-answers.js";
import { parseSignature, requestFor, requestKey } from "../state.js";

/**
 * @param {{engine: any, getState: () => import("./update.js").PageState,
 *          dispatch: (change: object) => void}} deps
 */
export function createRunner({ engine, getState, dispatch }) {
  const cache = new Map(); // request key -> the engine's answer (record or {error})
  let timer = 0;
  let inflight = false;
  let rerun = false;
  let idleWaiters = [];

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = 0;
      runNow();
    }, ms);
  }

  const busy = () => timer !== 0 || inflight;

  /** Resolves once nothing is pending and the page has drawn the last answer. */
  function whenIdle() {
    if (!busy()) return Promise.resolve();
    return new Promise((resolve) => idleWaiters.push(resolve));
  }

  function notifyIdle() {
    if (busy()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    requestAnimationFrame(() => requestAnimationFrame(() => waiters.forEach((w) => w())));
  }

  async function ask(req, key) {
    const { doc } = getState();
    if (!parseSignature(doc.code)) {
      return errorAnswer("restricted", "Define a function, e.g. def f(x, y): return jnp.sin(x) * y");
    }
    if (engine.state === "error") {
      return errorAnswer(
        "engine",
        `the Python engine failed to start: ${engine.info.error?.message ?? "unknown error"}`,
      );
    }
    inflight = true;
    if (!getState().record || engine.state === "loading") dispatch({ type: "waiting", on: true });
    try {
      const asked = await askEngine(engine, req);
      // a timeout, a crash, a restart is not cached: the same request may work next time
      if (asked.cacheable) cache.set(key, asked.answer);
      return asked.answer;
    } finally {
      inflight = false;
      dispatch({ type: "waiting", on: false });
    }
  }

  async function runNow() {
    if (inflight) {
      rerun = true;
      return;
    }
    const s = getState();
    const req = requestFor(s.doc);
    const key = requestKey(req);
    if (key === s.recordKey && !s.error) {
      notifyIdle();
      return;
    }
    const answer = cache.get(key) ?? (await ask(req, key));
    if (rerun) {
      rerun = false;
      if (requestKey(requestFor(getState().doc)) !== key) {
        dispatch({ type: "answer", answer, key });
        runNow();
        return;
      }
    }
    // the page may have it already (a precomputed record arrived while the engine worked)
    if (getState().recordKey !== key || getState().error) dispatch({ type: "answer", answer, key });
    notifyIdle();
  }

  return {
    schedule,
    whenIdle,
    /** An answer known before any call (the precomputed first frame). */
    seed: (key, answer) => cache.set(key, answer),
    cached: (key) => cache.get(key) ?? null,
  };
}

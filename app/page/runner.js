// Running the engine for the page's state: debounced, one call at a time; the engine session
// (session.js) asks and keeps the answers by request key; an unedited example's answer comes
// from the build's file for it (fetched once, before Python is asked). Every answer (the
// engine's, or the page's own when there is nothing to ask) becomes an {type: "answer"} change.
// A record comes first with its calls unopened (grad's without its saved residuals), and a
// checkpoint record with its selected policy alone; its parts (the same request whole, then its
// other policies) are then asked one per idle slice and merged in (answers.js), each merge
// another answer for the same key, until the next change of request stops them (their calls
// are quiet, as below, so that change's call never waits for one). Then the requests the
// reader is likely to make next (a flip of an input, another mode: anticipate.js), the
// likeliest at once and the rest once they have paused, are asked the same way: quiet calls,
// which a change's own call interrupts or overtakes (engine-client.js), and whose answer that
// change awaits instead of asking again.

import { errorAnswer, notStarted } from "../engine-answers.js";
import { ANTICIPATE_AFTER_MS, ANTICIPATE_UNDER_MS, FOLLOW_UP_WAIT_MS, IDLE_FRAME_WAIT_MS } from "../limits.js";
import { requestFor, requestKey } from "../state.js";
import { askSignature, signatureError, signatureOf } from "../signatures.js";
import { nextPart, waitsForPart } from "./answers.js";
import { firstRequest } from "./pending-policies.js";
import { cancelIdle, onIdle } from "../main-thread.js";
import { flippedInput, nextRequests } from "./anticipate.js";

const RUN_QUEUED = -1;

/** @import { EngineAnswer } from "../contract/record.js" */
/** @import { EngineClient } from "../engine-types.js" */
/** @import { PageRequest } from "./pending-whole.js" */
/** @import { Doc } from "./update.js" */

/**
 * @param {{engine: EngineClient, session: ReturnType<typeof import("./session.js").createSession>,
 *          getState: () => import("./update.js").PageState,
 *          dispatch: (change: object) => void,
 *          exampleRecords?: ((code: string) => Promise<unknown> | null) | null}} deps
 *   session: asks the engine and keeps its answers (page/session.js);
 *   exampleRecords: fetches the records the build answered for the examples of this code and
 *   seeds them (null: none of their files is still to come)
 */
export function createRunner({ engine, session, getState, dispatch, exampleRecords = null }) {
  const { answers } = session;
  let timer = 0; // 0, a setTimeout's id, or RUN_QUEUED (a run waiting as a microtask)
  let inflight = false;
  let rerun = false;
  /** @type {((value: void) => void)[]} */
  let idleWaiters = [];
  /** @type {{key: string, slice: number} | null} the calls and policies being asked for the record of key */
  let following = null;
  /** @type {Doc | null} the doc of the last run, and the input flipped since the one before */
  let lastDoc = null;
  /** @type {string | null} */
  let lastFlipped = null;

  /** The inputs drawn follow the doc's function as soon as its signature is known (a run
   *  may wait behind the call under way). */
  function showSignature() {
    const s = getState();
    const signature = signatureOf(s.doc.code);
    if (signature && s.signature !== signature) dispatch({ type: "signature", signature });
    return signature;
  }

  /** @param {number} ms */
  function schedule(ms) {
    showSignature();
    stopFollowing();
    clearTimeout(timer);
    // A change that asks now runs as soon as the task that made it ends: a timer's task
    // waited 3-4 ms more here behind the page's other tasks (measured on a toggle).
    const run = () => {
      if (timer !== token) return; // a later schedule took its place
      timer = 0;
      runNow();
    };
    const token = ms === 0 ? RUN_QUEUED : setTimeout(run, ms);
    timer = token;
    if (ms === 0) queueMicrotask(run);
  }

  const busy = () => timer !== 0 || inflight || following !== null;

  /** Resolves once nothing is pending (the follow-ups included) and the page has drawn the
   *  last answer. */
  function whenIdle() {
    if (!busy()) return Promise.resolve();
    return new Promise((resolve) => idleWaiters.push(resolve));
  }

  function notifyIdle() {
    if (busy()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    // Two frames: the answer is painted. A tab in the background runs no frames at all (nor
    // does a renderer starved of them), and an embedder's settled() must resolve there too.
    let done = false;
    const wake = () => {
      if (done) return;
      done = true;
      clearTimeout(fallback);
      waiters.forEach((w) => w());
    };
    const fallback = setTimeout(wake, IDLE_FRAME_WAIT_MS);
    requestAnimationFrame(() => requestAnimationFrame(wake));
  }

  /** @param {PageRequest} req @param {string} key @returns {Promise<EngineAnswer>} */
  async function ask(req, key) {
    const down = session.down();
    if (down) return down;
    inflight = true;
    if (!getState().record || engine.state === "loading") dispatch({ type: "waiting", on: true });
    try {
      return await session.ask(req, key);
    } finally {
      inflight = false;
      dispatch({ type: "waiting", on: false });
    }
  }

  /** An example's answer from the build (its code unedited, in any mode), once the files
   *  still `pending` for that code are in: Python is asked only after them.
   *  @param {Promise<unknown>} pending @param {string} key */
  async function fromBuild(pending, key) {
    inflight = true;
    try {
      await pending;
    } finally {
      inflight = false;
    }
    return answers.get(key);
  }

  /** The engine reads the function of `code` (the page parses no Python), then the run goes
   *  on with its request; an engine that cannot answer is shown as any answer's failure.
   *  @param {string} code */
  async function readSignature(code) {
    /** @type {{answer: object, kept: boolean}} */
    let asked = { answer: errorAnswer("engine", notStarted(engine.info.error?.message)), kept: false };
    if (engine.state !== "error") {
      inflight = true;
      if (!getState().record || engine.state === "loading") dispatch({ type: "waiting", on: true });
      try {
        asked = await askSignature(engine, code);
      } finally {
        inflight = false;
        dispatch({ type: "waiting", on: false });
      }
    }
    if (asked.kept || rerun) {
      rerun = false;
      runNow(); // its signature known now, or the code changed meanwhile (its own is asked)
      return;
    }
    dispatch({ type: "answer", answer: asked.answer, key: null });
    notifyIdle();
  }

  async function runNow() {
    if (inflight) {
      rerun = true;
      return;
    }
    if (showSignature() === undefined) {
      readSignature(getState().doc.code);
      return;
    }
    const s = getState();
    const req = requestFor(s.doc);
    const key = requestKey(req);
    lastFlipped = flippedInput(lastDoc, s.doc) ?? lastFlipped; // kept across edits of the code
    lastDoc = s.doc;
    if (key === s.recordKey && !s.error) {
      follow(req, key); // a record left with pending policies by a change since undone
      notifyIdle();
      return;
    }
    // no function to trace: the engine's reason (a syntax error, no def) is the answer
    let answer = signatureError(s.doc.code) ?? answers.get(key);
    const pending = answer === undefined ? exampleRecords?.(s.doc.code) : null;
    if (pending) answer = await fromBuild(pending, key);
    if (answer === undefined && rerun && requestKey(requestFor(getState().doc)) !== key) {
      rerun = false; // changed while the files came: Python is asked for the new request only
      runNow();
      return;
    }
    answer ??= await ask(firstRequest(req), key);
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
    follow(req, key);
    notifyIdle();
  }

  // ---------------------------------------------------------------- follow-ups
  /** Ask for what the record drawn for key still waits for (the rest of its whole request,
   *  then its pending policies), one per idle slice. @param {PageRequest} req @param {string} key */
  function follow(req, key) {
    const s = getState();
    if (following?.key === key || s.recordKey !== key) return;
    if (!waitsForPart(s.record)) {
      anticipate(s.doc);
      return;
    }
    const run = { key, slice: 0 };
    following = run;
    const next = () => {
      run.slice = onIdle(
        async () => {
          run.slice = 0;
          const more = await askFollowUp(req, run);
          if (following !== run) return; // stopped by a change: its answer was dropped
          if (more) next();
          else {
            following = null;
            notifyIdle();
            anticipate(getState().doc);
          }
        },
        { timeout: FOLLOW_UP_WAIT_MS },
      );
    };
    next();
  }

  // ---------------------------------------------------------------- asked ahead
  // the round being asked ahead, for one doc; its stop() cancels the timer, then the idle slice,
  // of its next request (their ids are counted apart: one cannot be cancelled as the other)
  /** @type {{stop: () => void} | null} */
  let round = null;
  function stopAhead() {
    round?.stop();
    round = null;
  }

  /** Ask ahead for the doc's next requests not answered yet: the likeliest (the input flipped
   *  last, flipped again) at once, the rest once the reader has paused, one per idle slice; not
   *  after a slow trace (the next would be as slow: a waste of the engine). @param {Doc} doc */
  function anticipate(doc) {
    stopAhead(); // one round at a time: the last doc's
    if (session.askedMs > ANTICIPATE_UNDER_MS || engine.state === "error" || !signatureOf(doc.code)) return;
    const todo = nextRequests(doc, lastFlipped);
    const key = requestKey(requestFor(doc));
    const mine = { stop: () => {} };
    round = mine;
    // a change stopped the rest (its own are asked after its answer)
    const live = () => round === mine && requestKey(requestFor(getState().doc)) === key;
    // (a seeded record is checked when drawn, not here: a first frame's task would pay for it)
    const answered = (/** @type {string} */ k) => session.answered(k);
    const askAhead = async () => {
      await exampleRecords?.(doc.code); // an example's other modes are in the build's files
      if (!live()) return;
      let next = todo.shift();
      while (next && answered(next.key)) next = todo.shift();
      if (!next) return;
      await session.askAhead(next);
      if (live() && session.askedMs <= ANTICIPATE_UNDER_MS) inIdle();
    };
    const inIdle = () => {
      const slice = onIdle(askAhead);
      mine.stop = () => cancelIdle(slice);
    };
    const afterPause = () => {
      const timer = setTimeout(inIdle, ANTICIPATE_AFTER_MS);
      mine.stop = () => clearTimeout(timer);
    };
    // The likeliest request is traced while the page draws this answer, so a flip made as soon
    // as it is on screen waits for the rest of a trace, not a whole one; any other call of the
    // reader's interrupts it. (While an example's files are still coming, all of it waits for
    // them: they may hold the answer.)
    const [likeliest] = todo;
    if (likeliest && !answered(likeliest.key) && !exampleRecords?.(doc.code)) {
      todo.shift();
      session.askAhead(likeliest).then(() => {
        if (live() && session.askedMs <= ANTICIPATE_UNDER_MS) afterPause();
      });
    } else afterPause();
  }

  /** The record's next part asked and merged in (page/answers.js): the rest of it (the same
   *  request, whole), else its next pending policy; whether more is pending.
   *  @param {PageRequest} req @param {{key: string, slice: number}} run */
  async function askFollowUp(req, run) {
    const asked = getState().record;
    const part = nextPart(asked);
    if (!asked || !part) return false;
    const { answer } = await session.askPart(req, part);
    // stale: a change came while it was asked (the record may even be the same key's anew)
    if (following !== run || getState().record !== asked) return false;
    if ("error" in answer) {
      // made way for another call that left this record drawn: asked again in the next slice;
      // any other error leaves it pending: the next run for this key asks again
      return answer.error.type === "cancelled";
    }
    const record = session.merged(run.key, asked, part, answer);
    if (!record) return false; // another split's rest (it cannot be, for the same request)
    dispatch({ type: "answer", answer: record, key: run.key });
    return waitsForPart(record);
  }

  /** A change of request: the follow-ups still to ask are dropped (the schedule that follows
   *  keeps the page busy, so nobody waiting is told it is idle). */
  function stopFollowing() {
    if (following) cancelIdle(following.slice);
    following = null;
    stopAhead();
  }

  return {
    schedule,
    whenIdle,
  };
}

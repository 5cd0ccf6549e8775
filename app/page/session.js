// The engine session: the one module that asks the engine for records. It keeps every answer
// by request key (page/answers.js: the pure core, with the build's seeded records), asks for
// the page's own request (what was asked ahead for it is awaited, not asked again), asks ahead
// (quiet calls the reader's own interrupts), asks for the parts a first answer left out and
// merges them (answers.js), and asks for the demos' records (and their own functions'
// signatures) and the mask explorer's records once the main view is idle, one at a time.
// Views never call the engine: the runner (page/runner.js) schedules the page's requests,
// and every answer reaches the views through dispatch.

import { answerProblems } from "../contract/validate.js";
import { askEngine, askPolicy, errorAnswer, notStarted } from "../engine-answers.js";
import { ANSWERS_KEPT, MASKS_QUIET_MS, SECTION_CALL_TIMEOUT_MS } from "../limits.js";
import { askSignature, signatureOf } from "../signatures.js";
import { requestKey } from "../state.js";
import { createAnswers, mergePart, partRequest, waitsForPart } from "./answers.js";

/** @import { EngineAnswer } from "../contract/record.js" */
/** @import { EngineClient } from "../engine-types.js" */
/** @import { Part } from "./answers.js" */
/** @import { PageRequest } from "./pending-whole.js" */

/**
 * @param {{engine: EngineClient, getState: () => any, dispatch: (change: object) => void,
 *          settled: () => Promise<unknown>}} deps settled: resolves once the main view is idle
 */
export function createSession({ engine, getState, dispatch, settled }) {
  const answers = createAnswers({ limit: ANSWERS_KEPT, check: answerProblems });
  /** @type {Map<string, {asked: ReturnType<typeof askEngine>, handle: {hurry: () => void}}>} */
  const ahead = new Map(); // request key -> the quiet call asking for it ahead
  const session = {
    answers,
    /** How long the engine took for the last request the page waited for (or asked ahead). */
    askedMs: 0,
    /** The engine's failure to start, as an answer (null while it may still answer). */
    down() {
      return engine.state === "error" ? errorAnswer("engine", notStarted(engine.info?.error?.message)) : null;
    },

    /** The answer for the page's request `req` (sent as `sent`), from what was asked ahead
     *  for it when there is such a call, else asked now; kept unless it may go another way.
     *  @param {PageRequest} sent @param {string} key */
    async ask(sent, key) {
      const start = performance.now();
      const early = ahead.get(key);
      let asked = null;
      if (early) {
        early.handle.hurry(); // waiting behind other quiet calls no longer
        asked = await early.asked;
      }
      if (!asked?.cacheable) {
        asked = await askEngine(engine, sent); // not asked ahead, or that call made way
        session.askedMs = performance.now() - start;
      }
      // a timeout, a crash, a restart is not kept: the same request may work next time
      if (asked.cacheable) answers.keep(key, asked.answer);
      return asked.answer;
    },

    /** Whether key is answered or being asked ahead. */
    answered: (/** @type {string} */ key) => answers.has(key) || ahead.has(key),

    /** Asks ahead of the reader for `next`, in a quiet call, and keeps it.
     *  @param {{key: string, req: PageRequest}} next */
    async askAhead(next) {
      const start = performance.now();
      const handle = { hurry: () => {} };
      const asked = askEngine(engine, next.req, { quiet: true, handle });
      ahead.set(next.key, { asked, handle });
      const { answer, cacheable } = await asked;
      session.askedMs = performance.now() - start;
      ahead.delete(next.key);
      if (cacheable) answers.keep(next.key, answer);
    },

    /**
     * Asks for a part of `record` (the answer for `req`) in a quiet call: the reader's next
     * change interrupts it rather than waiting for the rest of a card that change makes stale.
     * @param {PageRequest} req @param {Part} part
     * @returns {Promise<{answer: any}>} the part's answer, or an error answer
     */
    askPart(req, part) {
      const ask = partRequest(req, part);
      return ask.entry === "run"
        ? askEngine(engine, ask.request, { quiet: true })
        : askPolicy(engine, ask.kwargs, { quiet: true });
    },

    /** `record` (kept for key) with a part's answer merged in and kept; null when it does not
     *  fit. @param {string} key @param {EngineAnswer} record @param {Part} part @param {unknown} answer */
    merged(key, record, part, answer) {
      const next = mergePart(record, part, answer);
      if (next) answers.keep(key, next);
      return next;
    },

    request: demoRequests(),
    wantMasks: masks(),

    /** The signature of a demo's own function (sections/mini-editor.js), as signatures.js
     *  asks and keeps it: one not known yet is asked once the main view is idle.
     *  @param {string} code */
    async signature(code) {
      if (signatureOf(code) === undefined) await idle();
      return askSignature(engine, code);
    },
  };

  /**
   * The demos' records (sections/): from the answers at once (not one still waiting for its
   * parts: the main record's first answer), else from the engine once the main view is idle,
   * one call at a time. `stillWanted()` is asked again just before the call;
   * a request nobody wants any more resolves to null without running.
   */
  function demoRequests() {
    /** @type {Map<string, Promise<EngineAnswer | null>>} */
    const pending = new Map();
    let chain = Promise.resolve();
    /** @param {PageRequest} req @param {{stillWanted?: () => boolean}} [options] @returns {Promise<EngineAnswer | null>} */
    return function request(req, { stillWanted = () => true } = {}) {
      const key = requestKey(req);
      const hit = answers.get(key);
      if (hit && !waitsForPart(hit)) return Promise.resolve(hit);
      const asking = pending.get(key);
      if (asking) return asking;
      /** @type {Promise<EngineAnswer | null>} */
      const p = new Promise((resolve) => {
        chain = chain.then(async () => {
          if (!stillWanted() || !(await idle()) || !stillWanted()) {
            resolve(null);
            return;
          }
          const down = session.down();
          if (down) {
            resolve(down);
            return;
          }
          const asked = await askEngine(engine, req, { timeoutMs: SECTION_CALL_TIMEOUT_MS });
          if (asked.cacheable) answers.keep(key, asked.answer);
          resolve(asked.answer);
        });
      }).finally(() => pending.delete(key));
      pending.set(key, p);
      return p;
    };
  }

  /** Once the main view has drawn its answer (true; settled() failing is the page's error to
   *  report, not this call's). */
  async function idle() {
    try {
      await settled();
    } catch {
      /* the page reports its own errors */
    }
    return true;
  }

  /**
   * The mask explorer's record for the page's state: asked once the main view is idle and drew
   * no error (2**n splits would fail the same way, or each run into the time limit), in a quiet
   * call asked again after the reader pauses when one of theirs interrupts it; dispatched as
   * {type: "masks", key, answer} (answer null: the function does not trace). Only the latest
   * request's answer is dispatched. wantMasks(null): the page wants none now (a function not
   * read yet, a mode without an explorer), and the one wanted before is not asked.
   */
  function masks() {
    let wanted = "";
    /** @param {PageRequest | null} req */
    return async function wantMasks(req) {
      const key = req ? requestKey(req) : "";
      if (key === wanted) return;
      wanted = key;
      if (!req) return;
      await Promise.resolve(); // the change that wants it schedules the main run first
      await idle();
      if (key !== wanted) return;
      if (getState().error) {
        wanted = ""; // asked again once the function traces
        dispatch({ type: "masks", key, answer: null });
        return;
      }
      let answer = answers.get(key);
      while (!answer) {
        await new Promise((resolve) => setTimeout(resolve, MASKS_QUIET_MS));
        // a change during the pause (another mask: the same grid) is run and followed up first:
        // a quiet call asked now would hold up the follow-ups queued behind it
        await idle();
        if (key !== wanted) return; // the reader edited on: this grid is dropped unasked
        const asked = await askEngine(engine, req, { timeoutMs: SECTION_CALL_TIMEOUT_MS, quiet: true });
        // made way for a call of the reader's (the same function, another mask): asked again
        if ("error" in asked.answer && asked.answer.error.type === "cancelled") await idle();
        else {
          answer = asked.answer;
          if (asked.cacheable) answers.keep(key, answer);
        }
      }
      if (key === wanted) dispatch({ type: "masks", key, answer });
    };
  }

  return session;
}

// How a demo asks for its records: from the cache at once, else from the engine once the
// page is idle (the demo is marked updating meanwhile). Only the latest call's answers are
// taken: a demo that asked again since ignores what its older call brings back.

/** @import { EngineAnswer, ErrorRecord } from "../contract/record.js" */
/** @typedef {{answers: EngineAnswer[] | null, error: ErrorRecord | null}} Kept what a following demo draws */

/**
 * @param {import("./index.js").SectionContext} ctx the sections' context
 * @param {HTMLElement} el the demo's element
 */
export function createLoader(ctx, el) {
  /** @type {string | null} the latest call's requests, as JSON */
  let wanted = null;
  /**
   * @param {Array<{mode: string, kwargs: Record<string, unknown>}>} requests
   * @param {{shown?: boolean, waiting?: () => void, take: (answers: EngineAnswer[]) => void}} how
   *   shown: the demo already shows these requests' answers (nothing to do if unchanged);
   *   waiting: called when the engine must be asked
   */
  return function load(requests, { shown = false, waiting = () => {}, take }) {
    const key = JSON.stringify(requests.map((r) => [r.mode, r.kwargs]));
    if (key === wanted && shown) return;
    wanted = key;
    const hits = requests.map((r) => ctx.cached(r.mode, r.kwargs));
    if (hits.every((a) => a !== null)) {
      el.classList.remove("is-updating");
      take(hits);
      return;
    }
    el.classList.add("is-updating");
    waiting();
    const stillWanted = () => wanted === key;
    Promise.all(requests.map((r) => ctx.request(r.mode, r.kwargs, { stillWanted }))).then((answers) => {
      if (!stillWanted() || !answers.every((a) => a !== null)) return;
      el.classList.remove("is-updating");
      take(answers);
    });
  };
}

/**
 * A demo that follows the reader's function with one request per mode in `modes`, each of
 * the main function's source and args. The answers are kept unless the last mode's is an
 * error, which is kept beside the answers before it (the demo draws both); `draw` is given
 * what is kept.
 * @param {import("./index.js").SectionContext} ctx the sections' context
 * @param {HTMLElement} el the demo's element
 * @param {string[]} modes
 * @param {(kept: Kept) => void} draw
 */
export function createFollowingDemo(ctx, el, modes, draw) {
  /** @type {Kept} */
  const kept = { answers: null, error: null };
  const redraw = () => draw(kept);
  const loader = createLoader(ctx, el);
  return {
    follows: true,
    refresh() {
      const kw = ctx.mainOrDraw(redraw);
      if (!kw) return;
      loader(
        modes.map((mode) => ({ mode, kwargs: kw })),
        {
          shown: Boolean(kept.answers || kept.error),
          waiting: () => kept.answers || redraw(),
          take(answers) {
            const last = answers[answers.length - 1];
            if ("error" in last) kept.error = last;
            else Object.assign(kept, { answers, error: null });
            redraw();
          },
        },
      );
    },
    onEngineState() {
      if (!kept.answers) redraw();
    },
  };
}

// How a demo asks for its records: from the cache at once, else from the engine once the
// page is idle (the demo is marked updating meanwhile). Only the latest call's answers are
// taken: a demo that asked again since ignores what its older call brings back.

/**
 * @param {any} ctx the sections' context (index.js)
 * @param {HTMLElement} el the demo's element
 */
export function createLoader(ctx, el) {
  let wanted = null;
  /**
   * @param {Array<{mode: string, kwargs: object}>} requests
   * @param {{shown?: boolean, waiting?: () => void, take: (answers: any[]) => void}} how
   *   shown: the demo already shows these requests' answers (nothing to do if unchanged);
   *   waiting: called when the engine must be asked
   */
  return function load(requests, { shown = false, waiting = () => {}, take }) {
    const key = JSON.stringify(requests.map((r) => [r.mode, r.kwargs]));
    if (key === wanted && shown) return;
    wanted = key;
    const hits = requests.map((r) => ctx.cached(r.mode, r.kwargs));
    if (hits.every(Boolean)) {
      el.classList.remove("is-updating");
      take(hits);
      return;
    }
    el.classList.add("is-updating");
    waiting();
    const stillWanted = () => wanted === key;
    Promise.all(requests.map((r) => ctx.request(r.mode, r.kwargs, { stillWanted }))).then((answers) => {
      if (!stillWanted() || !answers.every(Boolean)) return;
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
 * @param {any} ctx the sections' context (index.js)
 * @param {HTMLElement} el the demo's element
 * @param {string[]} modes
 * @param {(kept: {answers: any[] | null, error: any}) => void} draw
 */
export function createFollowingDemo(ctx, el, modes, draw) {
  /** @type {{answers: any[] | null, error: any}} */
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
            if (last.error) kept.error = last;
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

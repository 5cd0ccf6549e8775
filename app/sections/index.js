// The explainer's sections: one live demo per question, all driven by the page's engine.
//
//   initSections({engine, explainer})       called once by app/main.js
//   document event "pe:record" {record, key} main.js fires it whenever the main record is drawn
//
// Demos 1, 2, 5 and 6 follow the function in the main editor (the request key of the main
// record carries its source and args); 3 and 4 have their own small function. Engine calls go
// through the same client, one at a time, only for demos near the viewport, and only once the
// main split is idle (explainer.settled()), so they never hold up the main view. Answers are
// cached by request key, starting with the answers the build precomputed for the page's
// opening state (dist/precomputed.json, tools/precompute.py).
import { askEngine, errorAnswer, notStarted } from "../engine-answers.js";
import { SECTION_CALL_TIMEOUT_MS, SECTION_LANDING_MS } from "../limits.js";
import { waitsForWhole } from "../page/pending-whole.js";
import { requestKey } from "../state.js";
import { followStage } from "./intro.js";

// Each demo's module is imported when its section first comes near the viewport: none of
// them is needed for the first frame, and together they are most of the page's own JS.
const DEMOS = {
  rule: () => import("./rule.js").then((m) => m.createRuleDemo),
  residuals: () => import("./residuals.js").then((m) => m.createResidualsDemo),
  checkpoint: () => import("./checkpoint.js").then((m) => m.createCheckpointDemo),
  folding: () => import("./folding.js").then((m) => m.createFoldingDemo),
  variables: () => import("./variables.js").then((m) => m.createVariablesDemo),
  interpreters: () => import("./interpreters.js").then((m) => m.createInterpretersDemo),
  "built-on": () => import("./built-on.js").then((m) => m.createBuiltOn),
};

// ------------------------------------------------------------------------------------------
// Section anchors (#rule, #residuals, ...) share the hash with the page's permalinks (#v1.…).
// This module is imported by main.js, so this runs before main.js reads the hash: an opening
// section anchor is set aside (and put back by initSections), and a later change to a section
// anchor (a click on a FAQ link) stops here instead of being decoded as a permalink.

const SECTION_HASH = /^#[a-z][a-z-]*$/;
const sectionFor = (hash) => (SECTION_HASH.test(hash) ? document.getElementById(hash.slice(1)) : null);
let openingAnchor = null;
if (sectionFor(location.hash)) {
  openingAnchor = location.hash;
  history.replaceState(history.state, "", location.pathname + location.search);
}
window.addEventListener("hashchange", (e) => {
  const target = sectionFor(location.hash);
  if (!target) return;
  e.stopImmediatePropagation();
  landOn(target);
});

// A link to a section (opened, or a FAQ link clicked) lands on it, and again whenever the page
// changes height in the next seconds (the first frame drawn; a demo, drawn only once near the
// viewport, starting in the section above), until the reader does anything or the page is
// scrolled by anything else. Before, a link to #checkpoint at 360 px wide ended 474 px below
// its section: the demo above it grew.
const READER_INPUT = ["wheel", "touchstart", "keydown", "mousedown"];
function landOn(target) {
  let landedAt = NaN;
  const land = () => {
    target.scrollIntoView({ block: "start" });
    landedAt = scrollY;
  };
  const heights = new ResizeObserver(land); // its first call, at once, lands
  const done = () => {
    heights.disconnect();
    removeEventListener("scroll", scrolled);
    for (const ev of READER_INPUT) removeEventListener(ev, done);
    clearTimeout(timer);
  };
  // the browser's own corrections (scroll anchoring) come before the height change is seen,
  // and the landing that follows puts landedAt there too
  const scrolled = () => {
    if (Math.abs(scrollY - landedAt) > 1) done();
  };
  heights.observe(document.body);
  addEventListener("scroll", scrolled, { passive: true });
  for (const ev of READER_INPUT) addEventListener(ev, done, { passive: true });
  const timer = setTimeout(done, SECTION_LANDING_MS);
}

const keyOf = (mode, kwargs) => requestKey({ mode, kwargs });

function createContext(engine, explainer, precomputed) {
  const cache = new Map();
  const pending = new Map(); // key -> promise
  const listeners = new Set();
  let chain = Promise.resolve();
  const ctx = {
    engine,
    explainer,
    main: null, // {mode, kwargs: {source, args, ...}, record, key}
    /** Follow the main record. */
    onMain(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    setMain(record, key) {
      let mode;
      let kwargs;
      try {
        [mode, kwargs] = JSON.parse(key);
      } catch {
        return;
      }
      if (!kwargs || typeof kwargs.source !== "string") return;
      // a record still waiting for its rest or its policies is no answer for a demo to keep
      if (!record.pending_policies?.length && !waitsForWhole(record)) cache.set(key, record);
      ctx.main = { mode, kwargs, record, key };
      for (const cb of listeners) cb(ctx.main);
    },
    /** Source and args of the main function: the kwargs of split and interpreters requests. */
    /** The main function's kwargs, or null after `draw()` when there is none yet. */
    mainOrDraw(draw) {
      const kw = ctx.mainKwargs();
      if (!kw) draw();
      return kw;
    },
    mainKwargs() {
      return ctx.main ? { source: ctx.main.kwargs.source, args: ctx.main.kwargs.args } : null;
    },
    cached(mode, kwargs) {
      const key = keyOf(mode, kwargs);
      return cache.get(key) ?? precomputed(key) ?? null;
    },
    /**
     * A record for (mode, kwargs): from the cache, or from the engine once the main view is
     * idle. `stillWanted()` is asked again just before the call; a request nobody wants any
     * more resolves to null without running.
     */
    request(mode, kwargs, { stillWanted = () => true } = {}) {
      const key = keyOf(mode, kwargs);
      const hit = ctx.cached(mode, kwargs);
      if (hit) return Promise.resolve(hit);
      if (pending.has(key)) return pending.get(key);
      const p = new Promise((resolve) => {
        chain = chain.then(async () => {
          if (!stillWanted()) {
            resolve(null);
            return;
          }
          try {
            await explainer.settled();
          } catch {
            /* the page reports its own errors */
          }
          if (!stillWanted()) {
            resolve(null);
            return;
          }
          if (engine.state === "error") {
            resolve(errorAnswer("engine", notStarted(engine.info?.error?.message)));
            return;
          }
          const asked = await askEngine(engine, { mode, kwargs }, { timeoutMs: SECTION_CALL_TIMEOUT_MS });
          if (asked.cacheable) cache.set(key, asked.answer);
          resolve(asked.answer);
        });
      }).finally(() => pending.delete(key));
      pending.set(key, p);
      return p;
    },
  };
  return ctx;
}

/**
 * @param {{engine: any, explainer: any, precomputed?: (key: string) => object | null | undefined,
 *          root?: Document | Element}} deps precomputed: the build's answer for a request key
 *   (checked against the contract when first asked for), if it has one
 */
export function initSections({ engine, explainer, precomputed = () => null, root = document }) {
  const ctx = createContext(engine, explainer, precomputed);
  followStage(root.querySelector("[data-testid=intro-stage]"), explainer);
  /** @type {Array<{el: HTMLElement, load: () => Promise<Function>, demo: any, starting?: Promise<void>, visible: boolean, dirty: boolean}>} */
  const demos = [];
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-demo]"))) {
    const load = DEMOS[el.dataset.demo];
    if (load) demos.push({ el, load, demo: null, visible: false, dirty: true });
  }
  const refresh = (d) => {
    if (!d.demo || !d.visible || !d.dirty) return;
    d.dirty = false;
    try {
      d.demo.refresh?.();
    } catch (err) {
      console.error(`section demo ${d.el.dataset.demo}`, err);
    }
  };
  // A demo starts once, the first time it is near the viewport; its module loads then.
  const start = (d) => {
    if (d.starting) return;
    d.starting = d
      .load()
      .then((make) => {
        d.demo = make(d.el, ctx);
        d.demo.invalidate = () => {
          d.dirty = true;
          refresh(d);
        };
        refresh(d);
      })
      .catch((err) => console.error(`section demo ${d.el.dataset.demo} failed to start`, err));
  };
  const show = (d, visible) => {
    d.visible = visible;
    if (visible) start(d);
    refresh(d);
  };
  const io =
    "IntersectionObserver" in window
      ? new IntersectionObserver(
          (entries) => {
            for (const e of entries) {
              const d = demos.find((x) => x.el === e.target);
              if (d) show(d, e.isIntersecting);
            }
          },
          { rootMargin: "600px 0px 600px 0px" },
        )
      : null;
  for (const d of demos) {
    if (io) io.observe(d.el);
    else show(d, true);
  }
  ctx.onMain(() => {
    for (const d of demos)
      if (!d.demo || d.demo.follows) {
        d.dirty = true;
        refresh(d);
      }
  });
  document.addEventListener("pe:record", (e) => {
    const { detail } = /** @type {CustomEvent} */ (e);
    if (detail && detail.record && detail.key) ctx.setMain(detail.record, detail.key);
  });
  // The engine's state shows in the demos that are still waiting for it.
  engine.onState(() => {
    for (const d of demos) d.demo?.onEngineState?.();
  });
  // A deep link (#residuals) is put back in the address bar, and lands on its section.
  if (openingAnchor && !location.hash) {
    history.replaceState(history.state, "", location.pathname + location.search + openingAnchor);
    landOn(sectionFor(openingAnchor));
  }
  window.explainerSections = {
    ctx,
    demos: () =>
      demos.map((d) => ({ id: d.el.dataset.demo, started: Boolean(d.demo), visible: d.visible, dirty: d.dirty })),
  };
  return ctx;
}

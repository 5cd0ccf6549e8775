// The explainer's sections: one live demo per question, all driven by the page's engine.
//
//   ctx = initSections({engine, explainer, session})   called once by app/main.js
//   ctx.setMain(record, request, key)                  main.js, whenever the main record is drawn
//
// Demos 1, 2, 5 and 6 follow the function in the main editor (the main record's request
// carries its source and args); 3 and 4 have their own small function. Their records come
// from the page's engine session (page/session.js): kept with the page's (the build's
// precomputed answers among them), else asked one at a time, only for demos near the viewport,
// and only once the main split is idle, so they never hold up the main view.
import { SECTION_LANDING_MS } from "../limits.js";
import { waitsForPart } from "../page/answers.js";
import { requestKey } from "../state.js";
import { followStage } from "./intro.js";

/** @import { EngineClient } from "../engine-types.js" */
/** @import { EngineAnswer, EngineRecord } from "../contract/record.js" */
/** @import { FunctionKwargs } from "./requests.js" */
/** @typedef {ReturnType<typeof import("../page/session.js").createSession>} Session */
/** @typedef {ReturnType<typeof import("../page/api.js").createApi>} ExplainerApi */
/** @typedef {{mode: string, kwargs: Record<string, any>, record: EngineRecord, key: string}} MainRecord */
/** @typedef {ReturnType<typeof createContext>} SectionContext */
/**
 * What a demo's module makes of its element: refresh() draws it (when near the viewport, and
 * changed); follows: it follows the main record; invalidate() is set here.
 * @typedef {{refresh?: () => void, follows?: boolean, onEngineState?: () => void, invalidate?: () => void}} Demo
 */

// Each demo's module is imported when its section first comes near the viewport: none of
// them is needed for the first frame, and together they are most of the page's own JS.
/** @type {Partial<Record<string, () => Promise<(el: HTMLElement, ctx: SectionContext) => Demo>>>} */
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
const sectionFor = (/** @type {string} */ hash) =>
  SECTION_HASH.test(hash) ? document.getElementById(hash.slice(1)) : null;
/** @type {string | null} */
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
/** @param {HTMLElement} target */
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

/**
 * The demos' context: the main record they follow (set by the page's render), and their
 * records, asked of the engine session (page/session.js), which keeps them with the page's.
 * @param {EngineClient} engine @param {ExplainerApi} explainer @param {Session} session
 */
function createContext(engine, explainer, session) {
  /** @type {Set<(main: MainRecord) => void>} */
  const listeners = new Set();
  const ctx = {
    engine,
    explainer,
    /** @type {MainRecord | null} */
    main: null,
    /** Follow the main record. @param {(main: MainRecord) => void} cb */
    onMain(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    /** The main record drawn, for its request.
     *  @param {EngineRecord} record @param {{mode: string, kwargs: Record<string, any>}} request @param {string} key */
    setMain(record, request, key) {
      if (ctx.main?.record === record) return;
      const main = { mode: request.mode, kwargs: request.kwargs, record, key };
      ctx.main = main;
      for (const cb of listeners) cb(main);
    },
    /** The main function's kwargs, or null after `draw()` when there is none yet. @param {() => void} draw */
    mainOrDraw(draw) {
      const kw = ctx.mainKwargs();
      if (!kw) draw();
      return kw;
    },
    /** Source and args of the main function: the kwargs of split and interpreters requests.
     *  @returns {FunctionKwargs | null} */
    mainKwargs() {
      return ctx.main ? { source: ctx.main.kwargs.source, args: ctx.main.kwargs.args } : null;
    },
    /** @param {string} mode @param {object} kwargs @returns {EngineAnswer | null} */
    cached(mode, kwargs) {
      const answer = session.answers.get(requestKey({ mode, kwargs })) ?? null;
      // a record still waiting for its parts is no answer for a demo to take
      return answer && !waitsForPart(answer) ? answer : null;
    },
    /** A record for (mode, kwargs): kept, or asked once the main view is idle (session.js). */
    /** @param {string} mode @param {Record<string, unknown>} kwargs @param {{stillWanted?: () => boolean}} [how] */
    request: (mode, kwargs, how) => session.request({ mode, kwargs }, how),
    /** A demo's own function's signature, asked once the main view is idle (session.js).
     *  @param {string} code */
    signature: (code) => session.signature(code),
  };
  return ctx;
}

/**
 * @param {{engine: EngineClient, explainer: ExplainerApi, session: Session, root?: Document | Element}} deps
 *   session: the page's engine session (page/session.js), which asks for the demos' records
 * @returns the demos' context: its setMain(record, request, key) follows the main record
 */
export function initSections({ engine, explainer, session, root = document }) {
  const ctx = createContext(engine, explainer, session);
  followStage(root.querySelector("[data-testid=intro-stage]"), explainer);
  /** @typedef {{el: HTMLElement, load: () => Promise<(el: HTMLElement, ctx: SectionContext) => Demo>, demo: Demo | null,
   *            starting?: Promise<void>, visible: boolean, dirty: boolean}} Slot a demo's section */
  /** @type {Slot[]} */
  const demos = [];
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-demo]"))) {
    const load = DEMOS[el.dataset.demo ?? ""];
    if (load) demos.push({ el, load, demo: null, visible: false, dirty: true });
  }
  const refresh = (/** @type {Slot} */ d) => {
    if (!d.demo || !d.visible || !d.dirty) return;
    d.dirty = false;
    try {
      d.demo.refresh?.();
    } catch (err) {
      console.error(`section demo ${d.el.dataset.demo}`, err);
    }
  };
  // A demo starts once, the first time it is near the viewport; its module loads then.
  const start = (/** @type {Slot} */ d) => {
    if (d.starting) return;
    d.starting = d
      .load()
      .then((make) => {
        const demo = make(d.el, ctx);
        d.demo = demo;
        demo.invalidate = () => {
          d.dirty = true;
          refresh(d);
        };
        refresh(d);
      })
      .catch((err) => console.error(`section demo ${d.el.dataset.demo} failed to start`, err));
  };
  const show = (/** @type {Slot} */ d, /** @type {boolean} */ visible) => {
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
  // The engine's state shows in the demos that are still waiting for it.
  engine.onState(() => {
    for (const d of demos) d.demo?.onEngineState?.();
  });
  // A deep link (#residuals) is put back in the address bar, and lands on its section.
  if (openingAnchor && !location.hash) {
    history.replaceState(history.state, "", location.pathname + location.search + openingAnchor);
    const section = sectionFor(openingAnchor);
    if (section) landOn(section); // it was there when the page opened
  }
  window.explainerSections = {
    ctx,
    demos: () =>
      demos.map((d) => ({ id: d.el.dataset.demo, started: Boolean(d.demo), visible: d.visible, dirty: d.dirty })),
  };
  return ctx;
}

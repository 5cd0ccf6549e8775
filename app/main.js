// Wiring: start the engine first (its boot is the long pole), then the page around it.
//
//   UI, window.explainer --dispatch(change)--> update(state, change) --> render(prev, next)
//   state --debounced--> engine (page/runner.js asks page/session.js) --> {type: "answer"} --> the views
//
// One update path, CodeMirror 6 style: every change is a plain object (page/update.js lists
// them), `update` makes the next state, and `render(prev, next)` lets each view (page/views/)
// draw what changed. The first frame shows the default example from precomputed.json
// (written at build time by tools/precompute.py), so the page teaches before Python boots.
import { createEngine } from "./engine-client.js";
import { registerServiceWorker } from "./service-worker.js";
import { CALL_TIMEOUT_MS, EDIT_DEBOUNCE_MS, INTERRUPT_GRACE_MS } from "./limits.js";
import { requestFor, requestKey } from "./state.js";
import { loadExamples } from "./examples.js";
import { signatureOf } from "./signatures.js";
import { createEditorSlot } from "./editor-slot.js";
import { onIdle, yieldToMain } from "./main-thread.js";
import { initSections } from "./sections/index.js";
import { changesRequest, initialPageState, update } from "./page/update.js";
import { createRunner } from "./page/runner.js";
import { createSession } from "./page/session.js";
import { adoptFirstFrame } from "./page/first-frame.js";
import { createAddressBar } from "./page/address-bar.js";
import { matchExample, openingState } from "./page/initial.js";
import { createApi } from "./page/api.js";
import { createNotice } from "./page/views/notice.js";
import { showEngineStatus } from "./page/views/engine-status.js";
import { mountThemeToggle } from "./page/views/theme.js";
import { createErrorView } from "./page/views/error-box.js";
import { controlElements, createControls } from "./page/views/controls.js";
import { createStagePanel } from "./page/views/stage-panel.js";
import { mountShare } from "./page/views/share.js";
import { createMaskExplorer, wantedMasks } from "./page/views/mask-explorer.js";
import { createInstantiate } from "./page/views/instantiate.js";
import { createEmbedCaption } from "./page/views/embed-caption.js";
import { embedMode, mountEmbedApi, mountEmbedFooter } from "./embed.js";
import { mountTour } from "./page/tour.js";

// Time per call and the interrupt's grace come from app/limits.js, never from the URL: a
// runaway gets the interrupt first, then the engine is replaced.
const engine = createEngine({ timeoutMs: CALL_TIMEOUT_MS, interruptGraceMs: INTERRUPT_GRACE_MS });
// For the console and the browser tests: window.peEngine.call("platform.python_version")
window.peEngine = engine;
// Cache this build for repeat visits (sw.js); after the boot, so it never slows the first one.
engine.ready.then(
  () => registerServiceWorker(),
  () => {},
);
document.documentElement.dataset.app = "started"; // boot-guard.js: the module graph loaded

const precomputedPromise = fetch(new URL("../precomputed.json", import.meta.url), { cache: "no-cache" })
  .then((r) => (r.ok ? r.json() : null))
  .catch(() => null);
// fetch the stage's modules now, beside examples.json and precomputed.json (the panel imports it)
import("./stage/index.js").catch(() => {});

/** One of index.html's own elements: always there. @param {string} sel */
const $ = (sel) => /** @type {HTMLElement} */ (document.querySelector(sel));
const notice = createNotice($('[data-testid="notice"]'));
showEngineStatus($('[data-testid="engine"]'), engine);
mountThemeToggle($('[data-testid="theme-toggle"]'));

// ------------------------------------------------------------------------------------------
// the state and its one update path

const examples = await loadExamples();
const opening = await openingState(examples, { local: !embedMode });
if (opening.problem) {
  notice(`This link could not be opened (${opening.problem}), so the page shows the default example instead.`, {
    kind: "warning",
    sticky: true,
  });
}
let state = initialPageState(opening.doc, opening.exampleId, signatureOf(opening.doc.code) ?? null);
// what an embed's programs are of: it hides the mode tabs (and, read-only, the inputs)
const embedCaption = embedMode ? createEmbedCaption($("#stage")) : null;
embedCaption?.render(state);
const getState = () => state;
/** @typedef {import("./page/update.js").Doc} Doc */
/** @typedef {import("./page/update.js").PageState} PageState */
/** A change of page/update.js's list; here only the fields every change may have are read.
 *  @typedef {{type: string, run?: string, byUser?: boolean, from?: string}} Change */
/** @param {Doc} doc */
const sameAsExample = (doc) => {
  const ex = examples.examples.find((e) => e.id === state.exampleId);
  return ex !== undefined && ex.code === doc.code && ex.mode === doc.mode;
};

let rendering = false;
/** @type {Change[]} */
const queue = [];
/** The one way the state changes: the UI, the engine's answers and window.explainer.
 *  @param {object} change */
function dispatch(change) {
  queue.push(/** @type {Change} */ (change));
  if (rendering) return; // a view answered a change: it runs once this one is drawn
  rendering = true;
  try {
    while (queue.length) {
      const c = /** @type {Change} */ (queue.shift());
      const prev = state;
      state = update(prev, c, sameAsExample);
      // effects first: a change's engine request is queued before any view's microtask, so
      // it leaves before the editor's redraw (render)
      effects(prev, state, c);
      render(prev, state, c);
    }
  } finally {
    rendering = false;
  }
}

// ------------------------------------------------------------------------------------------
// effects: the engine runs and the address bar follows

// Every example in every mode is answered at build time (tools/precompute.py), one file per
// example, fetched when the page first needs one of its records (each checked against the
// contract when first used): a switch of example or mode never waits for Python, and a reader
// who stays on the opening example never fetches (nor parses) the others.
/** @type {Map<string, Promise<void>>} */
const exampleFiles = new Map(); // example id -> the promise of its records, seeded
/** @type {Set<string>} */
const exampleFilesIn = new Set(); // the ids whose file came (or failed: Python answers then)
/** @param {string} id */
function exampleFile(id) {
  if (!exampleFiles.has(id)) {
    const url = new URL(`../precomputed/${encodeURIComponent(id)}.json`, import.meta.url);
    const seeded = fetch(url, { cache: "no-cache" })
      .then((r) => (r.ok ? r.json() : null))
      .then((file) => {
        for (const [key, answer] of Object.entries(file?.records ?? {})) session.answers.seed(key, answer);
      })
      .catch(() => {})
      .finally(() => exampleFilesIn.add(id));
    exampleFiles.set(id, seeded);
  }
  return exampleFiles.get(id);
}
/** The files still to come of the examples with this code (several share one, with other
 *  policies), or null. @param {string} code */
function exampleRecords(code) {
  const ids = examples.examples.filter((ex) => ex.code === code && !exampleFilesIn.has(ex.id)).map((ex) => ex.id);
  return ids.length ? Promise.all(ids.map(exampleFile)) : null;
}
const session = createSession({ engine, getState, dispatch, settled: () => window.explainer.settled() });
const runner = createRunner({ engine, session, getState, dispatch, exampleRecords });
const address = createAddressBar({
  getState,
  notice,
  local: !embedMode,
  onLink: (doc) => dispatch({ type: "load", doc, exampleId: matchExample(examples, doc), byUser: false, run: "now" }),
});

// What the reader did goes into the link; what the page did on its own (a record drawn, a
// link followed) does not.
const READER_EDITS = new Set(["code", "known", "value", "mode", "policy", "folding", "instantiate"]);

/** @param {PageState} prev @param {PageState} next @param {Change} change */
function effects(prev, next, change) {
  if (change.run && changesRequest(change)) runner.schedule(change.run === "debounced" ? EDIT_DEBOUNCE_MS : 0);
  const byReader = change.byUser ?? READER_EDITS.has(change.type);
  if (next.touched && byReader && next !== prev) address.schedule();
}

async function permalink() {
  dispatch({ type: "touch" });
  return address.permalink();
}
mountShare(
  {
    share: $('[data-testid="share"]'),
    copyAsJax: $('[data-testid="copy-as-jax"]'),
    copyEmbed: $('[data-testid="copy-embed"]'),
  },
  {
    permalink,
    getState,
    notice,
  },
);

// The embedding API, at once: the page has an element with id "explainer", which would
// otherwise stand in for window.explainer while the stage loads.
const recordWatchers = new Set(); // window.explainer.onRecord's
window.explainer = createApi({
  recordWatchers,
  getState,
  dispatch,
  whenIdle: runner.whenIdle,
  stagePanel: {
    step: () => stagePanel?.step() ?? null,
    stepCount: () => stagePanel?.stepCount() ?? null,
    setStep: (/** @type {number} */ n) => stagePanel?.setStep(n),
    drawn: () => stagePanel?.drawn(),
  },
  permalink,
  examples,
  openedFrom: opening.openedFrom,
});
if (embedMode) {
  mountEmbedFooter($("#stage-panel"));
  mountEmbedApi(window.explainer);
}

// ------------------------------------------------------------------------------------------
// views

/** @type {number | null} */
let hoverLine = null;
/** @type {number | null} */
let cursorLine = null;
const editor = createEditorSlot($('[data-testid="editor"]'), {
  doc: state.doc.code,
  onChange: (code) => dispatch({ type: "code", code, from: "editor", run: "debounced" }),
  onCursorLine(line) {
    cursorLine = line;
    if (hoverLine === null) stagePanel?.highlight(line);
  },
  onHoverLine(line) {
    hoverLine = line;
    stagePanel?.highlight(line !== null ? line : cursorLine !== null && editor.hasFocus() ? cursorLine : null);
  },
  onRun: () => runner.schedule(0),
  readOnly: embedMode === "read",
  onFail: () =>
    notice("The code editor could not be loaded (the network?): reload the page to edit the code.", {
      kind: "warning",
      sticky: true,
    }),
});
// Skip links move focus, not only the scroll: into the editor, or onto the stage's programs.
const skipTargets = { "skip-editor": () => editor.focus(), "skip-stage": () => stagePanel?.focus() };
for (const [testid, focus] of Object.entries(skipTargets)) {
  $(`[data-testid="${testid}"]`).addEventListener("click", (/** @type {Event} */ e) => {
    e.preventDefault();
    focus();
  });
}
const controls = createControls(controlElements($), examples, getState, dispatch);
const errorView = createErrorView({
  box: $('[data-testid="error"]'),
  badge: $('[data-testid="stale"]'),
  panel: $("#stage-panel"),
  editor,
});
const maskExplorer = createMaskExplorer($('[data-testid="mask-explorer"]'), { getState, dispatch });
/** @type {ReturnType<typeof initSections> | null} */
let sections = null; // the demos' context, once started
const instantiate = createInstantiate($('[data-testid="instantiate"]'), { getState, dispatch });
if (!embedMode) mountTour($(".stage-head"), { getState }); // the seed's five questions, on the reader's function
/** @type {Awaited<ReturnType<typeof createStagePanel>> | null} */
let stagePanel = null; // once app/stage/ has loaded (or failed to)

// The editor takes code it did not type (window.explainer, an example, a link) in a microtask:
// after the engine request the change queued (effects), which then overlaps CodeMirror's update
// (3 to 6 ms of the task, measured on an API edit) instead of waiting for it.
let editorBehind = false;
function editorFollows() {
  if (editorBehind) return;
  editorBehind = true;
  queueMicrotask(() => {
    editorBehind = false;
    editor.setDoc(state.doc.code);
  });
}

/** The demos follow the main record drawn for the doc's own request (a record of an older
 *  request is drawn while the doc's is asked: they wait for that).
 *  @param {PageState} s */
function followedBySections(s) {
  if (!sections || !s.record) return;
  const request = requestFor(s.doc);
  const key = requestKey(request);
  if (key === s.recordKey) sections.setMain(s.record, request, key);
}

/** @param {PageState} prev @param {PageState} next @param {Change} change */
function render(prev, next, change) {
  if (next.doc.code !== prev.doc.code && change.from !== "editor") editorFollows();
  if (
    next.doc !== prev.doc ||
    next.exampleId !== prev.exampleId ||
    next.record !== prev.record ||
    next.error !== prev.error ||
    next.signature !== prev.signature
  ) {
    controls(next);
  }
  if (next.error !== prev.error || next.record !== prev.record) errorView(next);
  // (an error too: a source the engine cannot read is known to have no function only then)
  if (next.doc !== prev.doc || next.signature !== prev.signature || next.error !== prev.error) {
    session.wantMasks(wantedMasks(next)); // (none: the last one wanted is not asked any more)
  }
  if (
    next.doc !== prev.doc ||
    next.signature !== prev.signature ||
    next.error !== prev.error ||
    next.masks !== prev.masks
  ) {
    maskExplorer(next);
  }
  if (next.record !== prev.record) followedBySections(next);
  if (next.doc !== prev.doc) embedCaption?.render(next);
  if (next.record !== prev.record || next.doc.mode !== prev.doc.mode) instantiate(next);
  stagePanel?.render(prev, next);
}

// ------------------------------------------------------------------------------------------
// start: controls, first frame (precomputed), stage, then runs as the engine answers

// The start in several tasks (yieldToMain), the stage on screen being the build's meanwhile:
// one task of it all held the main thread for 50 ms.
adoptFirstFrame(requestKey(requestFor(state.doc)));
controls(state);
const [precomputed, panel] = await Promise.all([
  precomputedPromise,
  createStagePanel({
    root: $("#stage"),
    panel: $("#stage-panel"),
    editor,
    dispatch,
    onRecord: (record) => recordWatchers.forEach((cb) => cb(record)),
  }),
]);
stagePanel = panel;
if (state.record) stagePanel.render({ ...state, record: null }, state); // answered while it loaded
// The first frame: every opening request's record, answered at build time, each checked
// against the contract when first used (the engine is asked instead of one that breaks it):
// checking them all here, the checkpoint demo's 200 KB included, took 20 ms of the start.
for (const [key, rec] of Object.entries(precomputed?.records ?? {})) session.answers.seed(key, rec);
session.wantMasks(wantedMasks(state)); // after the seeds: the opening state's masks are among them
maskExplorer(state);
await yieldToMain();
// the explainer's sections below the tool (app/sections/), following the record drawn above
sections = initSections({ engine, explainer: window.explainer, session });
followedBySections(state);
await yieldToMain();

const firstKey = requestKey(requestFor(state.doc));
const firstAnswer = session.answers.get(firstKey);
if (firstAnswer) dispatch({ type: "answer", answer: firstAnswer, key: firstKey });
else dispatch({ type: "waiting", on: true });
document.documentElement.dataset.firstFrame = firstAnswer ? "precomputed" : "waiting";
runner.schedule(0);

// the opening example's other modes, fetched once the first frame is drawn (a mode switch)
onIdle(async () => {
  await exampleRecords(state.doc.code);
  document.documentElement.dataset.examplesPrecomputed = "ready";
});

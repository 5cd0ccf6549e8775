// The stage: animates one engine record (split, jit, grad, checkpoint) inside `root`.
//
//   const stage = createStage(root, {onLink});
//   stage.setRecord(record, {step, key}); // step defaults to the end (the finished split)
//   stage.setPolicies(record); stage.setRest(record);  // the same split: more policies; calls opened, saved residuals
//   stage.setStep(n); stage.getStep(); stage.stepCount(); stage.play(); stage.pause();
//   stage.reveal(n); stage.top  // predict mode: opts.gate(model, source) is the step others may reach
//   stage.highlight({line} | {event} | {residual} | null);   // from the shell (editor cursor)
//   stage.drawn();                     // lay out what is pending (the edges) now
//   const off = stage.onStepChange((step, {source, line, hue}) => ...);  // permalink, editor
//   stage.destroy();
//
// onLink(link|null): the user hovers/focuses an equation ({event, line}) or a residual ({residual, event, line}).
//
// This module orchestrates: the model (model.js) is a pure function of the record, the DOM of a record
// is built once (view.js), a step only toggles what changed (timeline.js), and the rest has a module each.

import { renderCheckpoint } from "./checkpoint.js";
import { createControls } from "./controls.js";
import { createDiffMarks } from "./diff.js";
import { h } from "./dom.js";
import { createFirstFrame } from "./first-frame.js";
import { createFlights } from "./flight.js";
import { createHighlighter } from "./highlight.js";
import { bindStageKeys } from "./keys.js";
import { enterInside, showInside } from "./inside.js";
import { buildModel, insideCall, narrationText } from "./model.js";
import { residualAfter, residualText, unknownStep } from "./nav.js";
import { badgeRole } from "./panes.js";
import { bindPointerLinks } from "./pointer-links.js";
import { createPlayer } from "./player.js";
import { createRoving } from "./roving.js";
import { updatable, updateDrawn } from "./reconcile.js";
import { createTimeline } from "./timeline.js";
import { buildView, completeView, frameScroller, keepInView, renewPolicies, scrollRowIntoView } from "./view.js";
const SCRUB_DEBOUNCE_MS = 450;
const EQNS = '[data-testid="eqn"]'; // every pane's equations (HTML elements)
/** @typedef {(step: number, info: {source: string, line: number | null, hue: number | null}) => void} StepListener */
/**
 * @param {HTMLElement} root
 * @param {{onLink?: ((link: import("./model.js").Link | null) => void) | null, keyboard?: boolean,
 *          recordFirstFrame?: Element[] | null, gate?: Function | null}} [opts]
 *   recordFirstFrame: the build's list of the elements made for the chrome and the first
 *   record's view, in order (tools/prerender.mjs writes their places into `data-made`)
 */
export function createStage(root, { onLink = null, keyboard = true, recordFirstFrame = null, gate = null } = {}) {
  const reducedQuery = matchMedia("(prefers-reduced-motion: reduce)");
  let reduced = reducedQuery.matches;
  const onReducedChange = (/** @type {MediaQueryListEvent} */ e) => {
    reduced = e.matches;
  };
  reducedQuery.addEventListener("change", onReducedChange);
  // the build's first frame: taken over as the chrome and the first view are made
  const firstFrame = createFirstFrame(root, recordFirstFrame);

  let model = buildModel(null);
  let step = 0;
  let view = /** @type {ReturnType<typeof buildView> | null} */ (null); // the record's DOM (view.js)
  let narrTimer = 0;
  let selectedResidual = /** @type {number | null} */ (null);
  const stepListeners = /** @type {Set<StepListener>} */ (new Set());
  const timeline = createTimeline();
  const flights = createFlights();
  const highlighter = createHighlighter(root);
  const player = createPlayer({
    step: () => step,
    total: () => model.total,
    advance: () => applyStep(step + 1, { source: "play", animate: true }),
    restart: () => applyStep(0, { source: "play" }),
    changed(playing) {
      if (playing) root.dataset.playing = "true";
      else delete root.dataset.playing;
      syncControls();
    },
  });

  root.classList.add("stage");
  // the build's frame stays until the first record: taken over if it is its record's, else drawn over
  let prerendered = root.dataset.prerendered != null;
  if (!prerendered) Object.assign(root.dataset, { mode: "empty", kind: "empty" });
  const chrome = () => ({
    staleNote: h("p", { class: "st-stale-note", hidden: true }),
    controls: createControls(),
    diffs: createDiffMarks(),
    content: h("div", { class: "st-content" }),
  });
  let parts = firstFrame.run(chrome);
  if (firstFrame.broken()) parts = chrome();
  const { staleNote, controls, diffs, content } = parts;
  const attach = () => root.replaceChildren(staleNote, controls.top, diffs.note, content, controls.keysHint);
  if (!prerendered) attach();
  // the sticky controls' height: rows scrolled into view stop below it (view.js)
  const topObserver = new ResizeObserver(() =>
    root.style.setProperty("--st-top-h", `${Math.ceil(controls.top.getBoundingClientRect().height)}px`),
  );
  topObserver.observe(controls.top);

  // web fonts arriving late move every anchor (reading fonts.ready forces a layout: once)
  const onFonts = () => view?.edges?.schedule(true);
  document.fonts?.addEventListener?.("loadingdone", onFonts);

  // the equations of every pane are one tab stop; the residual chips another
  const paneKeys = createRoving(content, {
    items: () => (view ? [.../** @type {NodeListOf<HTMLElement>} */ (view.wrap.querySelectorAll(EQNS))] : []),
    lane: (el) => el.dataset.pane ?? null,
    onActivate(el) {
      const toggle = el.querySelector(':scope > .st-eqn-tags > [data-testid="call-toggle"]');
      if (toggle) /** @type {HTMLElement} */ (toggle).click();
      else if (el.dataset.event != null && el.dataset.depth === "0") userStep(Number(el.dataset.event) + 1);
    },
  });
  /** The residual chips' tab stop: kept on a chip revealed at the step shown.
   *  @type {ReturnType<typeof createRoving> | null} */
  let resKeys = null;

  // ---------------------------------------------------------------- steps
  /** The step `want` comes to: within the record, and where the gate lets `source` go. */
  const stepFor = (/** @type {unknown} */ want, /** @type {string} */ source) =>
    Math.max(0, Math.min(gate?.(model, source) ?? model.total, Math.round(Number(want) || 0)));
  function applyStep(/** @type {number} */ want, { source = "api", animate = false } = {}) {
    const next = stepFor(want, source);
    const prev = step;
    flights.finish();
    const anim = animate && next === prev + 1 && !reduced;
    root.toggleAttribute("data-anim", anim);
    timeline.move(prev, next);
    step = next;
    if (!model.inside) for (const pv of view?.panes ?? []) pv.showStep(step);
    const insideRow = model.inside ? showInside(model, step) : null;
    syncControls();
    announce(source === "scrub" ? SCRUB_DEBOUNCE_MS : 0);
    // the reader is watching (play, buttons, keys): the page follows the equation too
    const page = ["play", "user", "key", "predict"].includes(source);
    // a new split shown whole stays at its first lines (its scroller is new, at the top; no layout read)
    const wholeNew = source === "record" && next === model.total;
    if (insideRow && !wholeNew && next !== prev) scrollRowIntoView(view, insideRow, page);
    else if (!wholeNew && next > 0 && next !== prev) {
      if (anim) {
        keepInView(view, model, next - 1, page); // the flight needs the target on screen now
        flights.fly(view, model, next - 1, player.speed);
      } else {
        scheduleKeepInView(next - 1, page);
      }
    }
    // scheduled after the scroll's frame callback: it reads layout before the edges write it
    if (!model.inside) view?.edges?.setStep(step);
    if (view && source !== "user" && source !== "key") paneKeys.refresh(currentEqn());
    resKeys?.refresh();
    if (next !== prev || source === "record") {
      const ev = step > 0 ? model.events[step - 1] : null;
      const line = ev?.line ?? null;
      const info = { source, line, hue: line != null ? (model.lineHue.get(line) ?? null) : null };
      for (const cb of stepListeners) cb(step, info);
    }
  }

  /** The element of the event just judged (its last place), for the roving tab stop. */
  function currentEqn() {
    const place = step > 0 ? model.events[step - 1].places.at(-1) : null;
    return place ? view?.panes[place[0]]?.eqnEls[place[1]] : null;
  }

  function syncControls() {
    const event = step > 0 ? model.events[step - 1] : null;
    controls.sync({
      step,
      total: model.total,
      playing: player.playing,
      event,
      residuals: model.residuals.length,
      unknowns: model.events.some((e) => ["unknown", "both"].includes(badgeRole(e.side))),
    });
    root.dataset.step = String(step);
  }

  function announce(/** @type {number} */ delay) {
    clearTimeout(narrTimer);
    const write = () => controls.narrate(narrationText(model, step), { step });
    if (delay) narrTimer = setTimeout(write, delay);
    else write();
  }

  const scheduleKeepInView = frameScroller(() => ({ view, model }));
  // ---------------------------------------------------------------- controls and keys
  function userStep(/** @type {number} */ n, source = "user") {
    player.pause();
    applyStep(n, { source, animate: n === step + 1 });
  }

  /** Select residual k: shown, lit, its ends scrolled into view, and said. */
  function selectResidual(/** @type {number | null} */ k) {
    if (k == null) return;
    selectedResidual = k;
    const r = model.residuals[k];
    if (step < r.reveal) userStep(Math.max(r.reveal, ...r.consumers.map((c) => c + 1)));
    links.forget();
    highlighter.apply(model, view, { residual: k });
    const ends = [r.producer, r.consumers[0]].filter((i) => i != null);
    for (const i of ends) {
      const [pi, j] = model.events[i].places.at(0) ?? /** @type {number[]} */ ([]);
      if (pi != null && view) scrollRowIntoView(view, view.panes[pi].eqnEls[j], false);
    }
    controls.narrate(residualText(model, k));
  }

  const nav = {
    step: userStep,
    current: () => step,
    total: () => model.total,
    toggle: () => player.toggle(),
    residual: (/** @type {number} */ dir) => {
      if (model.kind === "panes") selectResidual(residualAfter(model, selectedResidual, dir));
    },
    unknown: (/** @type {number} */ dir) => {
      const s = model.kind === "panes" ? unknownStep(model, step, dir) : null;
      if (s != null) userStep(s, "key");
    },
  };
  const { first, prev, next, last, play, resPrev, resNext, unknownNext } = controls.buttons;
  first.addEventListener("click", () => userStep(0));
  prev.addEventListener("click", () => userStep(step - 1));
  next.addEventListener("click", () => userStep(step + 1));
  last.addEventListener("click", () => userStep(model.total));
  play.addEventListener("click", () => player.toggle());
  resPrev.addEventListener("click", () => nav.residual(-1));
  resNext.addEventListener("click", () => nav.residual(1));
  unknownNext.addEventListener("click", () => nav.unknown(1));
  controls.timeline.addEventListener("input", () => {
    player.pause();
    applyStep(Number(controls.timeline.value), { source: "scrub" });
  });
  controls.timeline.addEventListener("change", () => announce(0));
  controls.speed.addEventListener("change", () => player.setSpeed(Number(controls.speed.value)));
  const unbindKeys = keyboard ? bindStageKeys(root, () => model, nav) : () => {};

  // ---------------------------------------------------------------- linked highlighting
  const links = bindPointerLinks(content, {
    model: () => model,
    show: (link) => highlighter.apply(model, view, link),
    onLink,
    stepTo: (event) => userStep(event + 1),
  });

  // ---------------------------------------------------------------- records
  function teardownRecord() {
    player.pause();
    flights.finish();
    highlighter.clear(view);
    clearTimeout(narrTimer);
    view?.edges?.destroy();
    view = null;
    links.forget();
    selectedResidual = null;
  }

  /** @param {any} record an engine answer of any mode, or an error: buildModel finds out which @param {{step?: number | string | null, key?: string | null}} [opts] */
  function setRecord(record, { step: want = null, key = null } = {}) {
    if (record && record.error && model.kind !== "empty") {
      // keep the last good split on screen, marked stale
      root.dataset.stale = "true";
      staleNote.hidden = false;
      staleNote.textContent = "The code has an error: showing the last split that worked.";
      player.pause();
      return;
    }
    delete root.dataset.stale;
    staleNote.hidden = true;
    const prevModel = model.inside?.outer ?? model; // a split is compared with the one before, outside any remat
    const drawn = view && !prerendered && !model.inside ? model : null; // its DOM is updated if it can be
    teardownRecord();
    model = buildModel(record);
    root.dataset.mode = model.mode || model.kind;
    root.dataset.kind = model.kind; // panes | checkpoint (cards only) | error | empty
    // the build's elements show the step it drew (its classes too): the step moves from there
    const inside = insideCall(record); // checkpoint: it steps inside its remat (inside.js)
    step = firstFrame.startStep(key, inside ? inside.events.length : model.total);
    timeline.reset(model.total, step);
    const outer = model;
    const wanted = () => (want == null || want === "" ? model.total : Number(want)); // model: inside a remat too
    // a new split of the drawn one's shape: the DOM drawn is updated (reconcile.js), its
    // elements shown at the step the new one starts at, so that only what differs is written
    const update = drawn && !inside && updatable(drawn, outer);
    const settle = (/** @type {import("./view.js").View} */ v) => {
      diffs.stop();
      timeline.move(step, (step = stepFor(wanted(), "record")));
      updateDrawn(content, v, timeline);
    };
    const viewOf = () => {
      const v = buildView(outer, timeline, (l) => onLink?.(l), update ? settle : null);
      if (inside) model = enterInside(v, outer, timeline, step);
      return v;
    };
    if (model.kind === "panes") {
      view = firstFrame.run(viewOf);
      if (firstFrame.broken(true)) {
        view.edges?.destroy();
        step = 0;
        timeline.reset(outer.total);
        view = viewOf();
      }
      if (!leaveFirstFrame() && !update) content.replaceChildren(...view.nodes);
      resKeys = view.resList ? createRoving(view.resList, { items: () => view?.resChips ?? [] }) : null;
      resKeys?.refresh();
      applyStep(wanted(), { source: "record" });
      diffs.show(prevModel, outer, view);
      view.edges?.schedule(true);
      return;
    }
    leaveFirstFrame();
    diffs.show(null, model, view);
    if (model.kind === "checkpoint") {
      content.replaceChildren(renderCheckpoint(record, { onLink: (l) => onLink?.(l) }));
      controls.narrate(`Comparing ${(record.policies || []).length} checkpoint policies.`, { plain: true });
    } else {
      const msg =
        model.kind === "error"
          ? `Nothing to show: ${record.error?.message ?? "the engine reported an error"}.`
          : "Nothing to show yet.";
      content.replaceChildren(h("p", { class: "st-placeholder" }, msg));
      controls.narrate("", { plain: true });
    }
    syncControls();
  }

  /** After the first record: whether the build's frame was taken over; if not, it is
   *  drawn over now. */
  function leaveFirstFrame() {
    const kept = firstFrame.finish();
    if (!prerendered) return kept;
    prerendered = false;
    delete root.dataset.prerendered;
    delete root.dataset.made;
    if (!kept) attach();
    return kept;
  }

  /** The record drawn with more of its policies answered (the caller knows its split is the
   *  one drawn: app/page/pending-policies.js sameSplit): the cards and the memory chart are
   *  drawn again; the split, its step, its marks and its diff stay as they are. */
  function setPolicies(/** @type {any} */ record) {
    model = { ...model, record };
    renewPolicies(view, record, (l) => onLink?.(l));
  }

  // ---------------------------------------------------------------- API
  return {
    setRecord,
    setPolicies,
    setRest(/** @type {any} */ record) {
      model = completeView(view, model, record);
      if (!view || model.inside || !insideCall(record)) return;
      model = enterInside(view, model, timeline, (step = 0)); // its remat opened now: step inside
      applyStep(model.total, { source: "record" });
    },
    setStep(/** @type {number} */ n) {
      player.pause();
      applyStep(n, { source: "api" });
    },
    getStep: () => step,
    stepCount: () => model.total,
    drawn: () => view?.edges?.flush(),
    /** Focus the programs' tab stop (or the play button when there are no programs). */
    focus() {
      const el = paneKeys.current();
      if (el && view && el.isConnected) el.focus();
      else controls.buttons.play.focus();
    },
    play: () => player.play(),
    pause: () => player.pause(),
    reveal: (/** @type {number} */ n) => applyStep(n, { source: "predict", animate: n === step + 1 }),
    top: controls.top, // the sticky controls: a mode of stepping (app/stage/predict-view.js) shows there
    highlight(/** @type {import("./model.js").Link | null} */ link) {
      links.forget();
      const first = highlighter.apply(model, view, link);
      if (first != null) {
        const [pi, j] = model.events[first].places.at(0) ?? /** @type {number[]} */ ([]);
        if (pi != null && view) scrollRowIntoView(view, view.panes[pi].eqnEls[j], false);
      }
    },
    onStepChange(/** @type {StepListener} */ cb) {
      stepListeners.add(cb);
      return () => stepListeners.delete(cb);
    },
    destroy() {
      teardownRecord();
      diffs.stop();
      unbindKeys();
      topObserver.disconnect();
      document.fonts?.removeEventListener?.("loadingdone", onFonts);
      reducedQuery.removeEventListener("change", onReducedChange);
      stepListeners.clear();
      root.replaceChildren();
      flights.destroy();
      root.classList.remove("stage");
      for (const k of ["mode", "kind", "step", "stale", "hl", "playing", "anim"]) delete root.dataset[k];
    },
  };
}

export { badgeRole };

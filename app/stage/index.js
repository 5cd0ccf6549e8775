// The stage: animates one engine record (split, jit, grad, checkpoint) inside `root`.
//
//   const stage = createStage(root, {onLink});
//   stage.setRecord(record, {step});   // step defaults to the end (the finished split)
//   stage.setStep(n); stage.getStep(); stage.play(); stage.pause();
//   stage.highlight({line} | {event} | {residual} | null);   // from the shell (editor cursor)
//   const off = stage.onStepChange((step, {source}) => ...);  // for the permalink
//   stage.destroy();
//
// onLink(link|null) is called when the user hovers or focuses an equation or a residual:
// link = {event, line} or {residual, event, line}; null when the hover/focus leaves.
//
// This module orchestrates: the model (model.js) is a pure function of the record, the DOM of
// a record is built once (view.js), a step only toggles what changed (timeline.js), and the
// controls, play, the flight and the highlighting each live in their own module.

import { renderCheckpoint } from "./checkpoint.js";
import { createControls } from "./controls.js";
import { h, isActivatable, isTypingTarget, ownsArrowKeys } from "./dom.js";
import { createFlights } from "./flight.js";
import { createHighlighter, linkOf } from "./highlight.js";
import { buildModel, narrationText } from "./model.js";
import { badgeRole } from "./panes.js";
import { createPlayer } from "./player.js";
import { createTimeline } from "./timeline.js";
import { buildView, keepInView, scrollBodyTo } from "./view.js";

const SCRUB_DEBOUNCE_MS = 450;

export function createStage(root, { onLink = null, keyboard = true } = {}) {
  const reducedQuery = matchMedia("(prefers-reduced-motion: reduce)");
  let reduced = reducedQuery.matches;
  const onReducedChange = (e) => {
    reduced = e.matches;
  };
  reducedQuery.addEventListener("change", onReducedChange);

  let model = buildModel(null);
  let step = 0;
  let view = null; // the record's DOM (view.js)
  let narrTimer = 0;
  let hoverKey = null;
  const stepListeners = new Set();
  const controls = createControls();
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
  root.dataset.mode = "empty";
  root.dataset.kind = "empty";
  const staleNote = h("p", { class: "st-stale-note", hidden: true });
  const content = h("div", { class: "st-content" });
  root.replaceChildren(staleNote, controls.top, content, controls.keysHint);

  // web fonts arriving late move every anchor (reading fonts.ready forces a layout: once)
  const onFonts = () => view?.edges?.schedule(true);
  document.fonts?.addEventListener?.("loadingdone", onFonts);

  // ---------------------------------------------------------------- steps
  function applyStep(want, { source = "api", animate = false } = {}) {
    const next = Math.max(0, Math.min(model.total, Math.round(Number(want) || 0)));
    const prev = step;
    flights.finish();
    const anim = animate && next === prev + 1 && !reduced;
    if (anim) root.dataset.anim = "";
    else delete root.dataset.anim;
    timeline.move(prev, next);
    step = next;
    syncControls();
    announce(source === "scrub" ? SCRUB_DEBOUNCE_MS : source === "record" ? 120 : 0);
    if (next > 0 && next !== prev) {
      if (anim) {
        keepInView(view, model, next - 1); // the flight needs the target on screen now
        flights.fly(view, model, next - 1, player.speed);
      } else {
        scheduleKeepInView(next - 1);
      }
    }
    if (next !== prev || source === "record") {
      for (const cb of stepListeners) cb(step, { source });
    }
  }

  function syncControls() {
    const event = step > 0 ? model.events[step - 1] : null;
    controls.sync({ step, total: model.total, playing: player.playing, event });
    root.dataset.step = String(step);
  }

  function announce(delay) {
    clearTimeout(narrTimer);
    const write = () => controls.narrate(narrationText(model, step), { step });
    if (delay) narrTimer = setTimeout(write, delay);
    else write();
  }

  // Scrubbing: scroll once per frame, for the latest step only, inside the frame's own layout.
  let viewFrame = 0;
  let viewTarget = -1;
  function scheduleKeepInView(i) {
    viewTarget = i;
    if (viewFrame) return;
    viewFrame = requestAnimationFrame(() => {
      viewFrame = 0;
      if (viewTarget >= 0 && viewTarget < model.total) keepInView(view, model, viewTarget);
    });
  }

  // ---------------------------------------------------------------- controls and keys
  const userStep = (n, source = "user") => {
    player.pause();
    applyStep(n, { source, animate: n === step + 1 });
  };
  const { first, prev, next, last, play } = controls.buttons;
  first.addEventListener("click", () => userStep(0));
  prev.addEventListener("click", () => userStep(step - 1));
  next.addEventListener("click", () => userStep(step + 1));
  last.addEventListener("click", () => userStep(model.total));
  play.addEventListener("click", () => player.toggle());
  controls.timeline.addEventListener("input", () => {
    player.pause();
    applyStep(Number(controls.timeline.value), { source: "scrub" });
  });
  controls.timeline.addEventListener("change", () => announce(0));
  controls.speed.addEventListener("change", () => player.setSpeed(Number(controls.speed.value)));

  const KEY_STEPS = {
    ArrowLeft: () => step - 1,
    ArrowRight: () => step + 1,
    Home: () => 0,
    End: () => model.total,
  };
  function onKey(e) {
    if (!keyboard || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (!root.isConnected || model.kind !== "panes" || !model.total) return;
    const active = document.activeElement;
    if (isTypingTarget(active) || ownsArrowKeys(active)) return;
    if (root.closest("[inert]") || root.hidden) return;
    if (KEY_STEPS[e.key]) {
      userStep(KEY_STEPS[e.key](), "key");
    } else if (e.key === " " || e.key === "Spacebar") {
      if (isActivatable(active) || e.repeat) return;
      player.toggle();
    } else {
      return;
    }
    e.preventDefault();
  }
  document.addEventListener("keydown", onKey);

  // ---------------------------------------------------------------- linked highlighting
  function userLink(link) {
    const key = link ? JSON.stringify(link) : null;
    if (key === hoverKey) return;
    hoverKey = key;
    highlighter.apply(model, view, link);
    try {
      onLink?.(link);
    } catch (err) {
      console.error(err);
    }
  }
  const linkAt = (el) => linkOf(model, content, el);
  content.addEventListener("mouseover", (e) => userLink(linkAt(e.target)));
  content.addEventListener("mouseleave", () => {
    userLink(content.contains(document.activeElement) ? linkAt(document.activeElement) : null);
  });
  content.addEventListener("focusin", (e) => userLink(linkAt(e.target)));
  content.addEventListener("focusout", (e) => {
    if (!content.contains(/** @type {Node} */ (e.relatedTarget))) userLink(null);
  });
  content.addEventListener("click", (e) => {
    const chip = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest?.(".st-chip"));
    if (chip && content.contains(chip)) userStep(Number(chip.dataset.event) + 1);
  });

  // ---------------------------------------------------------------- records
  function teardownRecord() {
    player.pause();
    flights.finish();
    highlighter.clear(view);
    clearTimeout(narrTimer);
    view?.edges?.destroy();
    view = null;
    hoverKey = null;
  }

  function setRecord(record, { step: want = null } = {}) {
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
    teardownRecord();
    model = buildModel(record);
    root.dataset.mode = model.mode || model.kind;
    root.dataset.kind = model.kind; // panes | checkpoint (cards only) | error | empty
    timeline.reset(model.total);
    step = 0;
    if (model.kind === "panes") {
      view = buildView(model, timeline, (l) => onLink?.(l));
      content.replaceChildren(...view.nodes);
      applyStep(want == null || want === "" ? model.total : Number(want), { source: "record" });
      view.edges?.schedule(true);
      return;
    }
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

  // ---------------------------------------------------------------- API
  return {
    setRecord,
    setStep(n) {
      player.pause();
      applyStep(n, { source: "api" });
    },
    getStep: () => step,
    play: () => player.play(),
    pause: () => player.pause(),
    highlight(link) {
      hoverKey = null;
      const first = highlighter.apply(model, view, link);
      if (first != null) for (const [pi, j] of model.events[first].places) scrollBodyTo(view, pi, j);
    },
    onStepChange(cb) {
      stepListeners.add(cb);
      return () => stepListeners.delete(cb);
    },
    destroy() {
      teardownRecord();
      document.removeEventListener("keydown", onKey);
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

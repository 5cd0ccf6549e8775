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
// The DOM is built once per record; a step only toggles classes on what changed between the
// old and the new step (`groups`), so scrubbing a 200-equation record stays cheap. The only
// movement is the equation flying from the traced strip into its pane (Web Animations,
// transform + opacity only), skipped under prefers-reduced-motion.

import { renderCheckpoint } from "./checkpoint.js";
import {
  formatBytes, h, isActivatable, isTypingTarget, ownsArrowKeys, richText, s,
} from "./dom.js";
import { EdgeLayer } from "./edges.js";
import { buildModel, narrationText, resolveLink } from "./model.js";
import { badgeRole, renderPane, renderTrace } from "./panes.js";
import { renderTable } from "./table.js";

const BASE_INTERVAL_MS = 1300; // one step at 1x
const FLIGHT_MS = 560;
const SCRUB_DEBOUNCE_MS = 450;
const SPEEDS = [0.5, 1, 2];

function icon(name) {
  const paths = {
    first: "M5 4h2v12H5z M16 4 8 10l8 6z",
    prev: "M14 4 6 10l8 6z",
    next: "M6 4l8 6-8 6z",
    last: "M13 4h2v12h-2z M4 4l8 6-8 6z",
    play: "M6 3.5 16 10 6 16.5z",
    pause: "M5 4h3.5v12H5z M11.5 4H15v12h-3.5z",
  };
  return s("svg", { class: "st-icon", viewBox: "0 0 20 20", "aria-hidden": "true", focusable: "false" },
    s("path", { d: paths[name] }));
}

export function createStage(root, { onLink, keyboard = true } = {}) {
  const reducedQuery = matchMedia("(prefers-reduced-motion: reduce)");
  let reduced = reducedQuery.matches;
  const onReducedChange = (e) => { reduced = e.matches; };
  reducedQuery.addEventListener("change", onReducedChange);

  let model = buildModel(null);
  let step = 0;
  let playing = false;
  let speed = 1;
  let timer = 0;
  let narrTimer = 0;
  let groups = [[]];
  let current = []; // [eventIndex] -> elements marked is-current
  let view = null; // per-record DOM handles
  let hlEls = [];
  let hoverKey = null;
  let flights = [];
  const stepListeners = new Set();

  // ---------------------------------------------------------------- persistent chrome
  root.classList.add("stage");
  root.dataset.mode = "empty";
  root.dataset.kind = "empty";
  const btn = (name, testid, label) => h("button", {
    type: "button", class: "st-btn st-btn--icon", "data-testid": testid, "aria-label": label,
    title: label,
  }, icon(name));
  const firstBtn = btn("first", "step-first", "First step (Home)");
  const prevBtn = btn("prev", "step-prev", "Previous step (←)");
  const nextBtn = btn("next", "step-next", "Next step (→)");
  const lastBtn = btn("last", "step-last", "Last step (End)");
  const playIcon = h("span", { class: "st-play-icon" }, icon("play"));
  const playBtn = h("button", {
    type: "button", class: "st-btn st-btn--play", "data-testid": "play", "aria-pressed": "false",
    title: "Play / pause (Space)",
  }, playIcon, h("span", { class: "st-play-label" }, "Play"));
  const timeline = h("input", {
    type: "range", class: "st-timeline", "data-testid": "timeline", min: "0", max: "0",
    step: "1", value: "0", "aria-label": "Step",
  });
  const counter = h("span", { class: "st-counter", "data-testid": "step-counter" }, "Step 0 of 0");
  const speedSel = h("select", { class: "st-speed", "data-testid": "speed", "aria-label": "Speed" },
    SPEEDS.map((v) => h("option", { value: v, selected: v === 1 }, `${v}×`)));
  const controls = h("div", { class: "st-controls", role: "group", "aria-label": "Step through the split" },
    h("div", { class: "st-buttons" }, firstBtn, prevBtn, playBtn, nextBtn, lastBtn),
    h("div", { class: "st-scrub" }, timeline, counter),
    h("label", { class: "st-speed-label" }, h("span", null, "Speed"), speedSel));
  const narration = h("p", {
    class: "st-narration", role: "status", "aria-live": "polite", "aria-atomic": "true",
    "data-testid": "narration",
  });
  const keysHint = h("p", { class: "st-keys st-muted" },
    "Keys: ", h("kbd", null, "←"), " ", h("kbd", null, "→"), " step · ",
    h("kbd", null, "Home"), " ", h("kbd", null, "End"), " · ", h("kbd", null, "Space"), " play");
  const staleNote = h("p", { class: "st-stale-note", hidden: true });
  const content = h("div", { class: "st-content" });
  const flyLayer = h("div", { class: "st-fly", "aria-hidden": "true" });
  const top = h("div", { class: "st-top" }, controls, narration);
  root.replaceChildren(staleNote, top, content, keysHint);
  document.body.append(flyLayer); // outside any containment, so fixed positions are the viewport's

  // web fonts arriving late move every anchor (reading fonts.ready forces a layout: once)
  const onFonts = () => view?.edges?.schedule(true);
  document.fonts?.addEventListener?.("loadingdone", onFonts);

  // ---------------------------------------------------------------- steps
  function reveal(el, at) {
    if (at <= 0) el.classList.add("is-on");
    else groups[Math.min(at, groups.length - 1)].push(el);
  }

  function applyStep(next, { source = "api", animate = false } = {}) {
    next = Math.max(0, Math.min(model.total, Math.round(Number(next) || 0)));
    const prev = step;
    finishFlights();
    const anim = animate && next === prev + 1 && !reduced;
    if (anim) root.dataset.anim = "";
    else delete root.dataset.anim;
    if (next > prev) {
      for (let t = prev + 1; t <= next; t++) for (const el of groups[t]) el.classList.add("is-on");
    } else {
      for (let t = prev; t > next; t--) for (const el of groups[t]) el.classList.remove("is-on");
    }
    if (prev > 0) for (const el of current[prev - 1] || []) el.classList.remove("is-current");
    if (next > 0) for (const el of current[next - 1] || []) el.classList.add("is-current");
    step = next;
    syncControls();
    announce(source === "scrub" ? SCRUB_DEBOUNCE_MS : source === "record" ? 120 : 0);
    if (next > 0 && next !== prev) {
      if (anim) {
        keepInView(next - 1); // the flight needs the target on screen now
        fly(next - 1);
      } else {
        scheduleKeepInView(next - 1);
      }
    }
    if (next !== prev || source === "record") {
      for (const cb of stepListeners) cb(step, { source });
    }
  }

  function syncControls() {
    const total = model.total;
    timeline.max = String(total);
    timeline.value = String(step);
    const label = `Step ${step} of ${total}`;
    counter.textContent = label;
    const ev = step > 0 ? model.events[step - 1] : null;
    timeline.setAttribute("aria-valuetext", ev ? `${label}: ${ev.short}` : label);
    firstBtn.setAttribute("aria-disabled", String(step === 0));
    prevBtn.setAttribute("aria-disabled", String(step === 0));
    nextBtn.setAttribute("aria-disabled", String(step >= total));
    lastBtn.setAttribute("aria-disabled", String(step >= total));
    playBtn.setAttribute("aria-pressed", String(playing));
    playIcon.replaceChildren(icon(playing ? "pause" : "play"));
    root.dataset.step = String(step);
  }

  function announce(delay) {
    clearTimeout(narrTimer);
    const write = () => {
      narration.replaceChildren(richText(narrationText(model, step)));
      narration.dataset.step = String(step);
    };
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
      if (viewTarget >= 0 && viewTarget < model.total) keepInView(viewTarget);
    });
  }

  /** Scroll the strip and pane bodies (never the page) so event i is visible. */
  function keepInView(i) {
    if (!view) return;
    const chip = view.trace?.chips[i];
    if (chip) {
      const list = view.trace.list;
      const l = chip.offsetLeft;
      const r = l + chip.offsetWidth;
      if (l < list.scrollLeft || r > list.scrollLeft + list.clientWidth) {
        list.scrollLeft = Math.max(0, l - list.clientWidth / 2 + chip.offsetWidth / 2);
      }
    }
    for (const [pi, j] of model.events[i].places) scrollBodyTo(pi, j);
  }

  function scrollBodyTo(pi, j) {
    const pv = view?.panes[pi];
    const el = pv?.eqnEls[j];
    if (!el) return;
    const body = pv.body;
    const t = el.offsetTop;
    const b = t + el.offsetHeight;
    if (t < body.scrollTop || b > body.scrollTop + body.clientHeight) {
      body.scrollTop = Math.max(0, t - body.clientHeight / 2 + el.offsetHeight / 2);
    }
  }

  // ---------------------------------------------------------------- the flight (FLIP)
  function fly(i) {
    const chip = view?.trace?.chips[i];
    if (!chip) return;
    const ev = model.events[i];
    const from = chip.getBoundingClientRect();
    if (!from.width) return;
    const dur = FLIGHT_MS / speed;
    // what this step reveals besides the equation waits for it to land
    const waiting = [
      ...(view.edges?.items.filter((it) => it.e.consumer === i).map((it) => it.g) || []),
      ...(ev.residuals || []).map((k) => view.resChips?.[k]).filter(Boolean),
    ];
    for (const el of waiting) el.classList.add("st-landing");
    let landed = false;
    const landRest = () => {
      if (landed) return;
      landed = true;
      for (const el of waiting) el.classList.remove("st-landing");
    };
    if (!ev.places.length) landRest();
    for (const [pi, j] of ev.places) {
      const pv = view.panes[pi];
      const el = pv.eqnEls[j];
      if (!el) continue;
      const to = el.getBoundingClientRect();
      const body = pv.body.getBoundingClientRect();
      if (!to.width || to.bottom < body.top || to.top > body.bottom) {
        landRest();
        continue;
      }
      const ghost = chip.cloneNode(true);
      ghost.classList.add("st-ghost");
      ghost.classList.remove("is-current");
      ghost.removeAttribute("data-testid");
      ghost.style.left = `${from.left}px`;
      ghost.style.top = `${from.top}px`;
      ghost.style.width = `${from.width}px`;
      ghost.style.height = `${from.height}px`;
      flyLayer.append(ghost);
      const dx = to.left + 4 - from.left;
      const dy = to.top + (to.height - from.height) / 2 - from.top;
      el.classList.add("st-landing");
      const anim = ghost.animate([
        { transform: "translate(0, 0) scale(1)", opacity: 1 },
        { transform: `translate(${dx * 0.5}px, ${dy * 0.5 - 18}px) scale(1.06)`, opacity: 1, offset: 0.5 },
        { transform: `translate(${dx}px, ${dy}px) scale(1)`, opacity: 0.15 },
      ], { duration: dur, easing: "cubic-bezier(.3,.1,.2,1)" });
      const flight = { ghost, el, anim, done: false };
      const land = () => {
        if (flight.done) return;
        flight.done = true;
        ghost.remove();
        el.classList.remove("st-landing");
        landRest();
        flights = flights.filter((f) => f !== flight);
      };
      flight.land = land;
      anim.onfinish = land;
      anim.oncancel = land;
      flights.push(flight);
    }
  }

  function finishFlights() {
    for (const f of [...flights]) {
      f.anim.cancel();
      f.land();
    }
    flights = [];
  }

  // ---------------------------------------------------------------- play
  function tick() {
    timer = 0;
    if (!playing) return;
    if (step >= model.total) {
      pause();
      return;
    }
    applyStep(step + 1, { source: "play", animate: true });
    if (step >= model.total) pause();
    else timer = setTimeout(tick, BASE_INTERVAL_MS / speed);
  }

  function play() {
    if (!model.total || playing) return;
    playing = true;
    root.dataset.playing = "true";
    if (step >= model.total) applyStep(0, { source: "play" });
    syncControls();
    clearTimeout(timer);
    timer = setTimeout(tick, step === 0 ? 350 : 150);
  }

  function pause() {
    if (!playing && !timer) return;
    playing = false;
    delete root.dataset.playing;
    clearTimeout(timer);
    timer = 0;
    syncControls();
  }

  // ---------------------------------------------------------------- controls and keys
  const userStep = (n, source = "user") => {
    pause();
    applyStep(n, { source, animate: n === step + 1 });
  };
  firstBtn.addEventListener("click", () => userStep(0));
  prevBtn.addEventListener("click", () => userStep(step - 1));
  nextBtn.addEventListener("click", () => userStep(step + 1));
  lastBtn.addEventListener("click", () => userStep(model.total));
  playBtn.addEventListener("click", () => (playing ? pause() : play()));
  timeline.addEventListener("input", () => {
    pause();
    applyStep(Number(timeline.value), { source: "scrub" });
  });
  timeline.addEventListener("change", () => announce(0));
  speedSel.addEventListener("change", () => {
    speed = Number(speedSel.value) || 1;
    if (playing) {
      clearTimeout(timer);
      timer = setTimeout(tick, BASE_INTERVAL_MS / speed);
    }
  });

  function onKey(e) {
    if (!keyboard || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (!root.isConnected || model.kind !== "panes" || !model.total) return;
    const active = document.activeElement;
    if (isTypingTarget(active) || ownsArrowKeys(active)) return;
    if (root.closest("[inert]") || root.hidden) return;
    switch (e.key) {
      case "ArrowLeft": userStep(step - 1, "key"); break;
      case "ArrowRight": userStep(step + 1, "key"); break;
      case "Home": userStep(0, "key"); break;
      case "End": userStep(model.total, "key"); break;
      case " ":
      case "Spacebar":
        if (isActivatable(active) || e.repeat) return;
        if (playing) pause();
        else play();
        break;
      default: return;
    }
    e.preventDefault();
  }
  document.addEventListener("keydown", onKey);

  // ---------------------------------------------------------------- linked highlighting
  function clearHighlight() {
    for (const el of hlEls) el.classList.remove("is-hl");
    for (const el of hlEls) el._unhl?.();
    hlEls = [];
    delete root.dataset.hl;
  }

  function applyHighlight(link, { scroll = false } = {}) {
    clearHighlight();
    if (!link || !view) return;
    const { events, residuals } = resolveLink(model, link);
    if (!events.size && !residuals.size) return;
    const add = (el) => {
      if (!el) return;
      el.classList.add("is-hl");
      el._hl?.();
      hlEls.push(el);
    };
    for (const i of events) {
      for (const [pi, j] of model.events[i].places) add(view.panes[pi]?.eqnEls[j]);
      add(view.trace?.chips[i]);
      add(view.table?.rows[i]);
    }
    for (const k of residuals) {
      add(view.resChips?.[k]);
      for (const pv of view.panes) {
        for (const el of pv.resVarEls?.get(k) || []) add(el);
      }
    }
    if (view.edges) {
      for (const it of view.edges.items) {
        const e = it.e;
        const byEvent = link.residual == null
          && (events.has(e.consumer) || model.residuals[e.k].producer != null
            && events.has(model.residuals[e.k].producer));
        if (residuals.has(e.k) && (link.residual != null || byEvent || link.line != null)) add(it.g);
      }
    }
    root.dataset.hl = "on";
    if (scroll) {
      const first = Math.min(...events);
      if (Number.isFinite(first)) for (const [pi, j] of model.events[first].places) scrollBodyTo(pi, j);
    }
  }

  function linkOf(el) {
    const t = el?.closest?.("[data-residual], [data-event]");
    if (!t || !content.contains(t)) return null;
    if (t.dataset.residual != null) {
      const k = Number(t.dataset.residual);
      const r = model.residuals[k];
      if (!r) return null;
      const line = r.producer != null ? model.events[r.producer]?.line ?? null : null;
      return { residual: k, event: r.producer ?? undefined, line };
    }
    const i = Number(t.dataset.event);
    const ev = model.events[i];
    return ev ? { event: i, line: ev.line ?? null } : null;
  }

  function userLink(link) {
    const key = link ? JSON.stringify(link) : null;
    if (key === hoverKey) return;
    hoverKey = key;
    applyHighlight(link);
    try {
      onLink?.(link);
    } catch (err) {
      console.error(err);
    }
  }

  content.addEventListener("mouseover", (e) => userLink(linkOf(e.target)));
  content.addEventListener("mouseleave", () => {
    if (!content.contains(document.activeElement)) userLink(null);
    else userLink(linkOf(document.activeElement));
  });
  content.addEventListener("focusin", (e) => userLink(linkOf(e.target)));
  content.addEventListener("focusout", (e) => {
    if (!content.contains(e.relatedTarget)) userLink(null);
  });
  content.addEventListener("click", (e) => {
    const chip = e.target.closest?.(".st-chip");
    if (chip && content.contains(chip)) userStep(Number(chip.dataset.event) + 1);
  });

  // ---------------------------------------------------------------- records
  function teardownRecord() {
    pause();
    finishFlights();
    clearHighlight();
    clearTimeout(narrTimer);
    view?.edges?.destroy();
    view = null;
    hoverKey = null;
  }

  function setRecord(record, { step: want } = {}) {
    if (record && record.error) {
      // keep the last good split on screen, marked stale
      if (model.kind !== "empty") {
        root.dataset.stale = "true";
        staleNote.hidden = false;
        staleNote.textContent = "The code has an error: showing the last split that worked.";
        pause();
        return;
      }
    }
    delete root.dataset.stale;
    staleNote.hidden = true;
    teardownRecord();
    model = buildModel(record);
    root.dataset.mode = model.mode || model.kind;
    root.dataset.kind = model.kind; // panes | checkpoint (cards only) | error | empty
    groups = Array.from({ length: model.total + 1 }, () => []);
    current = Array.from({ length: model.total }, () => []);
    step = 0;

    if (model.kind === "checkpoint") {
      content.replaceChildren(renderCheckpoint(record, { onLink: (l) => onLink?.(l) }));
      narration.textContent = `Comparing ${(record.policies || []).length} checkpoint policies.`;
      syncControls();
      return;
    }
    if (model.kind !== "panes") {
      const msg = model.kind === "error"
        ? `Nothing to show: ${record.error?.message ?? "the engine reported an error"}.`
        : "Nothing to show yet.";
      content.replaceChildren(h("p", { class: "st-placeholder" }, msg));
      narration.textContent = "";
      syncControls();
      return;
    }
    content.replaceChildren(...buildView().filter(Boolean));
    const target = want == null || want === "" ? model.total : Number(want);
    applyStep(target, { source: "record" });
    view.edges?.schedule(true);
  }

  function buildView() {
    const trace = renderTrace(model, reveal);
    const panes = model.panes.map((p) => renderPane(model, p, reveal));
    for (const pv of panes) {
      pv.eqnEls.forEach((el, j) => {
        const i = pv.pane.eqnEvent[j];
        if (i >= 0) current[i].push(el);
      });
      // header/footer variables that are residuals (for highlighting)
      pv.resVarEls = new Map();
      const label = (labels, names) => (labels || []).forEach((r, j) => {
        if (!r) return;
        const el = names(j);
        if (!el) return;
        if (!pv.resVarEls.has(r.k)) pv.resVarEls.set(r.k, []);
        pv.resVarEls.get(r.k).push(el);
      });
      label(pv.pane.outLabels, (j) => pv.outEls[j]);
      label(pv.pane.inLabels, (j) => pv.invarEls[j]);
      if (pv.pane.role === "known") {
        // a forwarded input is its own residual: its name in the header is the edge's source
        label(model.residuals.map((r) => (r.from_input != null ? r : null)),
          (k) => pv.varEls.get(model.residuals[k].known_name));
      }
    }
    trace.chips.forEach((c, i) => current[i].push(c));
    const table = renderTable(model);
    table.rows.forEach((r, i) => current[i].push(r));

    const paneWrap = h("div", {
      class: "st-panes", "data-count": String(panes.length),
    }, panes.map((pv) => pv.el));
    const wrap = h("div", { class: "st-panes-wrap" }, paneWrap);
    const known = model.panes.find((p) => p.role === "known");
    const unknown = model.panes.find((p) => p.role === "unknown");
    if (known && unknown) {
      paneWrap.insertBefore(h("div", { class: "st-gutter", "aria-hidden": "true" }),
        panes[unknown.index].el);
      paneWrap.dataset.edges = "";
    }
    const resSection = known && unknown ? renderResiduals() : null;
    view = { trace, panes, table, resChips: resSection?.chips };
    view.edges = model.edges.length ? new EdgeLayer(wrap, model, panes, reveal) : null;
    const policies = Array.isArray(model.record.policies)
      ? renderCheckpoint(model.record, { onLink: (l) => onLink?.(l), animated: true }) : null;
    return [policies, renderLegend(), trace.el, wrap, resSection?.el, table.el];
  }

  function renderLegend() {
    const item = (cls, badgeText, name, text) => h("li", { class: `st-legend-item ${cls}` },
      badgeText ? h("span", { class: `st-badge st-badge--${cls}`, "aria-hidden": "true" }, badgeText)
        : null,
      h("span", { class: "st-legend-swatch", "aria-hidden": "true" }),
      h("strong", null, name), " ", h("span", { class: "st-muted" }, text));
    if (model.mode === "jit") {
      return h("ul", { class: "st-legend", "aria-label": "Legend" },
        item("staged", "S", "Staged", "every operation becomes an equation; nothing runs now"));
    }
    return h("ul", { class: "st-legend", "aria-label": "Legend" },
      item("known", "K", "Known", "solid: all inputs known, runs now"),
      item("unknown", "U", "Unknown", "dashed: needs an unknown input, staged for later"),
      h("li", { class: "st-legend-item residual" },
        s("svg", { class: "st-legend-edge", viewBox: "0 0 40 12", "aria-hidden": "true" },
          s("path", { class: "st-edge-line", d: "M 2 6 L 30 6" }),
          s("path", { class: "st-legend-arrow", d: "M 30 1.5 L 38 6 L 30 10.5 z" })),
        h("strong", null, "Residual"), " ",
        h("span", { class: "st-muted" }, "dotted arrow: a known value the unknown program reads")));
  }

  function renderResiduals() {
    const rs = model.residuals;
    const total = rs.reduce((a, r) => a + (r.bytes || 0), 0);
    const chips = rs.map((r) => {
      const producer = r.producer != null ? model.events[r.producer] : null;
      const origin = r.from_input != null
        ? `the known input ${r.from_input}, forwarded as is`
        : producer ? `computed by ${producer.short}` : "a known value";
      const readers = r.consumers.map((c) => model.events[c].short).join("; ");
      const li = h("li", {
        class: "st-rchip", "data-residual": r.k, "data-testid": "residual-chip", tabindex: "0",
        "data-from-input": r.from_input != null ? "true" : null,
        "aria-label": `Residual ${r.label}: known ${r.known_name} becomes unknown input `
          + `${r.unknown_name}, ${r.aval}, ${formatBytes(r.bytes)}; ${origin}`
          + `${readers ? `; read by ${readers}` : ""}.`,
      },
      h("span", { class: "st-rtag" }, r.label),
      h("code", { class: "st-rflow" },
        h("span", { class: "st-rname st-rname--known", title: "name in the known program's outputs" },
          r.known_name),
        h("span", { class: "st-arrow", "aria-hidden": "true" }, " → "),
        h("span", { class: "st-rname st-rname--unknown", title: "name among the unknown program's inputs" },
          r.unknown_name)),
      h("span", { class: "st-aval" }, r.aval),
      h("span", { class: "st-bytes" }, formatBytes(r.bytes)),
      r.value != null ? h("span", { class: "st-value", title: `value: ${r.value}` }, `= ${r.value}`) : null,
      h("span", { class: "st-rorigin st-muted" },
        r.from_input != null ? `input ${r.from_input}` : producer ? `from ${producer.short}` : ""));
      reveal(li, r.reveal);
      return li;
    });
    const el = h("section", { class: "st-res", "data-testid": "residuals" },
      h("div", { class: "st-res-head" },
        h("h3", null, "Residuals"),
        h("span", { class: "st-muted" }, rs.length
          ? `${rs.length} known value${rs.length === 1 ? "" : "s"} handed to the unknown program · `
            + `${formatBytes(total)} · shown as known name → unknown name`
          : "none: the unknown program reads no known values")),
      rs.length ? h("ul", { class: "st-res-list" }, chips) : null,
      savedResiduals(model.record.saved_residuals));
    return { el, chips };
  }

  /** What JAX's print_saved_residuals would print for this function (grad records). */
  function savedResiduals(saved) {
    if (!Array.isArray(saved) || !saved.length) return null;
    const lines = saved.map((r) => `${r.aval} ${r.description}`);
    return h("details", { class: "st-saved" },
      h("summary", null, "In JAX's words: ", h("code", null, "jax.ad_checkpoint.print_saved_residuals")),
      h("pre", { class: "st-pre", tabindex: "0" }, lines.join("\n")));
  }

  // ---------------------------------------------------------------- API
  return {
    setRecord,
    setStep(n) {
      pause();
      applyStep(n, { source: "api" });
    },
    getStep: () => step,
    play,
    pause,
    highlight(link) {
      hoverKey = null;
      applyHighlight(link, { scroll: true });
    },
    onStepChange(cb) {
      stepListeners.add(cb);
      return () => stepListeners.delete(cb);
    },
    destroy() {
      teardownRecord();
      clearTimeout(narrTimer);
      document.removeEventListener("keydown", onKey);
      document.fonts?.removeEventListener?.("loadingdone", onFonts);
      reducedQuery.removeEventListener("change", onReducedChange);
      stepListeners.clear();
      root.replaceChildren();
      flyLayer.remove();
      root.classList.remove("stage");
      for (const k of ["mode", "kind", "step", "stale", "hl", "playing", "anim"]) delete root.dataset[k];
    },
  };
}

export { badgeRole };

// Wiring: start the engine first (its boot is the long pole), then the page around it.
//
//   page state (state.js) --debounced--> engine.call('pe_engine.explain.run') --> record
//   record --> stage (app/stage/, programs + animation) and inputs panel (shapes/dtypes)
//
// The first frame shows the default example from precomputed.json (written at build time by
// tools/precompute.py), so the page teaches before Python has booted.
import { createEngine, registerServiceWorker } from "./engine-client.js";
import {
  MODES, PermalinkError, decodePermalink, encodePermalink, loadLocal, saveLocal,
  parseSignature, requestFor, requestKey, stateFromExample, LONG_LINK_CHARS,
} from "./state.js";
import { loadExamples, defaultExample, mountExamples } from "./examples.js";
import { createEditor } from "./editor.js";
import { createInputs } from "./inputs.js";
import { createModes, BLURBS } from "./modes.js";
import { jaxSnippet } from "./jax-snippet.js";
import { initSections } from "./sections/index.js";

// Time per call and the interrupt's grace come from app/limits.js: never from the URL.
const engine = createEngine();
// For the console and the browser tests: window.peEngine.call("platform.python_version")
window.peEngine = engine;
// Cache this build for repeat visits (sw.js); after the boot, so it never slows the first one.
engine.ready.then(() => registerServiceWorker(), () => {});
document.documentElement.dataset.app = "started"; // boot-guard.js: the module graph loaded

const precomputedPromise = fetch(new URL("../precomputed.json", import.meta.url), { cache: "no-cache" })
  .then((r) => (r.ok ? r.json() : null)).catch(() => null);
// fetch the stage's modules now, beside examples.json and precomputed.json (loadStage imports it)
import("./stage/index.js").catch(() => {});

const $ = (sel) => document.querySelector(sel);
const EDIT_DEBOUNCE_MS = 250;
const URL_DEBOUNCE_MS = 1000;

// ------------------------------------------------------------------------------------------
// engine status

const status = $('[data-testid="engine"]');
const LABEL = { loading: "loading", ready: "ready", busy: "working", error: "failed to start" };

function showEngine(state, info) {
  status.dataset.state = state;
  let text = `Python engine: ${LABEL[state]}`;
  if (state === "loading" && info.stage) text += ` (${info.stage})`;
  if (state === "ready" && info.timings) text += ` in ${(info.timings.bootMs / 1000).toFixed(1)} s`;
  if (state === "error" && info.error) text += `: ${info.error.message}`;
  status.textContent = text;
}
engine.onState(showEngine);
showEngine(engine.state, engine.info);

// ------------------------------------------------------------------------------------------
// theme: light / dark, following the system until the toggle is used

const themeButton = $('[data-testid="theme-toggle"]');
const darkQuery = matchMedia("(prefers-color-scheme: dark)");
function effectiveTheme() {
  return document.documentElement.dataset.theme || (darkQuery.matches ? "dark" : "light");
}
function showTheme() {
  const dark = effectiveTheme() === "dark";
  themeButton.setAttribute("aria-pressed", String(dark));
  themeButton.textContent = dark ? "Theme: dark" : "Theme: light";
  themeButton.setAttribute("aria-label", `Dark theme ${dark ? "on" : "off"}: press to switch to the ${dark ? "light" : "dark"} theme`);
}
themeButton.addEventListener("click", () => {
  const next = effectiveTheme() === "dark" ? "light" : "dark";
  document.documentElement.dataset.theme = next;
  try { localStorage.setItem("pe-explainer.theme", next); } catch { /* private mode */ }
  showTheme();
});
darkQuery.addEventListener("change", showTheme);
showTheme();

// ------------------------------------------------------------------------------------------
// notices (permalink problems, "link copied", ...)

const notice = $('[data-testid="notice"]');
let noticeTimer = 0;
function showNotice(text, { kind = "info", sticky = false, extra = null } = {}) {
  clearTimeout(noticeTimer);
  notice.className = `notice notice-${kind}`;
  notice.replaceChildren(document.createTextNode(text));
  if (extra) notice.append(extra);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "notice-close";
  close.textContent = "Dismiss";
  close.addEventListener("click", () => { notice.hidden = true; });
  notice.append(close);
  notice.hidden = false;
  if (!sticky) noticeTimer = setTimeout(() => { notice.hidden = true; }, 6000);
}

// ------------------------------------------------------------------------------------------
// page state

const examples = await loadExamples();
let state = stateFromExample(defaultExample(examples));
let exampleId = examples.default;
let userChanged = false; // nothing is written to localStorage until the user changes something
let openedFrom = "default";

async function initialState() {
  const hash = location.hash;
  if (hash && hash !== "#") {
    // a reload right after an edit: what was saved ahead of this very hash is newer
    const reloaded = loadLocal(hash);
    if (reloaded) {
      openedFrom = "local";
      return { s: reloaded, id: matchExample(reloaded) };
    }
    try {
      const s = await decodePermalink(hash);
      openedFrom = "link";
      return { s, id: matchExample(s) };
    } catch (err) {
      const why = err instanceof PermalinkError ? err.message : String(err);
      history.replaceState(null, "", location.pathname + location.search);
      showNotice(`This link could not be opened (${why}), so the page shows the default example instead.`,
        { kind: "warning", sticky: true });
      openedFrom = "bad-link";
      return { s: stateFromExample(defaultExample(examples)), id: examples.default };
    }
  }
  const local = loadLocal();
  if (local) {
    openedFrom = "local";
    return { s: local, id: matchExample(local) };
  }
  return { s: state, id: examples.default };
}

function matchExample(s) {
  const ex = examples.examples.find((e) => e.code === s.code && e.mode === s.mode
    && (e.mode !== "checkpoint" || (e.policy ?? "") === s.policy));
  return ex ? ex.id : "";
}

{
  const { s, id } = await initialState();
  state = s;
  exampleId = id;
}

// ------------------------------------------------------------------------------------------
// views

const stageRoot = $("#stage");
const stagePanel = $("#stage-panel");
const staleBadge = $('[data-testid="stale"]');
const errorBox = $('[data-testid="error"]');
const blurb = $("#mode-blurb");

let stage = null; // the stage engineer's view, once app/stage/index.js has loaded
let record = null; // the last good record shown
let recordKey = null;
let error = null; // {message, line, type} of the last run, or null
let hoverLine = null;
let cursorLine = null;

const editor = createEditor($('[data-testid="editor"]'), {
  doc: state.code,
  onChange(text) {
    state.code = text;
    changed({ run: true });
  },
  onCursorLine(line) {
    cursorLine = line;
    if (hoverLine === null) stage?.highlight({ line });
  },
  onHoverLine(line) {
    hoverLine = line;
    stage?.highlight(line !== null ? { line } : cursorLine !== null && editorHasFocus() ? { line: cursorLine } : null);
  },
  onRun() { schedule(0); },
});
function editorHasFocus() { return editor.view.hasFocus; }

const inputs = createInputs($('[data-testid="inputs"]'), {
  modeNote: $('[data-testid="inputs-note"]'),
  onToggle(name) {
    state.known[name] = !(state.known[name] ?? true);
    changed({ run: true, now: true });
  },
  onValue(name, text) {
    state.values[name] = text;
    changed({ run: true });
  },
});

const modes = createModes($("#modes"), {
  onMode(m) { setModeInternal(m); },
  onFolding(on) { state.folding = on; changed({ run: true, now: true }); },
  onPolicy(p) { state.policy = p; changed({ run: true, now: true }); },
});

function setModeInternal(m) {
  if (!MODES.includes(m) || m === state.mode) { modes.render(state); return; }
  state.mode = m;
  state.step = null;
  changed({ run: true, now: true });
}

const examplesMenu = mountExamples($('[data-testid="examples"]'), examples, (ex) => {
  applyState(stateFromExample(ex), ex.id);
  userChanged = true;
  scheduleUrl();
});

function applyState(s, id = matchExample(s)) {
  state = s;
  exampleId = id;
  editor.setDoc(state.code);
  renderControls();
  schedule(0);
}

function renderControls() {
  const sig = parseSignature(state.code);
  modes.render(state);
  examplesMenu.show(exampleId);
  blurb.textContent = BLURBS[state.mode];
  inputs.render({
    params: sig ? sig.params : [],
    state,
    record,
    mode: state.mode,
    badInput: error?.input ?? null,
  });
}

/** Something the user did changed the state. */
function changed({ run = false, now = false } = {}) {
  userChanged = true;
  if (exampleId && !sameAsExample()) exampleId = "";
  renderControls();
  if (run) schedule(now ? 0 : EDIT_DEBOUNCE_MS);
  scheduleUrl();
}

function sameAsExample() {
  const ex = examples.examples.find((e) => e.id === exampleId);
  return ex && ex.code === state.code && ex.mode === state.mode;
}

// ------------------------------------------------------------------------------------------
// running the engine: debounced, one call at a time, cached by request key

const cache = new Map(); // request key -> engine answer (record or {error})
let timer = 0;
let inflight = false;
let rerun = false;
let idleWaiters = [];

function schedule(ms) {
  clearTimeout(timer);
  timer = setTimeout(() => { timer = 0; runNow(); }, ms);
}

function busy() { return timer !== 0 || inflight; }

function whenIdle() {
  if (!busy()) return Promise.resolve();
  return new Promise((resolve) => idleWaiters.push(resolve));
}

function notifyIdle() {
  if (busy()) return;
  const waiters = idleWaiters;
  idleWaiters = [];
  requestAnimationFrame(() => requestAnimationFrame(() => waiters.forEach((w) => w())));
}

async function runNow() {
  if (inflight) { rerun = true; return; }
  const req = requestFor(state);
  const key = requestKey(req);
  if (key === recordKey && !error) { notifyIdle(); return; }
  let answer = cache.get(key);
  if (!answer) {
    if (!parseSignature(state.code)) {
      answer = { error: { type: "restricted", message: "Define a function, e.g. def f(x, y): return jnp.sin(x) * y", lineno: null } };
    } else if (engine.state === "error") {
      answer = { error: { type: "engine", message: `the Python engine failed to start: ${engine.info.error?.message ?? "unknown error"}`, lineno: null }, transient: true };
    } else {
      inflight = true;
      if (!record || engine.state === "loading") stagePanel.classList.add("is-waiting");
      try {
        answer = await engine.call("pe_engine.explain.run", { mode: req.mode, ...req.kwargs });
        if (answer && typeof answer === "object") cache.set(key, answer);
      } catch (err) {
        // timeout, crash, restart: not cached, the same request may work next time
        answer = { error: { type: err.type || "engine", message: engineFailure(err), lineno: err.lineno ?? null }, transient: true };
      } finally {
        inflight = false;
        stagePanel.classList.remove("is-waiting");
      }
      if (rerun) {
        rerun = false;
        if (requestKey(requestFor(state)) !== key) { show(answer, key); runNow(); return; }
      }
    }
  }
  show(answer, key);
  notifyIdle();
}

/** The message for a call the engine could not answer (runaway, crash, restart). */
function engineFailure(err) {
  if (err.type === "timeout") {
    const secs = err.timeoutMs ? ` ${Math.round(err.timeoutMs / 100) / 10} s` : "";
    return `Stopped: the trace ran longer than${secs} (an endless loop, or a long Python loop?)`
      + (err.restarted ? "; the Python engine was restarted." : ".");
  }
  if (err.type === "crashed") return `The Python engine crashed (${err.reason || "fatal error"}) and was restarted; your code is kept.`;
  return err.message;
}

function show(answer, key) {
  if (!answer || typeof answer !== "object") {
    answer = { error: { type: "internal", message: "the engine returned no record", lineno: null } };
  }
  if (answer.error) {
    const e = answer.error;
    const m = /^input ([A-Za-z_]\w*):/.exec(e.message || "");
    error = { type: e.type, message: e.message || "error", line: Number.isInteger(e.lineno) ? e.lineno : null, input: m ? m[1] : null };
  } else {
    error = null;
    record = answer;
    recordKey = key;
    drawRecord();
  }
  showError();
  renderControls();
}

function showError() {
  const stale = Boolean(error) && record !== null;
  stagePanel.classList.toggle("stale", stale);
  staleBadge.hidden = !stale;
  if (error) {
    errorBox.replaceChildren();
    const where = document.createElement("strong");
    where.textContent = error.line ? `Line ${error.line}: ` : "Error: ";
    const msg = document.createElement("span");
    msg.className = "error-message";
    msg.textContent = error.message;
    errorBox.append(where, msg);
    if (record) {
      const note = document.createElement("span");
      note.className = "error-note";
      note.textContent = " The split on the right is from your last working version (stale).";
      errorBox.append(note);
    }
    errorBox.dataset.line = error.line ?? "";
    errorBox.hidden = false;
  } else {
    errorBox.hidden = true;
    errorBox.replaceChildren();
    errorBox.dataset.line = "";
  }
  editor.setError(error && error.line ? { line: error.line, message: error.message } : null);
}

function drawRecord() {
  if (!record) return;
  if (stage) {
    stage.setRecord(record, state.step !== null ? { step: state.step } : {});
    state.step = stage.getStep();
  } else {
    fallbackDraw(record);
  }
  document.dispatchEvent(new CustomEvent("pe:record", { detail: { record, key: recordKey } }));
}

// A plain-text view, used only if the stage module cannot be loaded.
function fallbackDraw(rec) {
  const progs = programsOf(rec);
  stageRoot.replaceChildren();
  for (const [title, text] of [["Known program", progs.known], ["Unknown program", progs.unknown], ["Staged program", progs.program]]) {
    if (!text) continue;
    const h = document.createElement("h3");
    h.textContent = title;
    const pre = document.createElement("pre");
    pre.className = "program-text";
    pre.textContent = text;
    stageRoot.append(h, pre);
  }
}

/** Printed programs of a record, whatever its mode. */
function programsOf(rec) {
  if (!rec) return { known: null, unknown: null, program: null };
  const pane = (ids) => (rec.panes ?? []).find((p) => ids.includes(p.id))?.program?.text ?? null;
  return {
    known: rec.known?.text ?? pane(["known", "forward", "primal"]),
    unknown: rec.unknown?.text ?? pane(["unknown", "linear", "tangent"]),
    program: rec.program?.text ?? null,
  };
}

// ------------------------------------------------------------------------------------------
// the address bar (debounced replaceState) and localStorage

let urlTimer = 0;
let lastHash = location.hash;

function scheduleUrl() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(writeUrl, URL_DEBOUNCE_MS);
}

async function writeUrl() {
  urlTimer = 0;
  if (!userChanged) return;
  saveLocal(state, location.hash, true);
  try {
    const hash = `#${await encodePermalink(state)}`;
    if (hash !== location.hash) {
      history.replaceState(null, "", hash);
      lastHash = hash;
    }
    saveLocal(state, hash);
  } catch (err) {
    if (err instanceof PermalinkError) showNotice(err.message, { kind: "warning" });
  }
}

async function permalink() {
  clearTimeout(urlTimer);
  userChanged = true;
  saveLocal(state, location.hash, true);
  const hash = `#${await encodePermalink(state)}`;
  history.replaceState(null, "", hash);
  lastHash = hash;
  saveLocal(state, hash);
  return location.href;
}

// Leaving or reloading within the address bar's debounce: keep the latest edits (the saved
// state's base is the hash still shown, so the reload restores them instead of that hash).
window.addEventListener("pagehide", () => {
  if (urlTimer && userChanged) saveLocal(state, location.hash, true);
});

window.addEventListener("hashchange", async () => {
  if (location.hash === lastHash || !location.hash) return;
  lastHash = location.hash;
  try {
    applyState(await decodePermalink(location.hash));
  } catch (err) {
    showNotice(`This link could not be opened (${err.message}); the page kept what it showed.`, { kind: "warning", sticky: true });
  }
});

// ------------------------------------------------------------------------------------------
// share, copy as JAX

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function copyFallback(label, text) {
  const box = document.createElement("textarea");
  box.readOnly = true;
  box.className = "copy-fallback";
  box.value = text;
  box.rows = Math.min(12, text.split("\n").length + 1);
  box.setAttribute("aria-label", label);
  showNotice(`${label}: the clipboard is not available here, so select and copy it:`, { sticky: true, extra: box });
  box.focus();
  box.select();
}

$('[data-testid="share"]').addEventListener("click", async () => {
  let url;
  try {
    url = await permalink();
  } catch (err) {
    showNotice(err.message, { kind: "warning" });
    return;
  }
  const long = url.length > LONG_LINK_CHARS ? ` It is ${url.length} characters long; some chat services cut links over ${LONG_LINK_CHARS}.` : "";
  if (await copyText(url)) showNotice(`Link copied (${url.length} characters). It holds the code, the inputs, the mode and the step.${long}`);
  else copyFallback("The link", url);
});

$('[data-testid="copy-as-jax"]').addEventListener("click", async () => {
  const text = jaxSnippet(state);
  if (await copyText(text)) showNotice("Copied a Python snippet that reproduces this with real JAX.");
  else copyFallback("The JAX snippet", text);
});

// ------------------------------------------------------------------------------------------
// the stage (app/stage/, owned by the stage module) and linked highlighting

async function loadStage() {
  try {
    const mod = await import("./stage/index.js");
    stage = mod.createStage(stageRoot, {
      onLink(link) {
        editor.linkLine(link && Number.isInteger(link.line) ? link.line : null);
      },
    });
    stage.onStepChange?.((n, info) => {
      if (n === state.step) return;
      state.step = n;
      // the reader moved the timeline (play, scrub, keys): that goes into the link
      if (record && info?.source !== "record" && info?.source !== "api") { userChanged = true; scheduleUrl(); }
    });
    stageRoot.classList.remove("stage-fallback");
  } catch (err) {
    console.error("stage module could not be loaded; showing the programs as text", err);
    stageRoot.classList.add("stage-fallback");
    stage = null;
  }
}

// ------------------------------------------------------------------------------------------
// embedding API

function publicState() {
  const sig = parseSignature(state.code);
  const progs = programsOf(record);
  const mask = {};
  for (const p of sig ? sig.params : []) mask[p] = state.known[p] ?? true;
  return {
    source: state.code,
    mask,
    values: Object.fromEntries((sig ? sig.params : []).map((p) => [p, state.values[p] ?? "1.0"])),
    mode: state.mode,
    policy: state.policy,
    folding: state.folding,
    step: stage ? stage.getStep() : state.step,
    known: progs.known,
    unknown: progs.unknown,
    program: progs.program,
    residuals: record?.residuals ?? [],
    recordMode: record?.mode ?? null,
    stale: Boolean(error) && record !== null,
    error: error ? { message: error.message, line: error.line, type: error.type } : null,
  };
}

async function settled() {
  await whenIdle();
  return publicState();
}

window.explainer = {
  async setSource(code) {
    state.code = String(code);
    editor.setDoc(state.code);
    changed();
    schedule(0);
    return settled();
  },
  async setKnown(name, known) {
    state.known[name] = Boolean(known);
    changed();
    schedule(0);
    return settled();
  },
  async setValue(name, text) {
    state.values[name] = String(text);
    changed();
    schedule(0);
    return settled();
  },
  async setMode(name) {
    if (!MODES.includes(name)) throw new Error(`unknown mode ${JSON.stringify(name)}; modes: ${MODES.join(", ")}`);
    state.mode = name;
    state.step = null;
    changed();
    schedule(0);
    return settled();
  },
  async setPolicy(name) { state.policy = String(name); changed(); schedule(0); return settled(); },
  async setFolding(on) { state.folding = Boolean(on); changed(); schedule(0); return settled(); },
  async setStep(n) {
    if (stage) stage.setStep(n);
    state.step = stage ? stage.getStep() : n;
    userChanged = true;
    scheduleUrl();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return publicState();
  },
  async loadExample(id) {
    const ex = examples.examples.find((e) => e.id === id);
    if (!ex) throw new Error(`no example ${JSON.stringify(id)}`);
    applyState(stateFromExample(ex), ex.id);
    userChanged = true;
    scheduleUrl();
    return settled();
  },
  state: () => publicState(),
  settled,
  permalink,
  jaxSnippet: () => jaxSnippet(state),
  examples: () => examples.examples.map((e) => ({ id: e.id, title: e.title, mode: e.mode })),
  record: () => record,
  get openedFrom() { return openedFrom; },
};

// the explainer's sections below the tool (app/sections/), following the record drawn above
initSections({ engine, explainer: window.explainer });

// ------------------------------------------------------------------------------------------
// start: controls, first frame (precomputed), stage, then runs as the engine answers

renderControls();
const [precomputed] = await Promise.all([precomputedPromise, loadStage()]);
if (precomputed && precomputed.request && precomputed.record && !precomputed.record.error) {
  cache.set(requestKey(precomputed.request), precomputed.record);
}
const firstKey = requestKey(requestFor(state));
if (cache.has(firstKey)) show(cache.get(firstKey), firstKey);
else stagePanel.classList.add("is-waiting");
document.documentElement.dataset.firstFrame = cache.has(firstKey) ? "precomputed" : "waiting";
schedule(0);

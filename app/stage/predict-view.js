// Predict mode on the stage: before each equation lands the reader guesses known, unknown or
// both (buttons, keys K U B), at a mixed equation which operands become residuals (checkboxes,
// keys 1-9, Enter), then the equation lands with the rule's reason, and a score closes it.
//
//   const stage = withPredict(createStage, root, opts, slot);   // the stage; a "Predict" toggle in slot
//
// The stage moves only through its gate while a question is open: play, the buttons, the keys,
// the timeline and links stop at the equation asked (play pauses there); answering lands it
// (stage.reveal). The state machine is app/stage/predict.js; this module draws it.

import { h, isTypingTarget, richText } from "./dom.js";
import {
  answerResiduals,
  answerSide,
  current,
  eventsKey,
  revealText,
  scoreOf,
  scoreText,
  startPredict,
} from "./predict.js";

/** @typedef {import("./model.js").Model} Model */

/** @type {{side: import("./predict.js").Side, key: string, label: string, hint: string}[]} */
const SIDES = [
  { side: "known", key: "k", label: "Known", hint: "runs now" },
  { side: "unknown", key: "u", label: "Unknown", hint: "staged" },
  { side: "both", key: "b", label: "Both", hint: "a call that splits" },
];
/** @type {Record<string, import("./predict.js").Side>} */
const SIDE_OF_KEY = Object.fromEntries(SIDES.map((s) => [s.key, s.side]));
// inputs that do not take typed characters: the keys still answer there
const NOT_TYPED = new Set(["checkbox", "radio", "range", "button"]);

/**
 * @param {(root: HTMLElement, opts: object) => any} createStage app/stage/index.js's
 * @param {HTMLElement} root
 * @param {object} [opts] createStage's options
 * @param {HTMLElement | null} [slot] where the "Predict" toggle goes (default: the stage's controls)
 */
export function withPredict(createStage, root, opts = {}, slot = null) {
  let on = false;
  /** @type {import("./predict.js").PredictState | null} */
  let state = null;
  /** @type {Model | null} */
  let model = null; // the split the stage shows (the gate sees each one)
  let drawQueued = false;

  /** The gate: the step the stage may reach (null: any); never past the split's last step.
   *  @param {Model} m @param {string} source @returns {number | null} */
  function gate(m, source) {
    model = m;
    if (!on || m.kind !== "panes") return null;
    const st = state && state.key === eventsKey(m.events, m.mode) ? state : restart(m); // a new split: start over
    if (source === "predict") return null;
    if (source === "play" && stage.getStep() >= st.at) queueMicrotask(() => stage.pause()); // play stops at the question
    return st.at;
  }
  const stage = createStage(root, { ...opts, gate });

  // ---------------------------------------------------------------- the panel
  const toggle = h(
    "button",
    {
      type: "button",
      class: "action pr-toggle",
      title: "Predict each equation before it lands (keys K, U, B)",
      "data-testid": "predict-toggle",
      "aria-pressed": "false",
    },
    "Predict",
  );
  const score = h("span", { class: "pr-score", "data-testid": "predict-score", hidden: true });
  const ask = h("p", { class: "pr-ask", id: "pr-ask", "data-testid": "predict-ask" });
  const sideButtons = SIDES.map(({ side, key, label, hint }) =>
    h(
      "button",
      {
        type: "button",
        class: `st-btn pr-side pr-side--${side}`,
        "data-testid": `predict-${side}`,
        "aria-keyshortcuts": key.toUpperCase(),
        onclick: () => answer((st) => answerSide(st, side)),
      },
      h("span", null, label),
      h("span", { class: "pr-hint" }, hint),
      h("kbd", { "aria-hidden": "true" }, key.toUpperCase()),
    ),
  );
  const sides = h("div", { class: "pr-sides", role: "group", "aria-labelledby": "pr-ask" }, sideButtons);
  const operands = h("div", { class: "pr-operands" });
  const check = h(
    "button",
    { type: "button", class: "st-btn pr-check", "data-testid": "predict-check", "aria-keyshortcuts": "Enter" },
    "Check",
    h("kbd", { "aria-hidden": "true" }, "Enter"),
  );
  const residualForm = h(
    "fieldset",
    { class: "pr-residuals", "data-testid": "predict-residuals", hidden: true },
    h("legend", null, "Which of its operands become residuals? Keys 1-9 tick, Enter checks."),
    operands,
    check,
  );
  const reveal = h("p", {
    class: "pr-reveal",
    role: "status",
    "aria-live": "polite",
    "aria-atomic": "true",
    "data-testid": "predict-reveal",
  });
  const retry = h("button", { type: "button", class: "st-btn pr-retry", "data-testid": "predict-retry" }, "Try again");
  const leave = h("button", { type: "button", class: "st-btn", "data-testid": "predict-leave" }, "Leave predict");
  const final = h("p", { class: "pr-final", role: "status", "data-testid": "predict-final" });
  const done = h("div", { class: "pr-done", hidden: true }, final, retry, leave);
  const panel = h(
    "div",
    { class: "pr-panel", "data-testid": "predict-panel", hidden: true, "data-stage-keys": "off" },
    h("div", { class: "pr-head" }, ask, score),
    sides,
    residualForm,
    reveal,
    done,
  );
  // the toggle waits outside the stage (the build's first frame is the stage's, element for
  // element); the panel joins the sticky controls when predict first starts
  (slot ?? stage.top.querySelector(".st-controls") ?? stage.top).append(toggle);
  function mountPanel() {
    const narration = stage.top.querySelector(".st-narration");
    if (narration) narration.before(panel);
    else stage.top.append(panel);
  }

  /** @param {Model} m */
  function restart(m) {
    const st = startPredict(m.events, m.mode);
    state = st;
    reveal.textContent = "";
    queueDraw();
    return st;
  }

  function queueDraw() {
    if (drawQueued) return;
    drawQueued = true;
    queueMicrotask(() => {
      drawQueued = false;
      draw();
    });
  }

  function draw() {
    toggle.setAttribute("aria-pressed", String(on));
    root.toggleAttribute("data-predict", on);
    panel.hidden = !on;
    score.hidden = !on || !state;
    if (!on) return;
    if (!state) {
      ask.textContent = "Nothing to predict here: this view has no traced equations to step through.";
      for (const el of [sides, residualForm, done]) el.hidden = true;
      return;
    }
    const q = current(state);
    const s = scoreOf(state);
    score.textContent = `Score ${s.right} of ${s.asked}`;
    sides.hidden = state.phase !== "side";
    residualForm.hidden = state.phase !== "residuals";
    done.hidden = state.phase !== "done";
    if (q) {
      const where = q.line != null ? ` (line ${q.line})` : "";
      // the residual question speaks in the unknown pane's names, as its reveal does
      const staged = [
        " is staged; the unknown program runs it as ",
        h("code", { "data-testid": "predict-staged" }, q.staged),
        ".",
      ];
      ask.replaceChildren(
        `Equation ${q.i + 1} of ${state.questions.length}${where}: `,
        h("code", { "data-testid": "predict-eqn" }, q.short),
        ...(state.phase === "side" ? [" Known, unknown, or both?"] : staged),
      );
    } else ask.textContent = "Every equation has landed.";
    if (q && state.phase === "residuals") drawOperands(q);
    final.textContent = state.phase === "done" ? scoreText(state) : "";
  }

  /** @param {import("./predict.js").Question} q */
  function drawOperands(q) {
    operands.replaceChildren(
      ...q.operands.map((name, n) =>
        h(
          "label",
          { class: "pr-operand" },
          h("input", { type: "checkbox", value: name, "data-testid": "predict-operand" }),
          h("kbd", { "aria-hidden": "true" }, String(n + 1)),
          h("code", null, name),
          h("span", { class: "pr-source" }, q.sources[n]),
        ),
      ),
    );
  }

  /** Apply an answer; a settled question lands its equation, animated, with the reason said.
   *  @param {(state: import("./predict.js").PredictState) => import("./predict.js").PredictState} next */
  function answer(next) {
    if (!state) return;
    const before = state;
    state = next(state);
    if (state === before) return;
    const text = revealText(state);
    reveal.replaceChildren(richText(text));
    if (state.at > before.at) stage.reveal(state.at);
    const focusWasIn = panel.contains(document.activeElement);
    draw();
    if (focusWasIn || document.activeElement === document.body) focusAnswer();
  }

  /** Focus what answers now (the first operand, the first side, or "Try again"). */
  function focusAnswer() {
    if (!state) return;
    const el =
      state.phase === "residuals"
        ? operands.querySelector("input")
        : state.phase === "done"
          ? retry
          : panel.contains(document.activeElement) && !sides.hidden
            ? document.activeElement
            : sideButtons[0];
    /** @type {HTMLElement | null} */ (el)?.focus({ preventScroll: true });
  }

  const submitResiduals = () =>
    answer((st) =>
      answerResiduals(
        st,
        [...operands.querySelectorAll("input:checked")].map((x) => /** @type {HTMLInputElement} */ (x).value),
      ),
    );
  check.addEventListener("click", submitResiduals);

  /** @param {boolean} want */
  function setOn(want) {
    on = want;
    if (on && !panel.isConnected) mountPanel();
    if (on && model) {
      restart(model);
      stage.pause();
      stage.setStep(0);
      reveal.textContent = "Predict where each equation lands before it does.";
    } else if (!on) state = null;
    draw();
    if (on) focusAnswer();
  }
  toggle.addEventListener("click", () => setOn(!on));
  leave.addEventListener("click", () => {
    setOn(false);
    toggle.focus();
  });
  retry.addEventListener("click", () => {
    setOn(true);
    focusAnswer();
  });

  // ---------------------------------------------------------------- keys (before the stage's: "u" is its "next unknown")
  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (!on || !state || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (!root.isConnected || root.closest("[inert]")) return;
    const active = /** @type {HTMLInputElement} */ (document.activeElement);
    if (isTypingTarget(active) && !NOT_TYPED.has(active.type)) return;
    const key = e.key.toLowerCase();
    if (state.phase === "side" && SIDE_OF_KEY[key]) answer((st) => answerSide(st, SIDE_OF_KEY[key]));
    else if (state.phase === "residuals" && /^[1-9]$/.test(key)) {
      const box = /** @type {HTMLInputElement | undefined} */ (operands.querySelectorAll("input")[Number(key) - 1]);
      if (!box) return;
      box.checked = !box.checked;
      box.focus({ preventScroll: true });
    } else if (state.phase === "residuals" && key === "enter" && active?.tagName !== "BUTTON") submitResiduals();
    else if (key !== "u") return; // "u" means unknown here, never the stage's "next unknown"
    e.preventDefault();
    e.stopPropagation();
  }
  document.addEventListener("keydown", onKey, true);

  const destroy = stage.destroy;
  return Object.assign(stage, {
    destroy() {
      document.removeEventListener("keydown", onKey, true);
      destroy();
    },
  });
}

// Section 1: the rule firing on the reader's function. Each traced equation is judged in
// turn from the split record's events: its inputs known / unknown, then the decision.
import { h, rich, waitingNote, errorNote, reducedMotion, argsLine } from "./util.js";
import { createLoader } from "./loader.js";

const SHOWN = "split"; // the mode this demo shows, whatever the page's

const PLAY_MS = 1100;

/** @import { ErrorRecord, Event, SplitRecord } from "../contract/record.js" */

/** @param {HTMLElement} el @param {import("./index.js").SectionContext} ctx */
export function createRuleDemo(el, ctx) {
  /** @type {SplitRecord | ErrorRecord | null} */
  let record = null;
  let step = 0; // equations judged so far (0..n)
  let timer = 0;
  const loader = createLoader(ctx, el);
  const status = h("p", { class: "x-narration", role: "status", "data-testid": "rule-narration" });

  function events() {
    return record && !("error" in record) ? record.events : [];
  }
  // the Play button draw() makes
  const playButton = () => /** @type {HTMLButtonElement | null} */ (el.querySelector(".x-play"));

  /** @param {Event} ev */
  function decisionOf(ev) {
    if (ev.side === "known" || ev.side === "known-dropped") {
      const v = ev.value && ev.value.length === 1 && ev.value[0] != null ? ` = ${ev.value[0]}` : "";
      return { cls: "known", label: "bind now", text: `every input known: runs now${v}` };
    }
    if (ev.side === "both") {
      return { cls: "both", label: "split", text: "a call: its own rule splits its inner program" };
    }
    const unk = [...new Set((ev.inputs ?? []).filter((x) => !x.known).map((x) => x.name))];
    return { cls: "unknown", label: "stage", text: `${unk.join(", ")} unknown: staged, every output unknown` };
  }

  function draw() {
    el.replaceChildren();
    if (!record) {
      el.append(waitingNote(ctx.engine));
      return;
    }
    if ("error" in record) {
      el.append(errorNote(record));
      return;
    }
    const evs = events();
    const n = evs.length;
    const args = argsLine(record);
    const note =
      ctx.main && ctx.main.mode !== SHOWN
        ? h(
            "p",
            { class: "x-note" },
            `The page is in ${ctx.main.mode} mode; this is the plain split of the same function with the same known/unknown inputs.`,
          )
        : null;
    const list = h("ol", { class: "rule-list", "data-testid": "rule-list" });
    evs.forEach((ev, i) => {
      const judged = i < step;
      const current = i === step - 1;
      const d = decisionOf(ev);
      const ins = (ev.inputs ?? []).map((x) =>
        h(
          "span",
          {
            class: `x-chip x-chip-${x.origin === "literal" ? "literal" : x.known ? "known" : "unknown"}`,
          },
          h("code", null, x.name),
          x.origin === "literal" ? " literal" : x.known ? " ✓" : " ?",
        ),
      );
      const row = h(
        "li",
        {
          class: `rule-row${judged ? ` is-judged is-${d.cls}` : " is-pending"}${current ? " is-current" : ""}`,
          "aria-current": current ? "step" : null,
          "data-side": judged ? ev.side : "pending",
          dataset: { i: String(i) },
        },
        h(
          "button",
          {
            type: "button",
            class: "rule-eqn",
            "aria-label": `Judge up to equation ${i + 1}: ${ev.short}`,
            onclick: () => {
              stop();
              setStep(i + 1);
            },
          },
          h("code", null, ev.short),
        ),
        h("span", { class: "rule-ins" }, ins.length ? ins : h("span", { class: "x-muted" }, "no inputs")),
        h(
          "span",
          { class: "rule-decision", "data-testid": "rule-decision" },
          judged
            ? [h("strong", { class: `x-badge x-badge-${d.cls}` }, d.label), " ", d.text]
            : h("span", { class: "x-muted" }, "not judged yet"),
        ),
      );
      list.append(row);
    });
    const known = evs.filter((e) => e.side === "known" || e.side === "known-dropped").length;
    const staged = evs.filter((e) => e.side === "unknown" || e.side === "unknown-dropped").length;
    const controls = h(
      "div",
      { class: "x-controls", role: "group", "aria-label": "Step through the rule", "data-stage-keys": "off" },
      h(
        "button",
        {
          type: "button",
          class: "action",
          onclick: () => {
            stop();
            setStep(0);
          },
          "aria-label": "Back to the start",
        },
        "↺ Start",
      ),
      h(
        "button",
        {
          type: "button",
          class: "action",
          onclick: () => {
            stop();
            setStep(step - 1);
          },
          disabled: step <= 0,
        },
        "◀ Back",
      ),
      h(
        "button",
        {
          type: "button",
          class: "action x-play",
          "data-testid": "rule-play",
          "aria-pressed": String(Boolean(timer)),
          onclick: toggle,
        },
        timer ? "⏸ Pause" : "▶ Play",
      ),
      h(
        "button",
        {
          type: "button",
          class: "action",
          onclick: () => {
            stop();
            setStep(step + 1);
          },
          disabled: step >= n,
        },
        "Next ▶",
      ),
      h("span", { class: "x-step", "data-testid": "rule-step" }, `${step} of ${n} judged`),
    );
    el.append(
      args,
      note ?? "",
      controls,
      list,
      status,
      h(
        "p",
        { class: "x-summary", "data-testid": "rule-summary" },
        `${n} equation${n === 1 ? "" : "s"}: ${known} ran now (known program), ${staged} staged (unknown program), `,
        `${record.residuals.length} residual${record.residuals.length === 1 ? "" : "s"} between them.`,
      ),
    );
  }

  /** @param {number} k */
  function setStep(k) {
    const n = events().length;
    step = Math.max(0, Math.min(n, k));
    draw();
    const ev = events()[step - 1];
    status.replaceChildren(
      ev ? rich(`Equation ${step} of ${n}: ${ev.narration}`) : step === 0 ? "Nothing judged yet." : "",
    );
    if (timer) playButton()?.focus({ preventScroll: true });
  }

  function stop() {
    clearInterval(timer);
    timer = 0;
  }
  function toggle() {
    if (timer) {
      stop();
      draw();
      playButton()?.focus();
      return;
    }
    if (step >= events().length) step = 0;
    timer = setInterval(
      () => {
        if (step >= events().length) {
          stop();
          draw();
          playButton()?.focus();
          return;
        }
        setStep(step + 1);
      },
      reducedMotion.matches ? PLAY_MS * 1.5 : PLAY_MS,
    );
    setStep(step + 1);
  }

  /** @param {SplitRecord | ErrorRecord} rec */
  function show(rec) {
    stop();
    record = rec;
    step = rec && !("error" in rec) ? rec.events.length : 0; // first frame: every decision shown
    draw();
  }

  return {
    follows: true,
    refresh() {
      const kw = ctx.mainOrDraw(draw);
      if (!kw) return;
      loader([{ mode: SHOWN, kwargs: kw }], {
        shown: Boolean(record),
        waiting: () => record || draw(),
        take([answer]) {
          const rec = /** @type {SplitRecord | ErrorRecord} */ (answer); // a split request's
          if ("error" in rec && record && !("error" in record)) el.prepend(errorNote(rec));
          else show(rec);
        },
      });
    },
    onEngineState() {
      if (!record) draw();
    },
  };
}

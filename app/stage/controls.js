// The stage's controls: step buttons, play, the timeline, the counter, speed, the narration
// line and the keys hint. Built once per stage; `sync` writes what a step changes.

import { setAttr, setText } from "../dom-writes.js";
import { h, richText, s } from "./dom.js";

export const SPEEDS = [0.5, 1, 2];

/** @type {Record<string, string>} */
const ICONS = {
  first: "M5 4h2v12H5z M16 4 8 10l8 6z",
  prev: "M14 4 6 10l8 6z",
  next: "M6 4l8 6-8 6z",
  last: "M13 4h2v12h-2z M4 4l8 6-8 6z",
  play: "M6 3.5 16 10 6 16.5z",
  pause: "M5 4h3.5v12H5z M11.5 4H15v12h-3.5z",
};

/** @param {string} name one of ICONS */
function icon(name) {
  return s(
    "svg",
    { class: "st-icon", viewBox: "0 0 20 20", "aria-hidden": "true", focusable: "false" },
    s("path", { d: ICONS[name] }),
  );
}

/** @param {string} name @param {string} testid @param {string} label */
function iconButton(name, testid, label) {
  return h(
    "button",
    { type: "button", class: "st-btn st-btn--icon", "data-testid": testid, "aria-label": label, title: label },
    icon(name),
  );
}

export function createControls() {
  const first = iconButton("first", "step-first", "First step (Home)");
  const prev = iconButton("prev", "step-prev", "Previous step (←)");
  const next = iconButton("next", "step-next", "Next step (→)");
  const last = iconButton("last", "step-last", "Last step (End)");
  const playIcon = h("span", { class: "st-play-icon" }, icon("play"));
  const playLabel = h("span", { class: "st-play-label" }, "Play");
  let iconPlaying = false;
  const play = h(
    "button",
    {
      type: "button",
      class: "st-btn st-btn--play",
      "data-testid": "play",
      "aria-pressed": "false",
      title: "Play / pause (Space)",
    },
    playIcon,
    playLabel,
  );
  const timeline = h("input", {
    type: "range",
    class: "st-timeline",
    "data-testid": "timeline",
    min: "0",
    max: "0",
    step: "1",
    value: "0",
    "aria-label": "Step",
  });
  const counter = h("span", { class: "st-counter", "data-testid": "step-counter" }, "Step 0 of 0");
  const speed = h(
    "select",
    { class: "st-speed", "data-testid": "speed", "aria-label": "Speed" },
    SPEEDS.map((v) => h("option", { value: v, selected: v === 1 }, `${v}×`)),
  );
  /** @param {string} testid @param {string} text @param {string} label @param {string} keys */
  const textButton = (testid, text, label, keys) =>
    h(
      "button",
      {
        type: "button",
        class: "st-btn st-btn--small",
        "data-testid": testid,
        "aria-label": label,
        "aria-keyshortcuts": keys,
        title: `${label} (${keys})`,
      },
      text,
    );
  const resPrev = textButton("residual-prev", "‹ residual", "Previous residual", "[");
  const resNext = textButton("residual-next", "residual ›", "Next residual", "]");
  const unknownNext = textButton("unknown-next", "next unknown", "Next unknown equation", "U");
  const jumps = h("div", { class: "st-jumps", role: "group", "aria-label": "Jump to" }, resPrev, resNext, unknownNext);
  const bar = h(
    "div",
    { class: "st-controls", role: "group", "aria-label": "Step through the split" },
    h("div", { class: "st-buttons" }, first, prev, play, next, last),
    h("div", { class: "st-scrub" }, timeline, counter),
    h("label", { class: "st-speed-label" }, h("span", null, "Speed"), speed),
    jumps,
  );
  const narration = h("p", {
    class: "st-narration",
    role: "status",
    "aria-live": "polite",
    "aria-atomic": "true",
    "data-testid": "narration",
  });
  const kbd = (/** @type {string} */ key) => h("kbd", null, key);
  const keysHint = h("p", { class: "st-keys st-muted" }, [
    ["Keys: ", kbd("←"), " ", kbd("→"), " step · "],
    [kbd("Home"), " ", kbd("End"), " · ", kbd("Space"), " play · "],
    [kbd("["), " ", kbd("]"), " residuals · ", kbd("U"), " next unknown · "],
    [
      "in the programs, ",
      kbd("↑"),
      " ",
      kbd("↓"),
      " ",
      kbd("←"),
      " ",
      kbd("→"),
      " move, ",
      kbd("Enter"),
      " opens a call",
    ],
  ]);

  /** Show step `step` of `total` (`event`: the one just judged, or null).
   *  @param {{step: number, total: number, playing: boolean, event: {short: string} | null,
   *           residuals?: number, unknowns?: boolean}} state */
  function sync({ step, total, playing, event, residuals = 0, unknowns = false }) {
    for (const b of [resPrev, resNext]) setAttr(b, "aria-disabled", String(!residuals));
    setAttr(unknownNext, "aria-disabled", String(!unknowns));
    timeline.max = String(total);
    timeline.value = String(step);
    const label = `Step ${step} of ${total}`;
    setText(counter, label);
    setAttr(timeline, "aria-valuetext", event ? `${label}: ${event.short}` : label);
    for (const b of [first, prev]) setAttr(b, "aria-disabled", String(step === 0));
    for (const b of [next, last]) setAttr(b, "aria-disabled", String(step >= total));
    setAttr(play, "aria-pressed", String(playing));
    // the icon is drawn again only when it changes (the build's first frame shows "play")
    if (playing !== iconPlaying) playIcon.replaceChildren(icon(playing ? "pause" : "play"));
    setText(playLabel, playing ? "Pause" : "Play"); // what a press does now
    iconPlaying = playing;
  }

  /** The narration line: text with `code` spans, or plain text. Written only when it changes
   *  (a live region: the same words are not said again, nor the build's first frame redrawn).
   *  @param {string} text @param {{step?: number | null, plain?: boolean}} [options] */
  function narrate(text, { step = null, plain = false } = {}) {
    const said = `${plain}:${text}`;
    if (said !== narration.dataset.said) {
      if (plain) narration.textContent = text;
      else narration.replaceChildren(richText(text));
      narration.dataset.said = said;
    }
    if (step != null) narration.dataset.step = String(step);
  }

  return {
    top: h("div", { class: "st-top" }, bar, narration),
    keysHint,
    buttons: { first, prev, next, last, play, resPrev, resNext, unknownNext },
    timeline,
    speed,
    sync,
    narrate,
  };
}

// The engine's status line (data-testid="engine"): loading (with the boot stage), ready (with
// the boot time), working, or a sentence for a reader whose browser could not start it.

import { NO_ENGINE, STILL_SHOWN } from "../../engine-answers.js";

const LABEL = { loading: "loading", ready: "ready", busy: "working" };

export function showEngineStatus(el, engine) {
  const show = (state, info) => {
    el.dataset.state = state;
    let text = `Python engine: ${LABEL[state]}`;
    if (state === "loading" && info.stage) text += ` (${info.stage})`;
    if (state === "ready" && info.timings) text += ` in ${(info.timings.bootMs / 1000).toFixed(1)} s`;
    if (state === "error") text = `${NO_ENGINE} (${info.error?.message ?? "no detail"}); ${STILL_SHOWN}.`;
    el.textContent = text;
    el.title = text; // a narrow screen cuts the line short (static/style.css)
  };
  engine.onState(show);
  show(engine.state, engine.info);
}

// The engine's status line (data-testid="engine"): loading (with the boot stage), ready (with
// the boot time), working, or a sentence for a reader whose browser could not start it.

import { NO_ENGINE, STILL_SHOWN } from "../../engine-answers.js";

/** @type {Record<string, string>} */
const LABEL = { loading: "loading", ready: "ready", busy: "working" };

/**
 * What the status line reads of engine-client.js's `info`.
 * @typedef {{stage?: string | null, timings?: {bootMs: number} | null, error?: {message?: string} | null}} EngineInfo
 */

/**
 * @param {HTMLElement} el
 * @param {{onState: (cb: (state: string, info: EngineInfo) => void) => void, state: string,
 *          info: EngineInfo}} engine the client (engine-client.js)
 */
export function showEngineStatus(el, engine) {
  /** @param {string} state @param {EngineInfo} info */
  const show = (state, info) => {
    el.dataset.state = state;
    let text = `Python engine: ${LABEL[state]}`;
    if (state === "loading" && info.stage) text += ` (${info.stage})`;
    if (state === "ready" && info.timings) text += ` in ${(info.timings.bootMs / 1000).toFixed(1)} s`;
    if (state === "error") text = `${NO_ENGINE} (${info.error?.message ?? "no detail"}); ${STILL_SHOWN}.`;
    el.textContent = text; // shown whole at any width: it wraps (static/style.css)
  };
  engine.onState(show);
  show(engine.state, engine.info);
}

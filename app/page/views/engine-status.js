// The engine's status line (data-testid="engine"): loading (with the boot stage), ready (with
// the boot time), working, failed to start.

const LABEL = { loading: "loading", ready: "ready", busy: "working", error: "failed to start" };

export function showEngineStatus(el, engine) {
  const show = (state, info) => {
    el.dataset.state = state;
    let text = `Python engine: ${LABEL[state]}`;
    if (state === "loading" && info.stage) text += ` (${info.stage})`;
    if (state === "ready" && info.timings) text += ` in ${(info.timings.bootMs / 1000).toFixed(1)} s`;
    if (state === "error" && info.error) text += `: ${info.error.message}`;
    el.textContent = text;
    el.title = text; // a narrow screen cuts the line short (static/style.css)
  };
  engine.onState(show);
  show(engine.state, engine.info);
}

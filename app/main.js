// Wiring: start the engine first (its boot is the long pole), then the rest of the page.
// Placeholder: the real UI (editor, views) is built on top of this.
import { createEngine } from "./engine-client.js";

const params = new URLSearchParams(location.search);
const engine = createEngine({ timeoutMs: Number(params.get("callTimeout")) || 10_000 });
// For the console and the browser tests: window.peEngine.call("platform.python_version")
window.peEngine = engine;
document.documentElement.dataset.app = "started"; // boot-guard.js: the module graph loaded

const status = document.querySelector('[data-testid="engine"]');
const LABEL = { loading: "loading", ready: "ready", busy: "working", error: "failed to start" };

function show(state, info) {
  status.dataset.state = state;
  let text = `Python engine: ${LABEL[state]}`;
  if (state === "loading" && info.stage) text += ` (${info.stage})`;
  if (state === "ready" && info.timings) text += ` in ${(info.timings.bootMs / 1000).toFixed(1)} s`;
  if (state === "error" && info.error) text += `: ${info.error.message}`;
  status.textContent = text;
}

engine.onState(show);
show(engine.state, engine.info);

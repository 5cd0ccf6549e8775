// Dev harness for the stage: loads a record fixture (tests/fixtures/records/<name>.json, made
// by `python3 tests/fixtures/make_records.py`) and shows it without the engine. ?fixture=<name>&step=<n>. For tests: window.stage,
// window.stageLinks (every onLink call), window.stageSteps (every onStepChange call).
import { createStage } from "./index.js";

const FIXTURES = "../../tests/fixtures/records/";
const params = new URLSearchParams(location.search);
const name = params.get("fixture") || "sin_cos";
const select = /** @type {HTMLSelectElement} */ (document.getElementById("fixture"));
// demo.html's own elements: always there
const sourceList = /** @type {HTMLElement} */ (document.getElementById("source"));
const log = /** @type {HTMLElement} */ (document.getElementById("demo-log"));

window.stageLinks = [];
window.stageSteps = [];

/** @param {import("./model.js").Link | null} link */
function showLink(link) {
  window.stageLinks.push(link);
  log.textContent = link ? `onLink ${JSON.stringify(link)}` : "onLink null";
  for (const li of /** @type {HTMLCollectionOf<HTMLElement>} */ (sourceList.children)) {
    li.classList.toggle("is-linked", link?.line != null && Number(li.dataset.line) === link.line);
  }
}

const stage = createStage(/** @type {HTMLElement} */ (document.getElementById("stage")), { onLink: showLink });
window.stage = stage;
let urlTimer = 0;
stage.onStepChange((step, info) => {
  window.stageSteps.push([step, info.source]);
  clearTimeout(urlTimer); // as the shell should: replaceState, debounced
  urlTimer = setTimeout(() => {
    const url = new URL(location.href);
    url.searchParams.set("step", String(step));
    history.replaceState(null, "", url);
  }, 300);
});

/** @param {string | undefined} src the fixture's source */
function showSource(src) {
  sourceList.replaceChildren();
  (src || "")
    .replace(/\n$/, "")
    .split("\n")
    .forEach((text, i) => {
      const li = document.createElement("li");
      li.textContent = text || " ";
      li.dataset.line = String(i + 1);
      li.tabIndex = 0;
      const on = () => stage.highlight({ line: i + 1 });
      const off = () => stage.highlight(null);
      li.addEventListener("mouseenter", on);
      li.addEventListener("focus", on);
      li.addEventListener("mouseleave", off);
      li.addEventListener("blur", off);
      sourceList.append(li);
    });
}

/** @param {string} fixture */
async function load(fixture) {
  const resp = await fetch(`${FIXTURES}${encodeURIComponent(fixture)}.json`);
  if (!resp.ok) throw new Error(`fixture ${fixture}: HTTP ${resp.status}`);
  const record = await resp.json();
  showSource(record._fixture?.source);
  const step = params.get("step");
  const t0 = performance.now();
  stage.setRecord(record, { step: step == null ? undefined : Number(step) });
  window.stageRenderMs = performance.now() - t0;
  document.documentElement.dataset.ready = fixture;
}

async function main() {
  const names = await (await fetch(`${FIXTURES}index.json`)).json();
  for (const n of names) {
    const opt = document.createElement("option");
    opt.value = n;
    opt.textContent = n;
    opt.selected = n === name;
    select.append(opt);
  }
  select.addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("fixture", select.value);
    url.searchParams.delete("step");
    location.href = url.href;
  });
  await load(name);
}

main().catch((err) => {
  document.documentElement.dataset.ready = "error";
  log.textContent = String(err);
  console.error(err);
});

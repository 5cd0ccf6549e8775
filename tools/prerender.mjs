// The page's first frame, drawn at build time into dist/index.html: the default example in the
// editor's place, its controls (modes, examples, blurb, inputs) and its stage (the policy cards,
// the panes, the equations, the residual list and labels), built by the page's own view code
// from the precomputed record, in a DOM that linkedom provides to Node. The browser paints it
// with the HTML, so the reader sees the split at first contentful paint; the page's stage then
// takes those elements over (app/stage/index.js, `data-made`: the order they were made in)
// rather than drawing them again.
//
//   node tools/prerender.mjs <dist folder> <node_modules folder>
//
// What needs layout cannot be done here: the residual edges' geometry is measured by the page
// (the edge layer stays hidden until it is), and CodeMirror mounts in the page.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, nodeModules] = process.argv.slice(2);
if (!dist || !nodeModules) {
  process.stderr.write("usage: node tools/prerender.mjs <dist folder> <node_modules folder>\n");
  process.exit(2);
}
const at = (...p) => pathToFileURL(join(dist, ...p)).href;
const { parseHTML } = await import(pathToFileURL(join(nodeModules, "linkedom", "esm", "index.js")).href);

const htmlPath = join(dist, "index.html");
const { window, document } = parseHTML(readFileSync(htmlPath, "utf8"));

// What the views touch of a browser beyond the DOM: nothing here lays out, animates or moves.
const noLayout = class {
  observe() {}
  unobserve() {}
  disconnect() {}
};
Object.assign(globalThis, {
  window,
  document,
  Node: window.Node,
  Element: window.Element,
  HTMLElement: window.HTMLElement,
  CustomEvent: window.CustomEvent,
  ResizeObserver: noLayout,
  IntersectionObserver: noLayout,
  matchMedia: () => ({ matches: false, addEventListener() {}, removeEventListener() {} }),
  requestAnimationFrame: () => 0,
  cancelAnimationFrame() {},
  getComputedStyle: () => ({ position: "static" }),
  innerHeight: 800,
});
// every element counts as rendered (as the page's will be), at no size
const box = { top: 0, bottom: 0, left: 0, right: 0, width: 0, height: 0 };
window.Element.prototype.getClientRects = () => [box];
window.Element.prototype.getBoundingClientRect = () => box;

// linkedom's <select> value has no setter; a browser's selects the option, which the HTML says
// with `selected`
const selectValue = Object.getOwnPropertyDescriptor(window.HTMLSelectElement.prototype, "value");
Object.defineProperty(window.HTMLSelectElement.prototype, "value", {
  get: selectValue?.get,
  set(v) {
    for (const opt of this.querySelectorAll("option")) opt.toggleAttribute("selected", opt.value === String(v));
  },
});

// properties a browser reflects into attributes (or, for `checked`, shows) that linkedom keeps
// to itself: the HTML must say them
const reflect = (proto, prop, attr, bool = false) =>
  Object.defineProperty(proto, prop, {
    configurable: true,
    get() {
      return bool ? this.hasAttribute(attr) : (this.getAttribute(attr) ?? "");
    },
    set(v) {
      if (bool) this.toggleAttribute(attr, Boolean(v));
      else this.setAttribute(attr, String(v));
    },
  });
for (const p of ["min", "max", "step", "autocomplete"]) reflect(window.HTMLInputElement.prototype, p, p);
reflect(window.HTMLInputElement.prototype, "checked", "checked", true);
reflect(window.HTMLElement.prototype, "spellcheck", "spellcheck");
reflect(window.HTMLLabelElement.prototype, "htmlFor", "for");
reflect(window.HTMLDetailsElement.prototype, "open", "open", true);

const examples = JSON.parse(readFileSync(join(dist, "app", "examples.json"), "utf8"));
const precomputed = JSON.parse(readFileSync(join(dist, "precomputed.json"), "utf8"));
const { defaultExample } = await import(at("app", "examples.js"));
const { seedSignatures, signatureOf } = await import(at("app", "signatures.js"));
const { requestFor, requestKey, stateFromExample } = await import(at("app", "state.js"));
const { initialPageState, update } = await import(at("app", "page", "update.js"));
const { controlElements, createControls } = await import(at("app", "page", "views", "controls.js"));
const { createInstantiate } = await import(at("app", "page", "views", "instantiate.js"));
const { createStage } = await import(at("app", "stage", "index.js"));
const { drawPlainCode } = await import(at("app", "plain-code.js"));

seedSignatures(examples.signatures); // the build's, as loadExamples seeds them in the page
const ex = defaultExample(examples);
const doc = stateFromExample(ex);
const key = requestKey(requestFor(doc));
const record = precomputed.records[key];
if (!record || record.error) {
  process.stderr.write(`prerender: precomputed.json has no record for the default example (${key})\n`);
  process.exit(1);
}
const state = update(
  initialPageState(doc, ex.id, signatureOf(doc.code) ?? null),
  { type: "answer", answer: record, key },
  () => true,
);
const $ = (sel) => {
  const el = document.querySelector(sel);
  if (!el) throw new Error(`prerender: index.html has no ${sel}`);
  return el;
};
const nothing = () => {};

const els = controlElements($);
createControls(els, examples, () => state, nothing)(state);
const bar = $('[data-testid="instantiate"]');
createInstantiate(bar, { getState: () => state, dispatch: nothing })(state);
for (const el of [...Object.values(els), bar, $('[data-testid="editor"]')]) el.dataset.prerendered = "";
const root = $("#stage");
// the elements the stage makes, in order: the page's stage takes them over in that order
const made = [];
createStage(root, { recordFirstFrame: made }).setRecord(record, { key });
const place = new Map([...root.querySelectorAll("*")].map((el, i) => [el, i]));
root.dataset.made = made.map((el) => place.get(el) ?? -1).join(",");
root.dataset.prerendered = key;

// the code, where CodeMirror mounts when the reader reaches for it (app/editor-slot.js draws it
// the same way until then)
drawPlainCode($('[data-testid="editor"]'), doc.code);

writeFileSync(htmlPath, document.toString());
const eqns = root.querySelectorAll('[data-testid="eqn"]').length;
process.stdout.write(`[prerender] index.html: ${ex.id}, ${eqns} equations, record ${key}\n`);

// The examples menu. The examples themselves live in examples.json, which tools/precompute.py
// also reads, so the record baked into the first frame is always the default example's. The
// build adds `signatures` to it: the function of every source the page opens with, as the
// engine reads it (signatures.js), so no example waits for the engine to name its inputs.

import { seedSignatures } from "./signatures.js";
import { MODE_TABLE } from "./modes.js";

/**
 * @typedef {object} Example one entry of examples.json
 * @property {string} id
 * @property {string} title
 * @property {string} mode
 * @property {string} code
 * @property {Record<string, boolean>} known
 * @property {Record<string, string>} values
 * @property {string} [policy]
 * @property {boolean} [folding]
 * @typedef {object} Examples examples.json, with the signatures the build adds
 * @property {string} default the id of the example the page opens with
 * @property {Example[]} examples
 * @property {Record<string, import("./contract/record.js").SignatureAnswer>} [signatures] by source
 */

/** @type {Promise<Examples> | null} */
let loaded = null;

/** examples.json, fetched once. @returns {Promise<Examples>} */
export function loadExamples() {
  loaded ??= fetch(new URL("./examples.json", import.meta.url))
    .then((r) => {
      if (!r.ok) throw new Error(`examples.json: HTTP ${r.status}`);
      return r.json();
    })
    .then((data) => {
      seedSignatures(data.signatures);
      return data;
    });
  return loaded;
}

/** @param {Examples} data @param {string} id @returns {Example | null} */
export function findExample(data, id) {
  return data.examples.find((e) => e.id === id) ?? null;
}

/** @param {Examples} data @returns {Example} */
export function defaultExample(data) {
  return findExample(data, data.default) ?? data.examples[0];
}

/** Fill a <select> with the examples, grouped by mode; onPick(example) on change.
 *  @param {HTMLSelectElement} select @param {Examples} data @param {(ex: Example) => void} onPick */
export function mountExamples(select, data, onPick) {
  select.replaceChildren();
  const custom = document.createElement("option");
  custom.value = "";
  custom.textContent = "Your code";
  custom.hidden = true;
  select.append(custom);
  for (const [mode, { group: label }] of Object.entries(MODE_TABLE)) {
    const group = document.createElement("optgroup");
    group.label = label;
    for (const ex of data.examples.filter((e) => e.mode === mode)) {
      const opt = document.createElement("option");
      opt.value = ex.id;
      opt.textContent = ex.title;
      group.append(opt);
    }
    if (group.children.length) select.append(group);
  }
  select.addEventListener("change", () => {
    const ex = findExample(data, select.value);
    if (ex) onPick(ex);
  });
  return {
    /** Show which example the state is (or "Your code" once edited). @param {string} id */
    show(id) {
      select.value = id && findExample(data, id) ? id : "";
    },
  };
}

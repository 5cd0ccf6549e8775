// The examples menu. The examples themselves live in examples.json, which tools/precompute.py
// also reads, so the record baked into the first frame is always the default example's. The
// build adds `signatures` to it: the function of every source the page opens with, as the
// engine reads it (signatures.js), so no example waits for the engine to name its inputs.

import { seedSignatures } from "./signatures.js";
import { MODE_TABLE } from "./modes.js";

let loaded = null;

/** {default: id, examples: [{id, title, mode, code, known, values, policy?, folding?}],
 *  signatures?: {source: SignatureAnswer}} */
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

export function findExample(data, id) {
  return data.examples.find((e) => e.id === id) ?? null;
}

export function defaultExample(data) {
  return findExample(data, data.default) ?? data.examples[0];
}

/** Fill a <select> with the examples, grouped by mode; onPick(example) on change. */
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
    /** Show which example the state is (or "Your code" once edited). */
    show(id) {
      select.value = id && findExample(data, id) ? id : "";
    },
  };
}

// A small editable function for the demos that have their own (sections 3 and 4): a code
// box and one value field per parameter of the function the engine traces (its signature,
// read by the engine: signatures.js). onChange({source, args}) fires (debounced) after edits,
// once the engine has read the edited function; Ctrl/Cmd+Enter fires at once.
import { h } from "./util.js";
import { askSignature, paramsOf } from "../signatures.js";
import { demoKwargs } from "./requests.js";

export function createMiniEditor({
  id,
  engine,
  code,
  values = {},
  known = {},
  label,
  onChange,
  rows = code.split("\n").length,
}) {
  const vals = { ...values };
  let timer = 0;
  const textarea = h("textarea", {
    id: `${id}-code`,
    class: "x-code",
    rows: String(rows),
    spellcheck: "false",
    autocapitalize: "off",
    autocomplete: "off",
    wrap: "off",
    "data-testid": `${id}-code`,
    "data-stage-keys": "off",
  });
  textarea.value = code;
  const fields = h("div", { class: "x-values", "data-testid": `${id}-values` });
  const root = h(
    "div",
    { class: "x-mini" },
    h("label", { for: `${id}-code`, class: "x-mini-label" }, label),
    textarea,
    h(
      "p",
      { class: "x-hint" },
      "The last ",
      h("code", null, "def"),
      " is traced; the demo re-runs as you type (",
      h("kbd", null, "Ctrl"),
      "+",
      h("kbd", null, "Enter"),
      " at once).",
    ),
    fields,
  );

  function renderFields() {
    const ps = paramsOf(textarea.value);
    const have = [...fields.querySelectorAll("input")].map((i) => i.dataset.param);
    if (have.join() === ps.join()) return;
    fields.replaceChildren();
    for (const p of ps) {
      const input = h("input", {
        type: "text",
        class: "x-value",
        value: vals[p] ?? "1.0",
        spellcheck: "false",
        "data-testid": `${id}-value-${p}`,
        "aria-label": `Value of ${p}`,
        dataset: { param: p },
      });
      input.addEventListener("input", () => {
        vals[p] = input.value;
        schedule(400);
      });
      input.addEventListener("keydown", keys);
      fields.append(h("label", { class: "x-value-row" }, h("code", null, p), " = ", input));
    }
  }

  function keys(e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      schedule(0);
    }
  }
  textarea.addEventListener("keydown", keys);
  textarea.addEventListener("input", () => schedule(500));

  function schedule(ms) {
    clearTimeout(timer);
    const at = setTimeout(async () => {
      // the edited function's inputs, as the engine reads them (kept: asked once a source)
      await askSignature(engine, textarea.value);
      if (timer !== at) return; // edited again meanwhile: that edit's run takes over
      renderFields();
      onChange(request());
    }, ms);
    timer = at;
  }

  function request() {
    return demoKwargs(textarea.value, vals, known);
  }

  renderFields();
  return {
    el: root,
    request,
    setSource(text) {
      textarea.value = text;
      schedule(0);
    },
    setValue(p, v) {
      vals[p] = v;
      const i = fields.querySelector(`[data-param="${p}"]`);
      if (i) i.value = v;
      schedule(0);
    },
  };
}

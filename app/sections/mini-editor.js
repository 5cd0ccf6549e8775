// A small editable function for the demos that have their own (sections 3 and 4): a code
// box and one value field per parameter of the function the engine traces (its signature,
// read by the engine: signatures.js, asked through the page's engine session as the demos'
// records are: ctx.signature). onChange({source, args}) fires (debounced) after edits, once
// the engine has read the edited function; Ctrl/Cmd+Enter fires at once.
import { h } from "./util.js";
import { paramsOf } from "../signatures.js";
import { demoKwargs } from "./requests.js";

/** @typedef {ReturnType<typeof demoKwargs>} DemoKwargs */

/**
 * @param {object} opts
 * @param {string} opts.id the prefix of its elements' ids and test ids
 * @param {(code: string) => Promise<unknown>} opts.signature asks the engine for a source's
 *   signature (resolves once signatures.js keeps it): the sections' ctx.signature
 * @param {string} opts.code
 * @param {Record<string, string>} [opts.values] each parameter's value (default 1.0)
 * @param {Record<string, boolean>} [opts.known] the parameters that are known
 * @param {string} opts.label
 * @param {(kwargs: DemoKwargs) => void} opts.onChange
 * @param {number} [opts.rows]
 */
export function createMiniEditor({
  id,
  signature,
  code,
  values = {},
  known = {},
  label,
  onChange,
  rows = code.split("\n").length,
}) {
  /** @type {Record<string, string>} */
  const vals = { ...values };
  /** @type {ReturnType<typeof setTimeout> | 0} */
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

  /** @param {KeyboardEvent} e */
  function keys(e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      schedule(0);
    }
  }
  textarea.addEventListener("keydown", keys);
  textarea.addEventListener("input", () => schedule(500));

  /** @param {number} ms */
  function schedule(ms) {
    clearTimeout(timer);
    const at = setTimeout(async () => {
      // the edited function's inputs, as the engine reads them (kept: asked once a source)
      await signature(textarea.value);
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
    /** @param {string} text */
    setSource(text) {
      textarea.value = text;
      schedule(0);
    },
    /** @param {string} p @param {string} v */
    setValue(p, v) {
      vals[p] = v;
      const i = /** @type {HTMLInputElement | null} */ (fields.querySelector(`input[data-param="${CSS.escape(p)}"]`));
      if (i) i.value = v;
      schedule(0);
    },
  };
}

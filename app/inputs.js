// The inputs panel: one row per argument of the traced function, with a known/unknown toggle
// (a real button with aria-pressed and a text label, not colour alone), the value as a numpy
// literal, and the shape/dtype the engine reported. Rows are kept per name, so re-rendering
// never steals focus or loses what the user is typing.

import { setAttr, setHidden, setText } from "./dom-writes.js";
import { isKnown, soleDifferentiated } from "./state.js";
import { modeOf } from "./modes.js";

/**
 * @typedef {object} InputsView what render draws
 * @property {string[]} params the traced function's parameters, in order
 * @property {import("./page/update.js").Doc} state
 * @property {import("./contract/record.js").EngineRecord | null} record the avals it traced
 * @property {string} mode
 * @property {string | null} badInput the parameter whose value the engine could not read
 * @property {string | null} [toggleError] what is wrong with the toggles as a whole
 */

/**
 * createInputs(container, {onToggle(name), onValue(name, text)})
 *   -> {render({params, state, record, mode, badInput, toggleError})}
 * @param {Element} container
 * @param {{onToggle: (name: string) => void, onValue: (name: string, text: string) => void,
 *          modeNote?: HTMLElement | null}} handlers modeNote: the line under the rows
 */
export function createInputs(container, { onToggle, onValue, modeNote = null }) {
  /** @type {Map<string, ReturnType<typeof makeRow>>} */
  const rows = new Map();
  container.replaceChildren(); // the rows the build drew for the first frame (tools/prerender.mjs)
  const empty = document.createElement("p");
  empty.className = "inputs-empty";
  empty.textContent = "Define a function (def f(x, y): …) and its arguments appear here.";

  /** @param {string} name */
  function makeRow(name) {
    const row = document.createElement("div");
    row.className = "input-row";
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", `argument ${name}`);
    row.dataset.arg = name;

    const label = document.createElement("label");
    label.className = "arg-name";
    const code = document.createElement("code");
    code.textContent = name;
    label.append(code);

    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "known-toggle";
    toggle.setAttribute("data-testid", `input-toggle-${name}`);
    toggle.addEventListener("click", () => onToggle(name));

    const value = document.createElement("input");
    value.type = "text";
    value.className = "arg-value";
    value.spellcheck = false;
    value.autocomplete = "off";
    value.setAttribute("autocapitalize", "off");
    value.setAttribute("data-testid", `input-value-${name}`);
    value.id = `arg-value-${name}`;
    label.htmlFor = value.id;
    value.addEventListener("input", () => onValue(name, value.value));

    const aval = document.createElement("span");
    aval.className = "arg-aval";
    aval.setAttribute("data-testid", `input-aval-${name}`);
    aval.title = "shape and dtype, as the engine traced it";

    const note = document.createElement("span");
    note.className = "arg-note";
    note.id = `arg-note-${name}`;
    value.setAttribute("aria-describedby", note.id);

    row.append(label, toggle, value, aval, note);
    return { row, toggle, value, aval, note };
  }

  /** @param {InputsView} view */
  function render({ params, state, record, mode, badInput, toggleError = null }) {
    if (!params || params.length === 0) {
      for (const r of rows.values()) r.row.remove();
      rows.clear();
      container.replaceChildren(empty);
      return;
    }
    empty.remove();
    for (const [name, r] of rows) {
      if (!params.includes(name)) {
        r.row.remove();
        rows.delete(name);
      }
    }
    const recArgs = new Map((record?.args ?? []).map((a) => [a.name, a]));
    params.forEach((name, i) => {
      let r = rows.get(name);
      if (!r) {
        r = makeRow(name);
        rows.set(name, r);
      }
      if (container.children[i] !== r.row) container.insertBefore(r.row, container.children[i] ?? null);
      const known = isKnown(state, name);
      const jit = modeOf(mode)?.mask === "none"; // every argument is a formal parameter: the mask has no say
      const autodiff = modeOf(mode)?.mask === "argnums"; // the mask is argnums
      const sole = soleDifferentiated(state, name); // autodiff needs one input to differentiate
      setText(r.toggle, known ? "known" : "unknown");
      setAttr(r.toggle, "aria-pressed", String(known));
      r.toggle.classList.toggle("is-known", known);
      r.toggle.classList.toggle("is-unknown", !known);
      setAttr(
        r.toggle,
        "aria-label",
        jit
          ? `${name}: known or unknown, unavailable under jit`
          : sole
            ? `${name} is unknown: differentiated, the only input that is`
            : autodiff
              ? `${name} is ${known ? "known: held fixed" : "unknown: differentiated"}; press to ${known ? "differentiate it" : "hold it fixed"}`
              : `${name} is ${known ? "known" : "unknown"}; press to make it ${known ? "unknown" : "known"}`,
      );
      // jit: disabled, and says why (aria-disabled keeps it focusable, so the reason is heard)
      setAttr(r.toggle, "aria-disabled", jit || sole ? "true" : null);
      setAttr(r.toggle, "aria-describedby", jit || sole ? r.note.id : null);
      setAttr(
        r.toggle,
        "title",
        jit
          ? "Under jit every argument is a formal parameter, so every input is unknown: the toggles apply in the other modes"
          : sole
            ? `${name} is the only input differentiated: differentiate another one to hold ${name} fixed`
            : autodiff
              ? `Unknown = differentiated (JAX's argnums), known = held at its value. Make ${name} ${known ? "differentiated" : "held fixed"}`
              : `Make ${name} ${known ? "unknown (only its shape and dtype)" : "known (its value is at hand)"}`,
      );
      r.row.classList.toggle("is-known", known);
      r.row.classList.toggle("is-unknown", !known);
      r.row.classList.toggle("mask-ignored", jit);
      const text = state.values[name] ?? "1.0";
      if (r.value.value !== text && document.activeElement !== r.value) r.value.value = text;
      setAttr(r.value, "aria-label", `value of ${name} (numpy literal, e.g. [0.5, 1.0] or zeros((3, 4)))`);
      const a = recArgs.get(name);
      setText(r.aval, a?.aval ?? "");
      setHidden(r.aval, !a?.aval);
      const bad = badInput === name;
      r.value.classList.toggle("is-invalid", bad);
      setAttr(r.value, "aria-invalid", String(bad));
      setText(
        r.note,
        jit
          ? "jit: every input is unknown"
          : sole
            ? "differentiated (at least one input is; jax.grad's default is the first)"
            : autodiff
              ? known
                ? "held fixed (not differentiated)"
                : "differentiated (in argnums)"
              : known
                ? ""
                : "only its shape and dtype are used",
      );
    });
    if (modeNote) {
      setHidden(modeNote, modeOf(mode)?.mask === "known");
      modeNote.classList.toggle("is-error", Boolean(toggleError));
      setText(
        modeNote,
        toggleError
          ? toggleError
          : modeOf(mode)?.mask === "none"
            ? "Under jit every argument is a formal parameter, so every input is unknown whatever its toggle " +
              "says; the values only fix shapes and dtypes. The toggles apply in split mode."
            : `In ${mode} mode the toggles choose what is differentiated, as JAX's argnums do: an unknown input ` +
              "is differentiated (its tangent is the unknown, its value still runs the forward pass); a known one " +
              "is held at its value.",
      );
    }
  }

  return { render };
}

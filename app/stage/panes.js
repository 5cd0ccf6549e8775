// Program panes, printed as JAX prints them, one element per equation, plus the traced strip.
// Built once per record; the step only toggles classes (see index.js `reveal`).

import { callToggle, REDUCE_PRECISION_WHY } from "./calls.js";
import { add, copyText, h, selectContents, sourceAnchor, stateOf } from "./dom.js";
import { SIDE_BADGE, SIDE_LABEL } from "./model.js";
import { modeOf } from "../modes.js";

/** @typedef {import("./model.js").Model} Model */
/** @typedef {import("./model.js").ModelPane} ModelPane */
/** @typedef {import("./model.js").ModelResidual} ModelResidual */
/** @typedef {import("./timeline.js").Reveal} Reveal */
/**
 * A pane as drawn (renderPane): its elements, and `showStep(step)` to count what a step shows.
 * @typedef {object} PaneView
 * @property {HTMLElement} el
 * @property {HTMLOListElement} body
 * @property {HTMLLIElement[]} eqnEls eqnEls[j]: equation j's row
 * @property {Map<string, HTMLSpanElement>} varEls a binder of the header, by name
 * @property {HTMLSpanElement[]} invarEls
 * @property {HTMLSpanElement[]} outEls
 * @property {HTMLDivElement} headLine
 * @property {HTMLDivElement} footLine
 * @property {HTMLSpanElement} count the equations shown, of all
 * @property {ModelPane} pane
 * @property {(step: number) => void} showStep
 * @property {Map<number, Element[]>} [resVarEls] the names each residual has in the header and
 *   footer (view.js adds them)
 */

/** @type {Record<ModelPane["role"], string>} */
const ROLE_BADGE = { known: "K", unknown: "U", staged: "S", other: "" };
/** @type {Record<ModelPane["role"], string>} */
const ROLE_NAME = { known: "known", unknown: "unknown", staged: "staged", other: "" };

/** @param {ModelPane["role"]} role @param {string} [text] */
function badge(role, text = ROLE_BADGE[role]) {
  return text ? h("span", { class: `st-badge st-badge--${role}`, "aria-hidden": "true" }, text) : null;
}

/** @param {ModelResidual} r @param {string} [extra] @param {Element | null} [before] */
function resTag(r, extra = "", before = null) {
  return h("span", { class: `st-rtag ${extra}`, title: `residual ${r.label}` }, before, r.label);
}

/**
 * A pane. `reveal(el, step)` registers an element that appears at a step.
 * @param {Model} model @param {ModelPane} pane @param {Reveal} reveal @returns {PaneView}
 */
export function renderPane(model, pane, reveal) {
  const prog = pane.program;
  const titleId = `st-${pane.id}-${Math.random().toString(36).slice(2, 8)}`;
  const copyBtn = h(
    "button",
    {
      type: "button",
      class: "st-btn st-btn--small st-copy",
      "data-testid": `copy-${pane.id}`,
      "aria-label": `Copy the ${pane.title} as text`,
    },
    "Copy",
  );
  const pre = h("pre", { class: "st-pre", tabindex: "0" }, prog.text);
  copyBtn.addEventListener("click", () => copyPane(copyBtn));
  const textBox = h("details", { class: "st-text" }, h("summary", null, "Printed text"), pre);

  const n = prog.eqns?.length || 0;
  const count = h("span", { class: "st-pane-count", "data-testid": "pane-count" }, countText(n, n));
  const head = h(
    "header",
    { class: "st-pane-head" },
    h("div", { class: "st-pane-title" }, badge(pane.role), h("h3", { id: titleId }, pane.title), copyBtn),
    h("p", { class: "st-pane-sub" }, count, pane.sub ? ` · ${pane.sub}` : ""),
  );
  // the count follows the step: what is on screen, of what the split will hold
  const reveals = [...pane.eqnReveal].sort((a, b) => a - b);
  let shownCount = n;
  // the count element is read through the pane view: a stage that keeps the drawn one for a
  // new record (reconcile.js) puts it there
  const showStep = (/** @type {number} */ step) => {
    let k = 0;
    while (k < n && reveals[k] <= step) k++;
    if (k === shownCount) return;
    shownCount = k;
    /** @type {Text} */ (pv.count.firstChild).data = countText(k, n); // the text changes, not the DOM
  };

  // header line: { lambda consts; invars. let (the binders as the engine typed them)
  /** @type {Map<string, HTMLSpanElement>} */
  const varEls = new Map();
  /** @type {HTMLSpanElement[]} */
  const invarEls = [];
  /** @type {HTMLSpanElement[]} */
  const outEls = [];
  /** @param {import("../contract/record.js").TypedVar} v @param {number} j @param {boolean} isInvar */
  const typed = (v, j, isInvar) => {
    const label = isInvar ? pane.inLabels[j] : null;
    const arg = isInvar ? pane.argNames[j] : null;
    const el = h(
      "span",
      { class: `st-var${label ? " st-var--res" : ""}` },
      h("span", { class: "st-name" }, v.name),
      h("span", { class: "st-type" }, `:${v.aval}`),
      arg ? h("span", { class: "st-argtag", title: `the argument ${arg}` }, arg) : null,
      label ? resTag(label) : null,
    );
    if (label) reveal(el, label.reveal);
    varEls.set(v.name, el);
    if (isInvar) invarEls.push(el);
    return el;
  };
  /** @type {import("./dom.js").Child[]} */
  const parts = ["{ lambda "];
  prog.constvars.forEach((v, j) => parts.push(j ? " " : "", typed(v, j, false)));
  parts.push("; ");
  prog.invars.forEach((v, j) => parts.push(j ? " " : "", typed(v, j, true)));
  parts.push(". let");
  const headLine = h("div", { class: "st-line st-line--head" }, parts);

  /** @type {HTMLLIElement[]} */
  const eqnEls = [];
  const lineAt = (/** @type {number} */ j) => {
    const evi = pane.eqnEvent[j];
    return (evi >= 0 ? model.events[evi]?.line : null) ?? pane.program.lines?.[j] ?? null;
  };
  let whySaid = false;
  for (let j = 0; j < n; j++) {
    const evi = pane.eqnEvent[j];
    const ev = evi >= 0 ? model.events[evi] : null;
    const line = lineAt(j);
    // badge and text never part: a long equation scrolls its pane instead of wrapping
    // the Element Timing API says when the stage's first equation is painted (bench_page.py)
    const timed = pane.index === 0 && j === 0 ? { elementtiming: "first-eqn" } : {};
    const main = h(
      "span",
      { class: "st-eqn-main" },
      badge(pane.role),
      h("code", { class: "st-eqn-text", ...timed }, prog.eqns[j]),
    );
    /** @type {Element[]} */
    const tags = [];
    // the value a known equation computed now (shown on the event's last known equation)
    if (
      ev &&
      pane.role === "known" &&
      ev.value &&
      (ev.known_eqns || []).at(-1) === j &&
      ev.value.some((v) => v != null)
    ) {
      const val = ev.value.map((v) => v ?? "·").join(", ");
      tags.push(
        h(
          "span",
          { class: "st-value", title: `computed now: ${val}` },
          h("span", { class: "st-value-eq", "aria-hidden": "true" }, "= "),
          val,
        ),
      );
    }
    if (ev && pane.role === "known") {
      for (const k of ev.produces) {
        const r = model.residuals[k];
        if (r.known_eqn !== j) continue;
        const t = resTag(r, "st-rtag--out", h("span", { "aria-hidden": "true" }, "→ "));
        tags.push(t);
        reveal(t, r.reveal);
      }
    }
    if (ev && pane.role === "unknown") {
      for (const k of ev.reads) {
        tags.push(resTag(model.residuals[k], "st-rtag--in", h("span", { class: "st-sr" }, "reads ")));
      }
    }
    // the source line it came from, shown (not only on hover) where a new line starts
    const anchor =
      line != null && (j === 0 || lineAt(j - 1) !== line) ? sourceAnchor(line, sourceOf(model, line)) : null;
    // JAX's checkpoint inserts reduce_precision: why, said once per pane
    const why = !whySaid && /= reduce_precision\[/.test(prog.eqns[j]);
    if (why) {
      whySaid = true;
      tags.push(h("span", { class: "st-why", "data-testid": "reduce-precision-why" }, REDUCE_PRECISION_WHY));
    }
    const sideText = ev ? SIDE_LABEL[pane.role] || pane.role : pane.role;
    const li = h(
      "li",
      {
        class: "st-eqn",
        "data-testid": "eqn",
        "data-side": ROLE_NAME[pane.role] || pane.role,
        "data-pane": pane.id,
        "data-eqn": j,
        "data-depth": "0",
        tabindex: "-1",
        "data-event": ev ? String(ev.i) : null,
        "data-line": line != null ? String(line) : null,
        "data-hue": line != null ? String(model.lineHue.get(line) ?? 0) : null,
        "aria-label":
          `${prog.eqns[j].replace(/\s+/g, " ")}${ev ? ` (${sideText}; traced step ${ev.i + 1}` : ""}` +
          `${ev?.value && pane.role === "known" ? `, value ${ev.value.join(", ")}` : ""}${ev ? ")" : ""}` +
          `${line != null ? `, from line ${line}` : ""}`,
      },
      anchor,
      main,
    );
    // a call (jit, remat2, scan, ...) opens in place on its own split
    if (ev?.call) tags.push(callToggle(li, ev.call, 1));
    if (tags.length) add(li, h("span", { class: "st-eqn-tags" }, tags));
    reveal(li, pane.eqnReveal[j]);
    eqnEls.push(li);
  }
  const body = h(
    "ol",
    { class: "st-body", "aria-label": `${pane.title}: equations` },
    n ? eqnEls : h("li", { class: "st-empty" }, "(no equations)"),
  );

  // footer: in (outs) }
  const outs = prog.outvars;
  /** @type {import("./dom.js").Child[]} */
  const footParts = ["in ("];
  outs.forEach((v, j) => {
    const label = pane.outLabels[j];
    const el = h(
      "span",
      { class: `st-var${label ? " st-var--res" : ""}` },
      h("span", { class: "st-name" }, v.name),
      label ? resTag(label) : null,
    );
    if (label) reveal(el, label.reveal);
    outEls.push(el);
    footParts.push(j ? ", " : "", el);
  });
  footParts.push(outs.length === 1 ? ",) }" : ") }");
  const footLine = h("div", { class: "st-line st-line--foot" }, footParts);

  // inner jaxprs shared by several equations are printed once, up front (JAX's printer)
  const prelude = prog.prelude
    ? h("div", { class: "st-line st-line--prelude" }, prog.prelude.replace(/\n$/, ""))
    : null;
  const code = h("div", { class: "st-code" }, prelude, headLine, body, footLine);
  const el = h(
    "section",
    {
      class: "st-pane",
      "data-role": pane.role,
      "data-pane": pane.id,
      "data-testid": pane.testid,
      "aria-labelledby": titleId,
    },
    head,
    code,
    textBox,
  );
  /** @type {PaneView} */
  const pv = { el, body, eqnEls, varEls, invarEls, outEls, headLine, footLine, count, pane, showStep };
  return pv;
}

/** The pane's program text copied, as the pane shows it now (its printed text's <pre>): a
 *  button the stage keeps for a new record copies the new program; if copying is not allowed,
 *  the text is opened and selected for the reader to copy.
 *  @param {HTMLElement} btn */
async function copyPane(btn) {
  const box = /** @type {HTMLDetailsElement | null} */ (btn.closest(".st-pane")?.querySelector(":scope > .st-text"));
  const pre = box?.querySelector("pre");
  const ok = await copyText(pre?.textContent ?? "");
  if (!ok && box && pre) {
    box.open = true;
    selectContents(pre);
  }
  btn.textContent = ok ? "Copied" : "Press Ctrl+C";
  btn.dataset.copied = ok ? "yes" : "no";
  const st = stateOf(btn);
  clearTimeout(st.copiedTimer);
  st.copiedTimer = setTimeout(() => {
    btn.textContent = "Copy";
    delete btn.dataset.copied;
  }, 1600);
}

/** The user's line `line` as an event of the record has it (null: none says).
 *  @param {Model} model @param {number} line */
function sourceOf(model, line) {
  const i = model.lineEvents.get(line)?.[0];
  return i != null ? (model.events[i].source ?? null) : null;
}

/** @param {number} shown @param {number} n */
function countText(shown, n) {
  const all = `${n} equation${n === 1 ? "" : "s"}`;
  return shown === n ? all : `${shown} of ${all}`;
}

/** The traced program in trace order: one chip per event. @param {Model} model @param {Reveal} reveal */
export function renderTrace(model, reveal) {
  // a scroller: focusable, so keyboard users can scroll it (one tab stop, however long)
  const list = h("ol", { class: "st-trace-list", "aria-label": "Traced equations in trace order", tabindex: "0" });
  const chips = model.events.map((ev) => {
    const li = h(
      "li",
      {
        class: "st-chip",
        "data-event": ev.i,
        "data-side": ev.side,
        "data-testid": "trace-eqn",
        title: `${ev.eqn}${ev.line != null ? `  (line ${ev.line})` : ""}`,
      },
      h("span", { class: "st-chip-n", "aria-hidden": "true" }, ev.i + 1),
      h("code", { class: "st-chip-text" }, ev.short || ev.eqn),
      ev.line != null ? h("span", { class: "st-chip-line" }, `line ${ev.line}`) : null,
      h(
        "span",
        { class: `st-badge st-badge--${badgeRole(ev.side)}`, "aria-hidden": "true" },
        SIDE_BADGE[ev.side] ?? "?",
      ),
      h("span", { class: "st-sr" }, `: ${SIDE_LABEL[ev.side] ?? ev.side}`),
    );
    reveal(li, ev.i + 1);
    add(list, li);
    return li;
  });
  const isJit = Boolean(modeOf(model.mode)?.staged);
  const el = h(
    "section",
    { class: "st-trace", "data-testid": "trace-strip" },
    h(
      "div",
      { class: "st-trace-head" },
      h("h3", null, "Traced program"),
      h(
        "span",
        { class: "st-muted" },
        isJit ? "in trace order: each operation is staged in turn" : "in trace order: each equation is judged in turn",
      ),
    ),
    list,
  );
  return { el, list, chips };
}

/** The badge (and its colour) of an event's side. @param {string} side */
export function badgeRole(side) {
  if (side === "known" || side === "known-dropped") return "known";
  if (side === "unknown" || side === "unknown-dropped") return "unknown";
  if (side === "both") return "both";
  return "staged";
}

// The mask explorer: every known/unknown mask of the function in the editor at once (the
// engine's "masks" mode, one request for all of them), one button per mask, sorted by the
// bytes of residuals the split hands over, so "which inputs should be known?" reads off the
// grid. Each cell counts what the page's mode gives for its mask (grad and checkpoint read a
// mask as argnums: modes.js), is named by its mask in the mode's words ("x known, y unknown:
// …"), and loads its mask into the stage in the same mode. A mode whose mask has no say (jit)
// has no explorer.
//
// It draws the engine session's answer (page/session.js asks once the main view is idle,
// and dispatches it as {type: "masks"}): it never calls the engine itself.

import { modeOf } from "../../modes.js";
import { isKnown, masksRequest, requestKey } from "../../state.js";
import { signatureOf } from "../../signatures.js";
import { formatBytes } from "../../stage/dom.js";

/** @import { MaskCell, MasksRecord, ErrorRecord } from "../../contract/record.js" */
/** @import { Doc, PageState } from "../update.js" */

/** @template {keyof HTMLElementTagNameMap} K @param {K} tag @param {string} [cls] @param {string} [text] */
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
/** "101": the page's mask of `params`, "1" known (an input the page has not marked is known). */
const currentMask = (/** @type {string[]} */ params, /** @type {Doc} */ doc) =>
  params.map((p) => (isKnown(doc, p) ? "1" : "0")).join("");
const plural = (/** @type {number} */ n, /** @type {string} */ word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Whether the explorer shows for a state (its function read, or the one read last): a source
 * the engine cannot read (a syntax error) keeps the view of the function read last, waiting for
 * a fix; a function of no inputs, or a mode whose mask has no say, has no explorer.
 * @param {PageState} s
 */
export function shows(s) {
  const sig = signatureOf(s.doc.code);
  return ((sig ?? s.signature)?.params ?? []).length > 0 && Boolean(modeOf(s.doc.mode)?.masks);
}

/** The request the engine session asks for the explorer of `s` (null: none to ask).
 *  @param {PageState} s */
export function wantedMasks(s) {
  return signatureOf(s.doc.code) && shows(s) ? masksRequest(s.doc) : null;
}

/**
 * @param {HTMLElement} root the explorer's section (data-testid="mask-explorer")
 * @param {{getState: () => PageState, dispatch: (change: object) => void}} deps
 * @returns {(state: PageState) => void} render: follows the editor's function and the session's
 *   answer, marks the current mask
 */
export function createMaskExplorer(root, { getState, dispatch }) {
  // index.html's own elements: always there
  const grid = /** @type {HTMLElement} */ (root.querySelector(".mask-grid"));
  const status = /** @type {HTMLElement} */ (root.querySelector(".mask-status"));
  /** @type {PageState["masks"]} the masks answer drawn (state.masks) */
  let drawn = null;
  /** @type {{params: string[], record: MasksRecord, mode: string} | null} drawn */
  let shown = null;
  let drawnFor = ""; // the mask marked current in the drawn grid

  /** No grid until the function above traces without an error. */
  function waitForFix() {
    shown = null;
    grid.replaceChildren();
    status.textContent = "Every mask of the function shows here once the function above traces without an error.";
    root.classList.remove("is-updating");
  }

  /** @param {MasksRecord | ErrorRecord | null} answer @param {Doc} doc */
  function take(answer, doc) {
    if (answer === null) {
      waitForFix();
      return;
    }
    if ("error" in answer) {
      shown = null;
      grid.replaceChildren();
      status.textContent = answer.error.message;
      root.classList.remove("is-updating");
      return;
    }
    shown = { params: answer.args.map((a) => a.name), record: answer, mode: doc.mode };
    draw(doc);
  }

  /** @param {string} mask */
  function load(mask) {
    const s = getState();
    if (!shown) return; // a cell is only there while its grid is shown
    const known = Object.assign(Object.create(null), s.doc.known);
    shown.params.forEach((p, i) => (known[p] = mask[i] === "1"));
    // the mode stays: a cell counts the page's mode for its mask
    dispatch({ type: "load", doc: { ...s.doc, known, step: null }, exampleId: s.exampleId, byUser: true, run: "now" });
  }

  /** @param {Doc} doc */
  function draw(doc) {
    root.classList.remove("is-updating");
    if (!shown) return;
    const { params, record } = shown;
    const current = currentMask(params, doc);
    drawnFor = current;
    const most = Math.max(1, ...record.masks.map((c) => c.residual_bytes));
    const cells = [...record.masks].sort(
      (a, b) => Number(Boolean(a.error)) - Number(Boolean(b.error)) || a.residual_bytes - b.residual_bytes,
    );
    const mode = shown.mode;
    status.textContent =
      `${plural(record.masks.length, "mask")} of ${record.fn}(${params.join(", ")}) as ${mode} splits them, ` +
      `fewest residual bytes first; traced ${record.traces === 1 ? "once" : `${record.traces} times`}. ` +
      `A mask loads into the stage, in ${mode} mode.`;
    const words = modeOf(mode)?.maskWords ?? ["unknown", "known"];
    grid.replaceChildren(...cells.map((c) => cell(c, params, c.mask === current, most, words)));
  }

  /** Another mask of the same function marked in the grid drawn. Drawing the grid again laid
   *  it out and painted it while the engine traced, and a clicked cell lost the focus. */
  /** @param {string} current */
  function mark(current) {
    drawnFor = current;
    for (const b of grid.children) b.setAttribute("aria-pressed", String(b.getAttribute("data-mask") === current));
  }

  /** @param {MaskCell} c @param {string[]} params @param {boolean} isCurrent @param {number} most
   *  @param {[string, string]} words */
  function cell(c, params, isCurrent, most, words) {
    const b = el("button", "mask-cell");
    b.type = "button";
    b.dataset.testid = "mask-cell";
    b.dataset.mask = c.mask;
    b.setAttribute("aria-pressed", String(isCurrent));
    // the mask in words, heard first (which inputs are known is otherwise only a border style);
    // the cell's name is its content, so it holds every visible word (WCAG 2.5.3)
    const mask = params.map((p, i) => `${p} ${words[Number(c.mask[i] === "1")]}`).join(", ");
    const names = el("span", "mask-names");
    names.setAttribute("aria-hidden", "true"); // said by the words above
    params.forEach((p, i) => names.append(el("span", c.mask[i] === "1" ? "tag tag-known" : "tag tag-unknown", p)));
    b.append(el("span", "mask-words", `${mask}: `), names);
    if (c.error) {
      b.classList.add("has-error");
      b.append(el("span", "mask-error", c.error.message));
    } else {
      const eq = el("span", "mask-eqns");
      eq.append(
        "eqns ",
        el("span", "mask-known", `${c.known_eqns} known`),
        " · ",
        el("span", "mask-unknown", `${c.unknown_eqns} unknown`),
      );
      const res = el("span", "mask-res", `${plural(c.residuals, "residual")} · ${formatBytes(c.residual_bytes)}`);
      const bar = el("span", "mask-bar");
      bar.style.setProperty("--share", String(c.residual_bytes / most));
      b.append(eq, " ", res, bar);
    }
    b.title = `Load this mask: ${mask}`;
    b.addEventListener("click", () => load(c.mask));
    return b;
  }

  return function render(s) {
    const sig = signatureOf(s.doc.code);
    if (sig === undefined) return; // drawn again once the engine has read the function
    root.hidden = !shows(s);
    if (root.hidden) return;
    if (sig === null) {
      drawn = null;
      waitForFix();
      return;
    }
    const masks = masksRequest(s.doc);
    if (!masks) return; // shows(s): the mode has an explorer, and so a masks request
    const key = requestKey(masks);
    if (s.masks?.key !== key) {
      root.classList.add("is-updating"); // the session asks for it
      return;
    }
    if (s.masks !== drawn) {
      drawn = s.masks;
      take(s.masks.answer, s.doc);
      return;
    }
    const current = shown && currentMask(shown.params, s.doc);
    if (current !== null && current !== drawnFor) mark(current);
  };
}

// The mask explorer: every known/unknown mask of the function in the editor at once (the
// engine's "masks" mode, one request for all of them), one button per mask, sorted by the
// bytes of residuals the split hands over, so "which inputs should be known?" reads off the
// grid. A button loads its mask into the stage (split mode: the mask is what a split is of).
//
// It asks the engine only once the main view is idle (window.explainer.settled()) and traced the
// function without an error, and takes only the answer to its latest request. Its call is a
// quiet one (engine-client.js): a flip or an edit interrupts it instead of waiting behind its
// 2**n splits, and it is asked again once the reader pauses.

import { askEngine } from "../../engine-answers.js";
import { MASKS_QUIET_MS, SECTION_CALL_TIMEOUT_MS } from "../../limits.js";
import { isKnown, masksRequest, requestKey } from "../../state.js";
import { signatureOf } from "../../signatures.js";
import { formatBytes } from "../../stage/dom.js";

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
/** "101": the page's mask of `params`, "1" known (an input the page has not marked is known). */
const currentMask = (params, doc) => params.map((p) => (isKnown(doc, p) ? "1" : "0")).join("");
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * @param {HTMLElement} root the explorer's section (data-testid="mask-explorer")
 * @param {{engine: any, settled: () => Promise<any>, getState: () => any,
 *          dispatch: (change: object) => void, cached: (key: string) => any}} deps
 *   cached: an answer the page has already (the build precomputed the opening state's)
 * @returns {(state: any) => void} render: follows the editor's function, marks the current mask
 */
export function createMaskExplorer(root, { engine, settled, getState, dispatch, cached }) {
  const grid = root.querySelector(".mask-grid");
  const status = root.querySelector(".mask-status");
  let wanted = ""; // the request key the grid shows or waits for
  let shown = null; // {params, record} drawn
  let drawnFor = ""; // the mask marked current in the drawn grid

  /** Once the main view has drawn its answer (render() runs inside the page's dispatch, before
   *  the change schedules the main run: the dispatch ends first, so that settled() waits for
   *  that run too). */
  async function afterMainRun() {
    await Promise.resolve();
    try {
      await settled();
    } catch {
      /* the page reports its own errors */
    }
  }

  /** No grid until the function above traces without an error. */
  function waitForFix() {
    wanted = "";
    shown = null;
    grid.replaceChildren();
    status.textContent = "Every mask of the function shows here once the function above traces without an error.";
    root.classList.remove("is-updating");
  }

  async function ask(request, key) {
    await afterMainRun();
    if (key !== wanted) return;
    if (getState().error) {
      // the main view could not trace it (an error, a runaway): 2**n splits would fail the same
      // way, or each run into the time limit
      waitForFix();
      return;
    }
    let answer = cached(key);
    while (!answer) {
      await new Promise((resolve) => setTimeout(resolve, MASKS_QUIET_MS));
      if (key !== wanted) return; // the reader edited on: this grid is dropped unasked
      const asked = await askEngine(engine, request, { timeoutMs: SECTION_CALL_TIMEOUT_MS, quiet: true });
      // made way for a call of the reader's (the same function, another mask): asked again
      if ("error" in asked.answer && asked.answer.error.type === "cancelled") await afterMainRun();
      else answer = asked.answer;
    }
    if (key !== wanted) return;
    if ("error" in answer) {
      shown = null;
      grid.replaceChildren();
      status.textContent = answer.error.message;
      root.classList.remove("is-updating");
      return;
    }
    const record = /** @type {import("../../contract/record.js").MasksRecord} */ (answer);
    shown = { params: record.args.map((a) => a.name), record };
    draw(getState().doc);
  }

  function load(mask) {
    const s = getState();
    const known = Object.assign(Object.create(null), s.doc.known);
    shown.params.forEach((p, i) => (known[p] = mask[i] === "1"));
    const doc = { ...s.doc, known, mode: "split", step: null };
    // still the example only if the mode stays (a mask is part of an example's opening state)
    const exampleId = s.doc.mode === "split" ? s.exampleId : "";
    dispatch({ type: "load", doc, exampleId, byUser: true, run: "now" });
  }

  function draw(doc) {
    root.classList.remove("is-updating");
    const { params, record } = shown;
    const current = currentMask(params, doc);
    drawnFor = current;
    const most = Math.max(1, ...record.masks.map((c) => c.residual_bytes));
    const cells = [...record.masks].sort(
      (a, b) => Number(Boolean(a.error)) - Number(Boolean(b.error)) || a.residual_bytes - b.residual_bytes,
    );
    status.textContent =
      `${plural(record.masks.length, "mask")} of ${record.fn}(${params.join(", ")}), fewest residual bytes first; ` +
      `traced ${record.traces === 1 ? "once" : `${record.traces} times`}. A mask loads into the stage.`;
    grid.replaceChildren(...cells.map((c) => cell(c, params, c.mask === current, most)));
  }

  /** Another mask of the same function marked in the grid drawn. Drawing the grid again laid
   *  it out and painted it while the engine traced, and a clicked cell lost the focus. */
  function mark(current) {
    drawnFor = current;
    for (const b of grid.children) b.setAttribute("aria-pressed", String(b.getAttribute("data-mask") === current));
  }

  function cell(c, params, isCurrent, most) {
    const b = el("button", "mask-cell");
    b.type = "button";
    b.dataset.testid = "mask-cell";
    b.dataset.mask = c.mask;
    b.setAttribute("aria-pressed", String(isCurrent));
    const names = el("span", "mask-names");
    params.forEach((p, i) => names.append(el("span", c.mask[i] === "1" ? "tag tag-known" : "tag tag-unknown", p)));
    b.append(names);
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
      b.append(eq, res, bar);
    }
    const known = params.filter((_, i) => c.mask[i] === "1");
    b.title = `Load this mask: ${known.length ? known.join(", ") : "nothing"} known`;
    b.addEventListener("click", () => load(c.mask));
    return b;
  }

  return function render(s) {
    const sig = signatureOf(s.doc.code);
    if (sig === undefined) return; // drawn again once the engine has read the function
    // a source the engine cannot read (a syntax error) keeps the view of the function read
    // last, waiting for a fix
    root.hidden = ((sig ?? s.signature)?.params ?? []).length === 0;
    if (root.hidden) return;
    if (sig === null) {
      waitForFix();
      return;
    }
    const request = masksRequest(s.doc);
    const key = requestKey(request);
    if (key === wanted) {
      const current = shown && currentMask(shown.params, s.doc);
      if (shown && current !== drawnFor) mark(current);
      return;
    }
    wanted = key;
    root.classList.add("is-updating");
    ask(request, key);
  };
}

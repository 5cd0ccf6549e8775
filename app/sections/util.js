// Small helpers shared by the explainer's section demos (no framework; text nodes only, never HTML).

/** @import { EngineClient } from "../engine-types.js" */
/** @import { ErrorRecord, SplitRecord } from "../contract/record.js" */
/**
 * A child of h(): a node, text (a number, made text), nothing (null, false), or lists of them.
 * @typedef {Node | string | number | boolean | null | undefined} Leaf
 * @typedef {Leaf | ChildList} Child
 * @typedef {Array<Child>} ChildList
 */

/** h("div", {class: "x", "data-testid": "y"}, child, "text", [more])
 *  @template {keyof HTMLElementTagNameMap} K
 *  @param {K} tag @param {Record<string, unknown> | null} [attrs]
 *  @param {...Child} children
 *  @returns {HTMLElementTagNameMap[K]} */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.className = String(v);
    else if (k === "text") el.textContent = String(v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function")
      el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  // every list flattened: its leaves (typed as unknown[] first: a flat() of the recursive type is too deep for tsc)
  for (const c of /** @type {Leaf[]} */ (/** @type {unknown[]} */ (children).flat(Infinity))) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** Text with `code` spans, as the engine writes narration. @param {string | null | undefined} text */
export function rich(text) {
  const frag = document.createDocumentFragment();
  String(text ?? "")
    .split("`")
    .forEach((part, i) => {
      if (part) frag.append(i % 2 ? h("code", null, part) : part);
    });
  return frag;
}

/** @param {number | null | undefined} n */
export function formatBytes(n) {
  if (n == null) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

/**
 * A program as JAX prints it, with every variable name a span that can be lit (the engine
 * says where the printer wrote each name: `program.spans`).
 * @param {import("../contract/record.js").Program | null} program
 * @param {{label?: string, testid?: string, cls?: string}} [options]
 */
export function programPre(program, { label, testid, cls = "" } = {}) {
  const pre = h("pre", { class: `x-program ${cls}`.trim(), "data-testid": testid, tabindex: "0", "aria-label": label });
  if (!program) return pre;
  const { text, spans } = program;
  let last = 0;
  for (const { start, end, name } of spans) {
    pre.append(text.slice(last, start));
    pre.append(h("span", { class: "x-var", dataset: { var: name } }, name));
    last = end;
  }
  pre.append(text.slice(last));
  return pre;
}

/** Light every span of variable `name` inside `root` (null: none).
 *  @param {ParentNode} root @param {string | null} name */
export function lightVar(root, name) {
  for (const el of root.querySelectorAll(".x-var.is-lit")) el.classList.remove("is-lit");
  if (!name) return;
  // programPre's spans
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".x-var"))) {
    if (el.dataset.var === name) el.classList.add("is-lit");
  }
}

/** The placeholder a demo shows while it has nothing to draw.
 *  @param {Pick<EngineClient, "state" | "info">} engine @param {string} [what] */
export function waitingNote(engine, what = "This demo") {
  if (engine.state === "error") {
    return h(
      "p",
      { class: "demo-loading is-error", role: "note" },
      `${what} needs the Python engine, which could not start in this browser (${engine.info?.error?.message ?? "no detail"}).`,
    );
  }
  const stage = engine.info?.stage ? ` (${engine.info.stage})` : "";
  return h(
    "p",
    { class: "demo-loading", "data-testid": "demo-waiting" },
    engine.state === "loading"
      ? `Waiting for the Python engine to start${stage}; ${what.toLowerCase()} runs as soon as it is ready.`
      : `Running the engine…`,
  );
}

/** @param {ErrorRecord | {lineno?: number | null, message?: string} | null | undefined} err an error answer, or
 *  its error (a failed call's) */
export function errorNote(err) {
  /** @type {{lineno?: number | null, message?: string}} */
  const e = err == null ? {} : "error" in err ? err.error : err;
  return h(
    "p",
    { class: "x-error", role: "alert", "data-testid": "demo-error" },
    h("strong", null, e.lineno ? `Line ${e.lineno}: ` : "Error: "),
    String(e.message ?? "the engine failed"),
  );
}

/**
 * Start a demo's frame: empty `el`, then its error (if any), or the waiting note while it has
 * nothing to draw. Returns whether the demo has something to draw.
 * @param {Element} el
 * @param {{error: Parameters<typeof errorNote>[0], ready: boolean, engine: Pick<EngineClient, "state" | "info">}} what
 */
export function drawFrame(el, { error, ready, engine }) {
  el.replaceChildren();
  if (error) el.append(errorNote(error));
  else if (!ready) el.append(waitingNote(engine));
  return ready;
}

/** `f(x ✓ known, y ? unknown)`: the record's function and which inputs are known.
 *  @param {Pick<SplitRecord, "fn" | "args">} record */
export function argsLine(record) {
  return h(
    "p",
    { class: "x-args" },
    `${record.fn}(`,
    record.args.map((a, i) => [
      i ? ", " : "",
      h(
        "span",
        { class: `x-chip x-chip-${a.known ? "known" : "unknown"}` },
        h("code", null, a.name),
        a.known ? " ✓ known" : " ? unknown",
      ),
    ]),
    ")",
  );
}

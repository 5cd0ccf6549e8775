// Small helpers shared by the explainer's section demos (no framework; text nodes only, never HTML).

/** h("div", {class: "x", "data-testid": "y"}, child, "text", [more]) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** Text with `code` spans, as the engine writes narration. */
export function rich(text) {
  const frag = document.createDocumentFragment();
  String(text ?? "")
    .split("`")
    .forEach((part, i) => {
      if (part) frag.append(i % 2 ? h("code", null, part) : part);
    });
  return frag;
}

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

/** Light every span of variable `name` inside `root` (null: none). */
export function lightVar(root, name) {
  for (const el of root.querySelectorAll(".x-var.is-lit")) el.classList.remove("is-lit");
  if (!name) return;
  for (const el of root.querySelectorAll(".x-var")) {
    if (el.dataset.var === name) el.classList.add("is-lit");
  }
}

/** The placeholder a demo shows while it has nothing to draw. */
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

export function errorNote(err) {
  const e = err?.error ?? err ?? {};
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
 * @param {{error: any, ready: boolean, engine: any}} what
 */
export function drawFrame(el, { error, ready, engine }) {
  el.replaceChildren();
  if (error) el.append(errorNote(error));
  else if (!ready) el.append(waitingNote(engine));
  return ready;
}

/** `f(x ✓ known, y ? unknown)`: the record's function and which inputs are known. */
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

// Small helpers shared by the explainer's section demos (no framework, no innerHTML).

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
  String(text ?? "").split("`").forEach((part, i) => {
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

/** A program as JAX prints it, with every variable name a span that can be lit. */
export function programPre(text, { label, testid, cls = "" } = {}) {
  const pre = h("pre", { class: `x-program ${cls}`.trim(), "data-testid": testid, tabindex: "0",
    "aria-label": label });
  // Variable names: a binder `b:` or an operand; params and primitive names are left alone.
  const re = /(\b[a-z]{1,3}\b)(?=:)|(?<=[ (,])(\b[a-z]{1,3}\b)(?=[ ),\n]|$)/g;
  let last = 0;
  let m;
  const src = String(text ?? "");
  while ((m = re.exec(src)) !== null) {
    const name = m[1] ?? m[2];
    if (/^(let|in|jit|abs|add|mul|sub|div|neg|sin|cos|exp|log|max|min|pow|tan|dot|max|sum|eq|ne|lt|gt|le|ge|and|or|not|at)$/.test(name)
      && m[1] === undefined) continue;
    pre.append(src.slice(last, m.index));
    pre.append(h("span", { class: "x-var", dataset: { var: name } }, name));
    last = m.index + name.length;
  }
  pre.append(src.slice(last));
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

/** `f32[4,3]` -> {dtype: "f32", dims: [4, 3]} */
export function parseAval(aval) {
  const m = /^([a-z]+\d*)\[([\d,\s]*)\]$/.exec(String(aval ?? ""));
  if (!m) return null;
  return { dtype: m[1], dims: m[2].trim() ? m[2].split(",").map((d) => Number(d.trim())) : [] };
}

/** The placeholder a demo shows while it has nothing to draw. */
export function waitingNote(engine, what = "This demo") {
  if (engine.state === "error") {
    return h("p", { class: "demo-loading is-error", role: "note" },
      `${what} needs the Python engine, which failed to start: ${engine.info?.error?.message ?? "unknown error"}.`);
  }
  const stage = engine.info?.stage ? ` (${engine.info.stage})` : "";
  return h("p", { class: "demo-loading", "data-testid": "demo-waiting" },
    engine.state === "loading"
      ? `Waiting for the Python engine to start${stage}; ${what.toLowerCase()} runs as soon as it is ready.`
      : `Running the engine…`);
}

export function errorNote(err) {
  const e = err?.error ?? err ?? {};
  return h("p", { class: "x-error", role: "alert", "data-testid": "demo-error" },
    h("strong", null, e.lineno ? `Line ${e.lineno}: ` : "Error: "), String(e.message ?? "the engine failed"));
}

/** Program text of a record's program dict (or null). */
export const textOf = (p) => (p && typeof p.text === "string" ? p.text : null);

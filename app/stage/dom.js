// Tiny DOM helpers for the stage (no framework; record data becomes text nodes, never HTML).

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.setAttribute("class", v);
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** h("div", {class: "x", "data-testid": "y"}, child, "text", [more]) */
export function h(tag, attrs, ...children) {
  return append(apply(document.createElement(tag), attrs), children);
}

export function s(tag, attrs, ...children) {
  return append(apply(document.createElementNS(SVG_NS, tag), attrs), children);
}

// A closed <details> is not drawn, and few readers open one, yet its body was a third of the
// elements each new split built (grad-mlp: the table view, 225 of 828). So its body is built
// when it first opens: on the summary's click, which comes before the details opens (no empty
// frame), or on its toggle event when it is opened some other way.
const fills = new WeakMap();

/** A <details> with `summary` whose body, `build()`'s nodes, is made when it first opens. */
export function lazyDetails(attrs, summary, build) {
  const el = h("details", attrs, h("summary", null, summary));
  const fill = () => {
    if (!fills.delete(el)) return;
    append(el, [build()]);
  };
  fills.set(el, fill);
  el.addEventListener("click", (e) => {
    if (/** @type {Element} */ (e.target).closest?.("summary")?.parentElement === el) fill();
  });
  el.addEventListener("toggle", () => {
    if (el.open) fill();
  });
  return el;
}

/** Open a details (lazyDetails' or not), its body there in the same frame. */
export function openDetails(el) {
  fills.get(el)?.();
  el.open = true;
}

/** Text with `code` spans, as the engine writes narration. */
export function richText(text) {
  const frag = document.createDocumentFragment();
  String(text ?? "")
    .split("`")
    .forEach((part, i) => {
      if (!part) return;
      frag.append(i % 2 ? h("code", null, part) : part);
    });
  return frag;
}

export function stripTicks(text) {
  return String(text ?? "").replaceAll("`", "");
}

/** Bytes as JAX users read them: "4 B", "1.5 KiB". */
export function formatBytes(n) {
  if (n == null) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Is focus somewhere the user types (editor, form field)? Then stage keys stay out. */
export function isTypingTarget(el) {
  if (!el || el === document.body) return false;
  if (el.isContentEditable || el.closest?.("[contenteditable]:not([contenteditable=false])")) {
    return true;
  }
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

const ARROW_WIDGETS = [
  "tablist",
  "tab",
  "radiogroup",
  "radio",
  "menu",
  "menubar",
  "menuitem",
  "listbox",
  "option",
  "grid",
  "tree",
  "treegrid",
  "slider",
  "spinbutton",
  "toolbar",
  "combobox",
  "scrollbar",
]
  .map((r) => `[role="${r}"]`)
  .join(",");

/** Widgets that use the arrow keys (and Home/End) themselves, or opted out of stage keys. */
export function ownsArrowKeys(el) {
  if (!el || el === document.body) return false;
  return !!el.closest?.(`${ARROW_WIDGETS},[data-stage-keys="off"]`);
}

/** Elements where Space already means "activate": let the browser do it. */
export function isActivatable(el) {
  if (!el || el === document.body) return false;
  const tag = el.tagName;
  return (
    tag === "BUTTON" ||
    tag === "A" ||
    tag === "SUMMARY" ||
    ["button", "link", "checkbox", "switch", "menuitem", "tab", "option"].includes(el.getAttribute?.("role"))
  );
}

export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the textarea fallback
  }
  const ta = h("textarea", { readonly: true, "aria-hidden": "true", class: "st-offscreen" });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** Select the contents of an element (the last resort when copying is not allowed). */
export function selectContents(el) {
  const range = document.createRange();
  range.selectNodeContents(el);
  const sel = getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
}

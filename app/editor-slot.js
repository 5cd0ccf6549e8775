// The code editor's place on the page. CodeMirror (app/editor.js and its 470 KB bundle) is not
// in the page's first module graph: evaluating it there held a 2-core machine's main thread
// for 70 ms before anything could answer a tap. Until it is mounted, the slot shows the code as plain
// numbered lines (what the build drew for the first frame, redrawn when the page opens other
// code) and keeps what the page asked of the editor (the code, the error, the linked and the
// step lines); CodeMirror then mounts with all of it, in tasks of its own: when the page asks
// (after its first frame), or at once when the reader presses on the code or skips to it.
import { yieldToMain } from "./main-thread.js";

// CodeMirror's parts (app/vendor/cm6-<part>.js, written by sitebuild/frontend.py's CM6_PARTS),
// each built on the ones before it: one evaluated per task, then app/editor.js, whose imports
// are all there by then.
const CODEMIRROR_PARTS = ["state", "view", "language", "python", "setup"];

/** Draw `code` into `parent` as the build's first frame does: one numbered row per line.
 * @param {Element} parent
 * @param {string} code */
export function drawPlainCode(parent, code) {
  const pre = document.createElement("pre");
  pre.className = "editor-prerender";
  pre.setAttribute("aria-hidden", "true");
  // a last "\n" opens a line, as in CodeMirror's gutter
  for (const line of code.split("\n")) {
    const row = document.createElement("span");
    row.textContent = `${line}\n`;
    pre.append(row);
  }
  parent.replaceChildren(pre);
}

/**
 * The editor's API (app/editor.js) before and after CodeMirror is there, plus mount().
 * @param {HTMLElement} parent the [data-testid=editor] element, holding the build's code
 * @param {Parameters<typeof import("./editor.js").createEditor>[1] & {onFail?: (e: unknown) => void}} options
 *   onFail: CodeMirror could not be loaded (the plain code stays)
 */
export function createEditorSlot(parent, options) {
  const { onFail, ...editorOptions } = options;
  let doc = editorOptions.doc ?? "";
  /** @type {Awaited<ReturnType<typeof import("./editor.js").createEditor>> | null} */
  let editor = null;
  /** @type {Promise<any> | null} */
  let mounting = null;
  // the latest of each mark asked for before the mount
  let error = null;
  let linked = null;
  let step = { line: null, hue: null };
  let wantFocus = false;
  let pointer = null; // where the reader pressed before CodeMirror was there

  const shown = [...parent.querySelectorAll(".editor-prerender > span")].map((row) => row.textContent.slice(0, -1));
  if (shown.join("\n") !== doc) drawPlainCode(parent, doc);

  async function load() {
    const urls = CODEMIRROR_PARTS.map((part) => new URL(`./vendor/cm6-${part}.js`, import.meta.url).href);
    // fetched (and compiled) all at once, evaluated one by one
    for (const href of urls) {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.href = href;
      link.dataset.afterStart = ""; // its failure is onFail's to report, not app/boot-guard.js's
      document.head.append(link);
    }
    for (const href of urls) {
      await import(href);
      await yieldToMain();
    }
    const { createEditor } = await import("./editor.js");
    parent.removeEventListener("pointerdown", pressed);
    editor = await createEditor(parent, { ...editorOptions, doc });
    editor.setDoc(doc); // the page's, if it changed while CodeMirror was being made
    if (error) editor.setError(error);
    if (linked !== null) editor.linkLine(linked);
    if (step.line !== null) editor.stepLine(step.line, step.hue);
    if (wantFocus) {
      editor.focus();
      const at = pointer && editor.view.posAtCoords(pointer);
      if (at !== null && at !== undefined) editor.view.dispatch({ selection: { anchor: at } });
    }
    pointer = null;
    return editor;
  }
  function mount() {
    mounting ??= load().catch((e) => {
      onFail?.(e);
      throw e;
    });
    return mounting;
  }
  function pressed(/** @type {PointerEvent} */ e) {
    wantFocus = true;
    pointer = { x: e.clientX, y: e.clientY };
    mount().catch(() => {});
  }
  parent.addEventListener("pointerdown", pressed);

  return {
    /** Load CodeMirror and put it in the slot (once; later calls get the same promise). */
    mount,
    setDoc(text) {
      if (editor) editor.setDoc(text);
      else if (text !== doc) drawPlainCode(parent, text);
      doc = text;
    },
    setError(err) {
      if (editor) editor.setError(err);
      else error = err;
    },
    linkLine(line) {
      if (editor) editor.linkLine(line);
      else linked = Number.isInteger(line) ? line : null;
    },
    stepLine(line, hue = null) {
      if (editor) editor.stepLine(line, hue);
      else step = { line: Number.isInteger(line) ? line : null, hue };
    },
    hasFocus: () => Boolean(editor?.view.hasFocus),
    focus() {
      if (editor) editor.focus();
      else {
        wantFocus = true;
        mount().catch(() => {});
      }
    },
  };
}

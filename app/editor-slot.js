// The code editor's place on the page. CodeMirror (app/editor.js and its 470 KB bundle) loads
// when the reader reaches for the code: a pointer over it or pressed on it, focus on it (Tab, the
// skip link). Its parts and its first view held a 2-core machine's main thread for some 370 ms
// (1.5 s with the CPU 4x slower), which a reader who only reads the split never needs. Until
// then the slot shows the code as plain numbered lines, coloured as the editor colours them
// (app/plain-code.js: what the build drew for the first frame, redrawn when the page opens
// other code), with the marks the page asks for (the error's line, the linked and the step
// lines); CodeMirror then mounts with all of it, in tasks of its own.
import { drawPlainCode, markPlainLines, plainCodeText } from "./plain-code.js";
import { yieldToMain } from "./main-thread.js";

// CodeMirror's parts (app/vendor/cm6-<part>.js, written by sitebuild/frontend.py's CM6_PARTS),
// each built on the ones before it: one evaluated per task, then app/editor.js, whose imports
// are all there by then.
const CODEMIRROR_PARTS = ["state", "view", "language", "python", "setup"];

// what says the reader reached for the code
const INTENT_EVENTS = ["pointerover", "pointerdown", "focusin"];

/**
 * The editor's API (app/editor.js), before CodeMirror is there and after.
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
  /** @type {import("./editor.js").LineError | null} */
  let error = null;
  /** @type {number | null} */
  let linked = null;
  /** @type {{line: number | null, hue: number | null}} */
  let step = { line: null, hue: null };
  let wantFocus = false;
  /** @type {Element | null} */
  let focusFrom = null; // where focus was when it was asked for
  /** @type {{x: number, y: number} | null} */
  let pointer = null; // where the reader pressed before CodeMirror was there
  let typed = ""; // what the reader typed on the plain code before CodeMirror was there

  const showMarks = () => {
    const errorLine = error?.line;
    const at = typeof errorLine === "number" && Number.isInteger(errorLine) ? errorLine : null;
    markPlainLines(parent, { error: at, linked, step });
  };
  if (plainCodeText(parent) !== doc) drawPlainCode(parent, doc);
  showMarks();

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
    for (const type of INTENT_EVENTS) parent.removeEventListener(type, reached);
    parent.removeEventListener("keydown", keptKey);
    editor = await createEditor(parent, { ...editorOptions, doc });
    // focus goes to the editor only if the reader left it where they asked for it (the plain
    // code they focused is gone: focus fell to the body): a reader who tabbed on past the code
    // while CodeMirror loaded keeps their place
    const active = document.activeElement;
    const focusIt = wantFocus && (active === document.body || parent.contains(active) || active === focusFrom);
    editor.setDoc(doc); // the page's, if it changed while CodeMirror was being made
    if (error) editor.setError(error);
    if (linked !== null) editor.linkLine(linked);
    if (step.line !== null) editor.stepLine(step.line, step.hue);
    const at = pointer && editor.view.posAtCoords(pointer);
    if (at !== null && at !== undefined) editor.view.dispatch({ selection: { anchor: at } });
    // an edit like any other: the page hears of it (onChange)
    if (typed) editor.view.dispatch(editor.view.state.replaceSelection(typed));
    if (focusIt) editor.focus();
    pointer = null;
    typed = "";
    return editor;
  }
  function mount() {
    mounting ??= load().catch((e) => {
      onFail?.(e);
      throw e;
    });
    return mounting;
  }
  /** The reader reached for the code: a press or focus also puts the caret there. */
  function reached(/** @type {Event} */ e) {
    if (e.type === "pointerdown") {
      const { clientX: x, clientY: y } = /** @type {PointerEvent} */ (e);
      pointer = { x, y };
    }
    if (e.type !== "pointerover" && !wantFocus) {
      wantFocus = true;
      focusFrom = document.activeElement;
    }
    mount().catch(() => {});
  }
  for (const type of INTENT_EVENTS) parent.addEventListener(type, reached);
  /** A key typed on the plain code while CodeMirror loads: text, Enter and Backspace are kept
   *  and typed into it once it is there (shortcuts and Tab keep their own meaning). */
  function keptKey(/** @type {KeyboardEvent} */ e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key.length === 1) typed += e.key;
    else if (e.key === "Enter") typed += "\n";
    else if (e.key === "Backspace") typed = typed.slice(0, -1);
    else return;
    e.preventDefault();
  }
  parent.addEventListener("keydown", keptKey);

  return {
    /** @param {string} text */
    setDoc(text) {
      if (editor) editor.setDoc(text);
      else if (text !== doc) {
        drawPlainCode(parent, text);
        showMarks();
      }
      doc = text;
    },
    /** @param {import("./editor.js").LineError | null} err */
    setError(err) {
      if (editor) editor.setError(err);
      else {
        error = err;
        showMarks();
      }
    },
    /** @param {number | null} line */
    linkLine(line) {
      if (editor) editor.linkLine(line);
      else {
        linked = Number.isInteger(line) ? line : null;
        showMarks();
      }
    },
    /** @param {number | null} line @param {number | null} [hue] */
    stepLine(line, hue = null) {
      if (editor) editor.stepLine(line, hue);
      else {
        step = { line: Number.isInteger(line) ? line : null, hue: Number.isInteger(hue) ? hue : null };
        showMarks();
      }
    },
    hasFocus: () => Boolean(editor?.view.hasFocus),
    focus() {
      if (editor) editor.focus();
      else {
        wantFocus = true;
        focusFrom = document.activeElement;
        mount().catch(() => {});
      }
    },
  };
}

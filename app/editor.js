// The code editor: CodeMirror 6 with Python highlighting, an error marker (lint diagnostic plus
// a line decoration) and a "linked" line the stage points at. Tab is deliberately left unbound
// (WCAG "no keyboard trap"): Tab moves focus out; Python indentation is handled on Enter.
import {
  EditorView,
  EditorState,
  StateField,
  StateEffect,
  Decoration,
  basicSetup,
  python,
  setDiagnostics,
  lintGutter,
  HighlightStyle,
  syntaxHighlighting,
  tags,
  keymap,
  Prec,
} from "./vendor/cm6.js";
import { yieldToMain } from "./main-thread.js";

// CodeMirror's values are untyped for tsc (types/app/vendor/cm6.d.ts: the bundle is built)
/** @typedef {any} CmEffectType @typedef {any} CmTransaction @typedef {any} CmView @typedef {any} CmDecoration */
/** @typedef {any} CmUpdate */
/** @typedef {{line: number | null, hue: number | null, set: CmDecoration}} LineMark */
/** @typedef {{line?: number | null, message: string}} LineError an engine error's line, if any */

const setErrorLine = StateEffect.define();
const setLinkedLine = StateEffect.define();
const setStepLine = StateEffect.define();

/** A field marking one line (or none): the effect's value is {line, hue?} or a line number.
 *  @param {CmEffectType} effect @param {(hue: number | null) => CmDecoration} decoOf */
function lineField(effect, decoOf) {
  return StateField.define({
    create: () => ({ line: null, hue: null, set: Decoration.none }),
    /** @param {LineMark} value @param {CmTransaction} tr @returns {LineMark} */
    update(value, tr) {
      let { line, hue } = value;
      for (const e of tr.effects) {
        if (!e.is(effect)) continue;
        line = typeof e.value === "object" && e.value ? e.value.line : e.value;
        hue = typeof e.value === "object" && e.value ? (e.value.hue ?? null) : null;
      }
      if (line === value.line && hue === value.hue && !tr.docChanged) return value;
      if (line === null || line < 1 || line > tr.state.doc.lines) return { line, hue, set: Decoration.none };
      const from = tr.state.doc.line(line).from;
      return { line, hue, set: Decoration.set([decoOf(hue).range(from)]) };
    },
    provide: (/** @type {any} */ f) => EditorView.decorations.from(f, (/** @type {LineMark} */ v) => v.set),
  });
}

const errorLineField = lineField(setErrorLine, () => Decoration.line({ class: "cm-error-line" }));
const linkedLineField = lineField(setLinkedLine, () => Decoration.line({ class: "cm-linked-line" }));
// the source line of the stage's step, in that line's colour (the one its equations wear)
const stepLineField = lineField(setStepLine, (hue) =>
  Decoration.line({
    class: `cm-step-line cm-hue-${hue ?? 0}`,
    attributes: { "data-testid": "source-line-active" },
  }),
);

// Colours come from static/style.css (custom properties), so both themes are readable.
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword], color: "var(--tok-keyword)" },
  {
    tag: [tags.function(tags.definition(tags.variableName)), tags.function(tags.variableName)],
    color: "var(--tok-function)",
  },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--tok-string)" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--tok-number)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--muted)", fontStyle: "italic" },
  { tag: [tags.operator, tags.punctuation], color: "var(--fg)" },
  { tag: [tags.propertyName], color: "var(--tok-property)" },
  { tag: [tags.self, tags.atom, tags.meta], color: "var(--tok-number)" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--fg)", backgroundColor: "var(--panel)", fontSize: "0.92rem" },
  ".cm-content": { fontFamily: "var(--font-mono)", caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--fg)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--selection) !important",
  },
  ".cm-scroller": { fontFamily: "var(--font-mono)", lineHeight: "1.5" },
});

/**
 * createEditor(parent, {doc, onChange(text), onCursorLine(n), onHoverLine(n|null), onRun()})
 *   -> Promise of {view, setDoc(text), setError({line, message}|null), linkLine(n|null),
 *       stepLine(n|null, hue), focus()}
 * @param {Element} parent
 * @param {{doc?: string, onChange?: (text: string) => void, onCursorLine?: (line: number) => void,
 *          onHoverLine?: (line: number | null) => void, onRun?: () => void,
 *          readOnly?: boolean}} [options] readOnly: the read-only embed (app/embed.js)
 */
export async function createEditor(
  parent,
  { doc = "", onChange, onCursorLine, onHoverLine, onRun, readOnly = false } = {},
) {
  /** @type {number | null} */
  let lastCursorLine = null;
  let silent = false; // setDoc() from the page is not a user edit
  let shownError = { doc: null, key: "[null,null]" }; // what setError marked last

  // the state (Python's first parse included) and the view in two tasks: the first of each
  // runs much of CodeMirror's code for the first time: 40 ms and 70-130 ms with the CPU 4x slower
  const state = EditorState.create({
    doc,
    extensions: [
      basicSetup,
      python(),
      syntaxHighlighting(highlight),
      theme,
      lintGutter(),
      EditorState.readOnly.of(readOnly),
      EditorView.editable.of(!readOnly),
      errorLineField,
      linkedLineField,
      stepLineField,
      EditorView.contentAttributes.of({
        "aria-label": "Python source of the traced function (Tab moves focus out of the editor)",
      }),
      Prec.highest(
        keymap.of([
          {
            key: "Mod-Enter",
            run: () => {
              onRun?.();
              return true;
            },
          },
        ]),
      ),
      EditorView.updateListener.of((/** @type {CmUpdate} */ u) => {
        if (u.docChanged && !silent) onChange?.(u.state.doc.toString());
        if (u.selectionSet || u.docChanged) {
          const line = u.state.doc.lineAt(u.state.selection.main.head).number;
          if (line !== lastCursorLine && u.view.hasFocus) {
            lastCursorLine = line;
            onCursorLine?.(line);
          }
        }
      }),
      EditorView.domEventHandlers({
        /** @param {FocusEvent} _e @param {CmView} v */
        focus(_e, v) {
          const line = v.state.doc.lineAt(v.state.selection.main.head).number;
          lastCursorLine = line;
          onCursorLine?.(line);
        },
      }),
    ],
  });
  await yieldToMain();
  parent.replaceChildren(); // the plain code shown until now (app/editor-slot.js)
  const view = new EditorView({ parent, state });

  // hovered line -> the page (throttled to one per frame)
  let hoverFrame = 0;
  /** @type {number | null} */
  let hoverLine = null;
  view.dom.addEventListener("mousemove", (/** @type {MouseEvent} */ e) => {
    if (hoverFrame) return;
    hoverFrame = requestAnimationFrame(() => {
      hoverFrame = 0;
      const pos = view.posAtCoords({ x: e.clientX, y: e.clientY });
      const line = pos === null ? null : view.state.doc.lineAt(pos).number;
      if (line !== hoverLine) {
        hoverLine = line;
        onHoverLine?.(line);
      }
    });
  });
  view.dom.addEventListener("mouseleave", () => {
    hoverLine = null;
    onHoverLine?.(null);
  });

  return {
    view,
    /** @param {string} text */
    setDoc(text) {
      const old = view.state.doc.toString();
      if (text === old) return;
      // only the span that differs: the rest keeps its parse, its lines and the reader's place
      let from = 0;
      while (from < old.length && from < text.length && old[from] === text[from]) from++;
      let end = 0;
      while (end < old.length - from && end < text.length - from && old.at(-1 - end) === text.at(-1 - end)) end++;
      silent = true;
      try {
        view.dispatch({ changes: { from, to: old.length - end, insert: text.slice(from, text.length - end) } });
      } finally {
        silent = false;
      }
    },
    /** Mark (or clear, with null) the line of an engine error.
     *  @param {LineError | null} err */
    setError(err) {
      const doc = view.state.doc;
      const at = err?.line;
      const line = typeof at === "number" && Number.isInteger(at) && at >= 1 && at <= doc.lines ? at : null;
      // the page asks on every update, and each dispatch costs the editor a measure cycle: an
      // unchanged mark is left alone (a mark on the same line of another text is redrawn)
      const key = JSON.stringify([line, err?.message ?? null]);
      if (key === shownError.key && (line === null || doc === shownError.doc)) return;
      shownError = { doc, key };
      /** @type {Array<{from: number, to: number, severity: string, message: string}>} */
      const diagnostics = [];
      if (err && line !== null) {
        const l = doc.line(line);
        const indent = /** @type {RegExpExecArray} */ (/^\s*/.exec(l.text))[0].length; // always matches
        diagnostics.push({ from: l.from + indent, to: l.to, severity: "error", message: err.message });
      }
      view.dispatch(setDiagnostics(view.state, diagnostics), { effects: setErrorLine.of(line) });
    },
    // Each new split moves the step line, mostly to where it was. A dispatch is not free even
    // then: CodeMirror reads the page's selection, which makes Chromium lay out a stage just
    // rebuilt, inside the task that rebuilt it (10-35 ms per toggle, in a profile). So a mark
    // that stays is left alone.
    /** Highlight a line the stage points at (null clears). @param {number | null} line */
    linkLine(line) {
      const at = Number.isInteger(line) ? line : null;
      if (view.state.field(linkedLineField).line === at) return;
      view.dispatch({ effects: setLinkedLine.of(at) });
    },
    /** Mark the source line of the stage's step in its colour (null clears).
     *  @param {number | null} line @param {number | null} [hue] */
    stepLine(line, hue = null) {
      const at = Number.isInteger(line) ? line : null;
      const colour = Number.isInteger(hue) ? hue : null;
      const shown = view.state.field(stepLineField);
      if (shown.line === at && shown.hue === colour) return;
      view.dispatch({ effects: setStepLine.of({ line: at, hue: colour }) });
    },
    focus: () => view.focus(),
  };
}

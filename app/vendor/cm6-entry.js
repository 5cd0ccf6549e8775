// Build input, not served: build.py bundles this with esbuild into dist/app/vendor/cm6.js,
// one ES module with everything the app takes from CodeMirror 6. Add re-exports here as needed.
export {
  EditorView, ViewPlugin, Decoration, WidgetType, keymap, placeholder,
  lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
} from "@codemirror/view";
export {
  EditorState, EditorSelection, Compartment, StateField, StateEffect, RangeSetBuilder, Prec,
  Annotation, Transaction,
} from "@codemirror/state";
export { basicSetup, minimalSetup } from "codemirror";
export { python, pythonLanguage } from "@codemirror/lang-python";
export { linter, lintGutter, setDiagnostics, forceLinting, diagnosticCount } from "@codemirror/lint";
export {
  defaultKeymap, history, historyKeymap, indentWithTab, undo, redo,
} from "@codemirror/commands";
export {
  syntaxHighlighting, defaultHighlightStyle, HighlightStyle, indentUnit, bracketMatching,
  syntaxTree, foldGutter,
} from "@codemirror/language";
export { tags } from "@lezer/highlight";

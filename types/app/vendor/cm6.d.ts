// app/vendor/cm6.js is built (esbuild bundles app/vendor/cm6-entry.js); for tsc its exports
// are untyped.
export const EditorView: any;
export const EditorState: any;
export const StateField: any;
export const StateEffect: any;
export const Decoration: any;
export const basicSetup: any;
export const python: any;
export const setDiagnostics: any;
export const lintGutter: any;
export const HighlightStyle: any;
export const syntaxHighlighting: any;
export const tags: any;
export const keymap: any;
export const Prec: any;

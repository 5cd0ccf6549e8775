// ESLint for the page's modules and the Node tools (run by tests/test_lint.py from the build's
// node_modules). Formatting is prettier's job; these rules catch mistakes.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["dist/**", "node_modules/**", ".cache/**", "app/vendor/**"] },
  js.configs.recommended,
  {
    // 2025: import attributes (app/contract/validate.js imports the contract's JSON Schemas)
    files: ["app/**/*.js"],
    languageOptions: { ecmaVersion: 2025, sourceType: "module", globals: globals.browser },
  },
  {
    files: ["app/engine-worker.js"],
    languageOptions: { globals: { ...globals.worker, loadPyodide: "readonly" } },
  },
  {
    // the browser wall's probes (tests/browser/test_engine_wall.py): a worker's program and a
    // function run in the engine's frame
    files: ["tests/browser/wall/*.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "script", globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: ["app/sw.js"],
    languageOptions: { globals: globals.serviceworker },
  },
  {
    files: ["**/*.mjs", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2025, sourceType: "module", globals: globals.node },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
      eqeqeq: ["error", "smart"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    // classic scripts that must run (and report) in browsers too old for the module graph
    files: ["app/boot-guard.js", "app/theme-init.js"],
    languageOptions: { sourceType: "script" },
    rules: { "no-var": "off" },
  },
];

// Classic script, loaded before the modules. It reports what module code cannot: a module
// script that fails to load (404, wrong MIME type, syntax error), and an engine that never
// leaves 'loading' (e.g. pyodide.asm.wasm served with the wrong type makes loadPyodide hang).
// Watchdog: 150 s (beyond the engine client's own 120 s boot timeout; no URL parameter
// changes it).
(function () {
  "use strict";
  var timeoutMs = 150000;
  window.__bootErrors = [];
  window.__cspViolations = [];

  /** @param {string} message */
  function fail(message) {
    window.__bootErrors.push(message);
    var el = /** @type {HTMLElement} */ (document.querySelector('[data-testid="engine"]'));
    if (!el) {
      document.addEventListener(
        "DOMContentLoaded",
        function () {
          fail(message);
        },
        { once: true },
      );
      return;
    }
    el.dataset.state = "error";
    el.textContent = "Python engine: failed to start: " + message;
  }

  // Capture phase: resource load errors (e.g. <script type=module src=...>) do not bubble.
  window.addEventListener(
    "error",
    function (e) {
      var t = /** @type {any} */ (e.target);
      if (t && t !== window && (t.tagName === "SCRIPT" || t.tagName === "LINK")) {
        // a file asked for after the start (CodeMirror's parts: app/editor-slot.js) is the
        // page's to report: the engine is not concerned
        if (!t.hasAttribute("data-after-start")) fail("could not load " + (t.src || t.href));
      } else if (document.documentElement.dataset.app !== "started") {
        fail((e.message || "script error") + (e.filename ? " (" + e.filename + ")" : ""));
      }
    },
    true,
  );

  document.addEventListener("securitypolicyviolation", function (e) {
    window.__cspViolations.push({ directive: e.effectiveDirective, blockedURI: e.blockedURI });
  });

  setTimeout(function () {
    var el = /** @type {HTMLElement} */ (document.querySelector('[data-testid="engine"]'));
    if (document.documentElement.dataset.app !== "started") {
      fail("the page's scripts did not start within " + timeoutMs + " ms");
    } else if (el && el.dataset.state === "loading") {
      fail("the engine did not start within " + timeoutMs + " ms");
    }
  }, timeoutMs);
})();

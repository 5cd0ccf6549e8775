// Classic script, run before the first paint: apply the theme the reader picked last time
// (the page otherwise follows prefers-color-scheme). The build inlines it, allowed by hash.
(function () {
  "use strict";
  try {
    var t = localStorage.getItem("pe-explainer.theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) {
    /* storage unavailable: follow the system */
  }
})();

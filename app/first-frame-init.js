// Classic script, run before the first paint: the HTML holds the default example's first
// frame (drawn by the build, tools/prerender.mjs). When the page will open something else (a
// link in the address bar, or what the reader saved last time), that frame stays hidden until
// the page draws its own (app/page/first-frame.js).
(function () {
  "use strict";
  let other = location.hash !== "" && location.hash !== "#";
  if (!other && !new URLSearchParams(location.search).has("embed")) {
    try {
      other = localStorage.getItem("pe-explainer.state.v1") !== null;
    } catch (e) {
      /* storage unavailable: nothing was saved */
    }
  }
  if (other) document.documentElement.dataset.prerender = "off";
})();

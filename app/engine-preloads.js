// Classic script, run before the first paint (the build inlines it): the engine's files
// (10 MB: Pyodide, numpy, the engine) are asked for once the first frame is rendered, from the
// <template id="engine-preloads"> the build writes into the head, so that the text paints
// first and Python's download still starts before any module runs. Asked for earlier, they
// finished before the first paint on a fast link, and Lighthouse's model then counted all
// 10 MB on its slow link as the largest paint's path (LCP 32.9 s). The engine client removes
// the template when it fetches the files itself first (a tab opened in the background renders
// no frame, so this waits).
(function () {
  "use strict";
  const t = /** @type {HTMLTemplateElement | null} */ (document.getElementById("engine-preloads"));
  if (!t) return; // the source tree served without a build has no list
  requestAnimationFrame(function () {
    setTimeout(function () {
      if (!t.isConnected) return;
      t.remove();
      document.head.append(t.content);
    }, 0);
  });
})();

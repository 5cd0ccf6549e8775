// Classic script, run before the first paint: `index.html?embed` (read-only) and
// `index.html?embed&edit` are the compact embed (static/embed.css, app/embed.js): the editor
// and the stage only. Only these two flags are read from the query; the state is the link's.
(function () {
  "use strict";
  const q = new URLSearchParams(location.search);
  if (q.has("embed")) document.documentElement.dataset.embed = q.has("edit") ? "edit" : "read";
})();

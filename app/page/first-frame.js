// The first frame the build drew into the HTML (tools/prerender.mjs): the default example's
// editor text, controls and stage, each container marked `data-prerendered` (the stage with
// its record's request key). The page takes it over, or drops it when it opens another state.

/**
 * Keep the HTML's frame if it is the opening state's (the stage keeps it until its first
 * record draws the same DOM), else empty the stage; either way the page's views take over.
 * @param {string} key the request key of the state the page opens
 */
export function adoptFirstFrame(key) {
  const stage = document.getElementById("stage");
  const own = stage?.dataset.prerendered === key;
  if (stage && !own && stage.dataset.prerendered != null) {
    stage.replaceChildren();
    delete stage.dataset.prerendered;
  }
  for (const el of document.querySelectorAll("[data-prerendered]")) {
    if (el !== stage) delete (/** @type {HTMLElement} */ (el).dataset.prerendered);
  }
  delete document.documentElement.dataset.prerender;
}

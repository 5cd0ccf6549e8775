// Section 7: what is built on the rule. Each button loads a live example into the main
// editor (window.explainer.loadExample) and brings the tool into view.
import { h, reducedMotion } from "./util.js";

/** @param {HTMLElement} el @param {import("./index.js").SectionContext} ctx */
export function createBuiltOn(el, ctx) {
  const status = h("p", { class: "x-narration", role: "status", "data-testid": "built-on-status" });
  el.append(status);
  for (const btn of /** @type {NodeListOf<HTMLButtonElement>} */ (el.querySelectorAll("button[data-example]"))) {
    btn.addEventListener("click", async () => {
      const id = btn.dataset.example ?? ""; // there: the selector asks for it
      const title = btn.textContent;
      status.textContent = `Loading: ${title}…`;
      document
        .getElementById("editor-panel")
        ?.scrollIntoView({ behavior: reducedMotion.matches ? "auto" : "smooth", block: "start" });
      try {
        await ctx.explainer.loadExample(id);
        status.textContent = `Loaded into the editor above: ${title}.`;
      } catch (err) {
        status.textContent = `Could not load the example: ${err instanceof Error ? err.message : err}`;
      }
    });
  }
  return { follows: false };
}

// What the reader points at in the stage: the equation or residual under the pointer, or
// holding the focus, is lit everywhere it appears and told to the shell (the editor marks its
// source line); a residual chip clicked steps to its equation. The stage (index.js) owns what
// lighting means; this module only turns pointer and focus events into links, each told once.

import { linkOf } from "./highlight.js";

/** @typedef {import("./model.js").Model} Model */
/** @typedef {import("./model.js").Link} Link */

/**
 * @param {HTMLElement} content the stage's content (panes, chips, tables)
 * @param {{model: () => Model, show: (link: Link | null) => void,
 *          onLink: ((link: Link | null) => void) | null, stepTo: (event: number) => void}} deps
 *   show: light the link's elements; onLink: the shell's listener; stepTo: a chip's event
 * @returns {{forget: () => void}} forget: the next link is told even if it is the one told last
 */
export function bindPointerLinks(content, { model, show, onLink, stepTo }) {
  let told = /** @type {string | null} */ (null);

  function userLink(/** @type {Link | null} */ link) {
    const key = link ? JSON.stringify(link) : null;
    if (key === told) return;
    told = key;
    show(link);
    try {
      onLink?.(link);
    } catch (err) {
      console.error(err);
    }
  }
  const linkAt = (/** @type {EventTarget | null} */ el) => linkOf(model(), content, el);
  content.addEventListener("mouseover", (e) => userLink(linkAt(e.target)));
  content.addEventListener("mouseleave", () => {
    userLink(content.contains(document.activeElement) ? linkAt(document.activeElement) : null);
  });
  content.addEventListener("focusin", (e) => userLink(linkAt(e.target)));
  content.addEventListener("focusout", (e) => {
    if (!content.contains(/** @type {Node | null} */ (e.relatedTarget))) userLink(null);
  });
  content.addEventListener("click", (e) => {
    const target = /** @type {Element} */ (e.target);
    const chip = /** @type {HTMLElement | null} */ (target.closest?.(".st-chip"));
    if (chip && content.contains(chip)) stepTo(Number(chip.dataset.event));
  });
  return {
    forget() {
      told = null;
    },
  };
}

// The notice line: a link that could not be opened, "Link copied", a copy fallback.

import { NOTICE_MS } from "../../limits.js";

/** @typedef {{kind?: string, sticky?: boolean, extra?: Element | null}} NoticeOptions */
/** @typedef {(text: string, options?: NoticeOptions) => void} Notice */

/** @param {HTMLElement} el the notice line @returns {Notice} */
export function createNotice(el) {
  let timer = 0;
  /** Show `text` (with an optional extra element); not sticky: it hides after NOTICE_MS.
   *  @param {string} text @param {NoticeOptions} [options] */
  return function showNotice(text, { kind = "info", sticky = false, extra = null } = {}) {
    clearTimeout(timer);
    el.className = `notice notice-${kind}`;
    el.replaceChildren(document.createTextNode(text));
    if (extra) el.append(extra);
    const close = document.createElement("button");
    close.type = "button";
    close.className = "notice-close";
    close.textContent = "Dismiss";
    close.addEventListener("click", () => {
      el.hidden = true;
    });
    el.append(close);
    el.hidden = false;
    if (!sticky) timer = setTimeout(() => (el.hidden = true), NOTICE_MS);
  };
}

// Share (copies the permalink), "Copy as JAX" (a Python snippet that reproduces the view) and
// "Copy embed code" (the <iframe> for this state, app/embed.js).

import { embedCode } from "../../embed.js";
import { jaxSnippet } from "../../jax-snippet.js";
import { LONG_LINK_CHARS } from "../../limits.js";

/** @param {string} text */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {{share: Element, copyAsJax: Element, copyEmbed: Element}} buttons
 * @param {{permalink: () => Promise<string>, getState: () => import("../update.js").PageState,
 *          notice: import("./notice.js").Notice}} deps
 */
export function mountShare(buttons, { permalink, getState, notice }) {
  /** @param {string} label @param {string} text */
  function copyFallback(label, text) {
    const box = document.createElement("textarea");
    box.readOnly = true;
    box.className = "copy-fallback";
    box.value = text;
    box.rows = Math.min(12, text.split("\n").length + 1);
    box.setAttribute("aria-label", label);
    notice(`${label}: the clipboard is not available here, so select and copy it:`, { sticky: true, extra: box });
    box.focus();
    box.select();
  }

  buttons.share.addEventListener("click", async () => {
    let url;
    try {
      url = await permalink();
    } catch (err) {
      notice(/** @type {Error} */ (err).message, { kind: "warning" });
      return;
    }
    const long =
      url.length > LONG_LINK_CHARS
        ? ` It is ${url.length} characters long; some chat services cut links over ${LONG_LINK_CHARS}.`
        : "";
    if (await copyText(url)) {
      notice(`Link copied (${url.length} characters). It holds the code, the inputs, the mode and the step.${long}`);
    } else {
      copyFallback("The link", url);
    }
  });

  buttons.copyAsJax.addEventListener("click", async () => {
    const text = jaxSnippet(getState());
    if (await copyText(text)) notice("Copied a Python snippet that reproduces this with real JAX.");
    else copyFallback("The JAX snippet", text);
  });

  buttons.copyEmbed.addEventListener("click", async () => {
    let text;
    try {
      text = embedCode(await permalink());
    } catch (err) {
      notice(/** @type {Error} */ (err).message, { kind: "warning" });
      return;
    }
    if (await copyText(text)) {
      notice("Copied the <iframe> that embeds this state, read-only (add &edit after ?embed to let readers edit).");
    } else copyFallback("The embed code", text);
  });
}

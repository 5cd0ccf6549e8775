// The address bar and localStorage follow the page's state: the permalink is written about a
// second after the last edit (history.replaceState), and the state is saved locally so a
// reload or a later visit without a link opens where the reader left off.

import { URL_DEBOUNCE_MS } from "../limits.js";
import { PermalinkError, decodePermalink, encodePermalink, saveLocal as saveToStorage } from "../state.js";

/**
 * @param {{getState: () => import("./update.js").PageState,
 *          onLink: (doc: import("./update.js").Doc) => void, notice: import("./views/notice.js").Notice,
 *          local?: boolean}} deps
 *   onLink: a link the reader went to (a changed hash) decoded to a state; local: keep the
 *   state in localStorage too (not in an embed, which shows its link's state and no other)
 */
export function createAddressBar({ getState, onLink, notice, local = true }) {
  const saveLocal = local ? saveToStorage : () => {};
  let timer = 0;
  let lastHash = location.hash;

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(write, URL_DEBOUNCE_MS);
  }

  async function write() {
    timer = 0;
    const { doc, touched } = getState();
    if (!touched) return;
    saveLocal(doc, location.hash, true);
    try {
      const hash = `#${await encodePermalink(doc)}`;
      if (hash !== location.hash) {
        history.replaceState(null, "", hash);
        lastHash = hash;
      }
      saveLocal(doc, hash);
    } catch (err) {
      if (err instanceof PermalinkError) notice(err.message, { kind: "warning" });
    }
  }

  /** Write the permalink now; resolves to the page's URL. */
  async function permalink() {
    clearTimeout(timer);
    const { doc } = getState();
    saveLocal(doc, location.hash, true);
    const hash = `#${await encodePermalink(doc)}`;
    history.replaceState(null, "", hash);
    lastHash = hash;
    saveLocal(doc, hash);
    return location.href;
  }

  // Leaving or reloading within the debounce: keep the latest edits (the saved state's base
  // is the hash still shown, so the reload restores them instead of that hash).
  window.addEventListener("pagehide", () => {
    if (timer && getState().touched) saveLocal(getState().doc, location.hash, true);
  });

  window.addEventListener("hashchange", async () => {
    if (location.hash === lastHash || !location.hash) return;
    lastHash = location.hash;
    try {
      onLink(await decodePermalink(location.hash));
    } catch (err) {
      // decodePermalink rejects with a PermalinkError, nothing else
      const { message } = /** @type {import("../state.js").PermalinkError} */ (err);
      notice(`This link could not be opened (${message}); the page kept what it showed.`, {
        kind: "warning",
        sticky: true,
      });
    }
  });

  return { schedule, permalink };
}

// The state the page opens with: a link in the address bar, else what was saved locally,
// else the default example. A link that does not decode opens the default with a notice.

import { PermalinkError, decodePermalink, loadLocal, stateFromExample } from "../state.js";
import { defaultExample } from "../examples.js";
import { modeOf } from "../modes.js";

/** @typedef {import("../examples.js").Examples} Examples */
/** @typedef {import("./update.js").Doc} Doc */

/** The example a doc is, by its code and mode ("" for none).
 *  @param {Examples} examples @param {Doc} doc @returns {string} */
export function matchExample(examples, doc) {
  const ex = examples.examples.find(
    (e) =>
      e.code === doc.code &&
      e.mode === doc.mode &&
      (modeOf(e.mode)?.option !== "policy" || (e.policy ?? "") === doc.policy),
  );
  return ex ? ex.id : "";
}

/**
 * @param {Examples} examples
 * @param {{local?: boolean}} [options] local: what was saved in localStorage may open (not in
 *   an embed: it opens its link's state)
 * @returns {Promise<{doc: Doc, exampleId: string, openedFrom: string, problem: string | null}>}
 *   problem: why the link in the address bar could not be opened
 */
export async function openingState(examples, { local: useLocal = true } = {}) {
  const hash = location.hash;
  const local = (/** @type {Doc} */ doc) => ({
    doc,
    exampleId: matchExample(examples, doc),
    openedFrom: "local",
    problem: null,
  });
  if (hash && hash !== "#") {
    // a reload right after an edit: what was saved ahead of this very hash is newer
    const reloaded = useLocal ? loadLocal(hash) : null;
    if (reloaded) return local(reloaded);
    try {
      const doc = await decodePermalink(hash);
      return { doc, exampleId: matchExample(examples, doc), openedFrom: "link", problem: null };
    } catch (err) {
      const why = err instanceof PermalinkError ? err.message : String(err);
      history.replaceState(null, "", location.pathname + location.search);
      const doc = stateFromExample(defaultExample(examples));
      return { doc, exampleId: examples.default, openedFrom: "bad-link", problem: why };
    }
  }
  const saved = useLocal ? loadLocal() : null;
  if (saved) return local(saved);
  return {
    doc: stateFromExample(defaultExample(examples)),
    exampleId: examples.default,
    openedFrom: "default",
    problem: null,
  };
}

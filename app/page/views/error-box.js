// The last error (data-testid="error", "Line N: message"), the "stale" badge on the stage
// while the programs shown are from the last version that worked, and the editor's marker.

import { setAttr, setHidden } from "../../dom-writes.js";

/** @param {{box: HTMLElement, badge: HTMLElement, panel: HTMLElement, editor: any}} els */
export function createErrorView({ box, badge, panel, editor }) {
  /** @param {import("../update.js").PageState} s */
  return function render(s) {
    const { error, record } = s;
    const stale = Boolean(error) && record !== null;
    panel.classList.toggle("stale", stale);
    setHidden(badge, !stale);
    editor.setError(error && error.line ? { line: error.line, message: error.message } : null);
    if (!error) {
      setHidden(box, true);
      if (box.firstChild) box.replaceChildren();
      setAttr(box, "data-line", "");
      return;
    }
    const where = document.createElement("strong");
    where.textContent = error.line ? `Line ${error.line}: ` : "Error: ";
    const msg = document.createElement("span");
    msg.className = "error-message";
    msg.textContent = error.message;
    box.replaceChildren(where, msg);
    if (record) {
      const note = document.createElement("span");
      note.className = "error-note";
      note.textContent = " The split on the right is from your last working version (stale).";
      box.append(note);
    }
    box.dataset.line = String(error.line ?? "");
    box.hidden = false;
  };
}

// Writes that leave the DOM alone when it already says the same. The page's views draw from
// the whole state on every change (a checkpoint edit draws them some eight times as its cards
// come in), and a write of the same text still replaces the text node: style, layout and
// paint then run again for what did not change, on the main thread that shares two cores
// with the engine's worker.

/** @param {Element} el @param {string} text */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** An attribute set to `value`, or removed for null. @param {Element} el @param {string} name
 * @param {string | null} value */
export function setAttr(el, name, value) {
  if (el.getAttribute(name) === value) return;
  if (value === null) el.removeAttribute(name);
  else el.setAttribute(name, value);
}

/** @param {HTMLElement} el @param {boolean} hidden */
export function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

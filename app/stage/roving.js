// Roving tabindex: a group of items (the equations of every pane, the residual chips) is one
// tab stop. The item last focused (or the one the stage points at) has tabindex 0, every
// other -1, and the arrow keys move focus inside the group:
//   Up/Down     the previous/next item in reading order (within a pane, then on)
//   Left/Right  the nearest item of the pane before/after (equations); the previous/next item
//               (a flat list such as the residual chips)
//   Home/End    the first/last item
// Items not shown yet (not revealed at this step) are skipped.

import { setAttr } from "../dom-writes.js";

/**
 * @param {HTMLElement} container holds the items; gets data-stage-keys="off" (the group owns
 *   its arrow keys, the stage's step keys stay out)
 * @param {{items: () => HTMLElement[], lane?: ((el: HTMLElement) => string | null) | null,
 *          onActivate?: ((el: HTMLElement, e: KeyboardEvent) => void) | null}} opts
 *   items: every item in reading order; lane: which column an item is in (pane id), for
 *   Left/Right; onActivate: Enter or Space on an item
 */
export function createRoving(container, { items, lane = null, onActivate = null }) {
  container.dataset.stageKeys = "off";
  /** @type {HTMLElement | null} */
  let current = null;
  const revealed = () => items().filter((el) => el.classList.contains("is-on"));
  // what arrow keys move between: revealed and rendered (checkVisibility needs the style only)
  const rendered = (/** @type {HTMLElement} */ el) =>
    el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  const shown = () => revealed().filter(rendered);

  /** Make `el` the group's tab stop (without moving focus). @param {HTMLElement | null | undefined} el */
  function point(el) {
    if (!el || el === current) return;
    if (current) current.tabIndex = -1;
    current = el;
    current.tabIndex = 0;
  }

  /** After the items changed (a new step, a new record): keep one tab stop, a revealed one.
   *  Revealed, not rendered: asking for the style in the middle of a redraw cost a grad
   *  split's edit 13 ms of its 21, the style computed twice; an item of a revealed equation
   *  that is not rendered has its whole stage hidden with it.
   *  @param {HTMLElement | null} [prefer] */
  function refresh(prefer = null) {
    const all = items();
    const visible = revealed();
    const keep =
      (prefer && visible.includes(prefer) ? prefer : current && visible.includes(current) ? current : visible[0]) ??
      all[0];
    // only what changes is written: the build's first frame already holds these tab stops
    for (const el of all) if (el !== keep) setAttr(el, "tabindex", "-1");
    if (!keep) return;
    current = keep;
    setAttr(keep, "tabindex", "0");
  }

  /** @param {HTMLElement[]} list @param {number} y */
  function nearestIn(list, y) {
    /** @type {HTMLElement | null} */
    let best = null;
    let dist = Infinity;
    for (const el of list) {
      const r = el.getBoundingClientRect();
      const d = Math.abs(r.top + r.height / 2 - y);
      if (d < dist) {
        dist = d;
        best = el;
      }
    }
    return best;
  }

  /** @param {HTMLElement} from @param {string} key @returns {HTMLElement | null | undefined} */
  function target(from, key) {
    const list = shown();
    const i = list.indexOf(from);
    if (key === "Home") return list[0];
    if (key === "End") return list.at(-1);
    if (key === "ArrowDown" || (!lane && key === "ArrowRight")) return list[Math.min(list.length - 1, i + 1)];
    if (key === "ArrowUp" || (!lane && key === "ArrowLeft")) return list[Math.max(0, i - 1)];
    if (lane && (key === "ArrowLeft" || key === "ArrowRight")) {
      const lanes = [...new Set(list.map(lane))];
      const l = lanes.indexOf(lane(from)) + (key === "ArrowRight" ? 1 : -1);
      if (l < 0 || l >= lanes.length) return from;
      const r = from.getBoundingClientRect();
      return nearestIn(
        list.filter((el) => lane(el) === lanes[l]),
        r.top + r.height / 2,
      );
    }
    return null;
  }

  container.addEventListener("focusin", (e) => {
    const el = /** @type {HTMLElement} */ (e.target);
    if (items().includes(el)) point(el);
  });
  container.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const from = /** @type {HTMLElement} */ (e.target);
    if (!items().includes(from)) return;
    if ((e.key === "Enter" || e.key === " ") && onActivate) {
      e.preventDefault();
      onActivate(from, e);
      return;
    }
    const to = target(from, e.key);
    if (!to) return;
    e.preventDefault();
    point(to);
    to.focus({ preventScroll: false });
  });

  return { refresh, point, current: () => current };
}

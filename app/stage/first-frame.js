// The build's first frame (tools/prerender.mjs): the stage of the page's first record, drawn
// into the HTML by this same code. The build records the order the stage's code made its
// elements in (`data-made` on the root: each one's place in the HTML, -1 for one made but
// not drawn); the page's stage makes the same elements in the same order and takes each over
// from the HTML (dom.js makingWith) instead of drawing it again.

import { makingWith } from "./dom.js";

/**
 * What makingWith takes: the build's elements to adopt in turn, or the list the build records into.
 * @typedef {{els: (Element | null)[], i: number, ok: boolean, made?: undefined}} Adopting
 * @typedef {{made: Element[], els?: undefined, i?: undefined, ok?: undefined}} Recording
 */

/** The build's elements in the order they were made, or null when the root has no frame.
 *  @param {HTMLElement} root @returns {Adopting | null} */
function queueOf(root) {
  const order = root.dataset.made;
  if (root.dataset.prerendered == null || !order) return null;
  const all = root.querySelectorAll("*");
  return { els: order.split(",").map((i) => (Number(i) < 0 ? null : all[Number(i)])), i: 0, ok: true };
}

/**
 * @param {HTMLElement} root the stage's root
 * @param {Element[] | null} recordInto the build: the list to record the elements made into
 */
export function createFirstFrame(root, recordInto) {
  /** @type {Adopting | Recording | null} */
  let queue = recordInto ? { made: recordInto } : queueOf(root);
  const whole = () => queue?.ok === true && queue.i === queue.els.length;
  return {
    /** `fn()`, its elements taken from the frame (or recorded, at the build). */
    run: /** @type {<T>(fn: () => T) => T} */ ((fn) => (queue ? makingWith(queue, fn) : fn())),
    /** Whether an element made was not the one the build made there, or (`all`: after the
     *  last of them) one the build made was not made: drawn anew, and the frame given up. */
    broken(all = false) {
      if (!queue?.els || (queue.ok && (!all || whole()))) return false;
      console.error("stage: the build's first frame is not what this code draws; drawn anew");
      queue = null;
      return true;
    },
    /** The step the frame's elements show if they are the record `key`'s of `total` steps;
     *  else 0, and the frame is given up. */
    /** @param {string | null} key @param {number} total */
    startStep(key, total) {
      if (!queue?.els) return 0;
      const at = Number(root.dataset.step);
      if (key === root.dataset.prerendered && at >= 0 && at <= total) return at;
      queue = null;
      return 0;
    },
    /** After the first record: whether every element the frame holds was taken over. */
    finish() {
      const kept = queue?.els != null && whole();
      queue = null;
      return kept;
    },
  };
}

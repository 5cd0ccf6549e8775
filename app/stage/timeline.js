// What each step reveals. Every element the stage shows is "revealed at" a step; moving from
// one step to another only toggles `is-on` on the elements revealed in between, and
// `is-current` on the elements of the event just judged, so scrubbing a 200-equation record
// stays cheap.

/** @typedef {ReturnType<typeof createTimeline>} Timeline */
/** @typedef {Timeline["reveal"]} Reveal registers an element that appears at a step */

export function createTimeline() {
  /** @type {Element[][]} */
  let groups = [[]]; // groups[t]: elements that appear at step t
  /** @type {Element[][]} */
  let current = []; // current[i]: elements marked is-current while event i is the last judged
  let shown = 0; // the step the elements show

  return {
    /** Forget the last record's elements; a record of `total` events comes next, its
     *  elements showing step `at` (0 when they are new; the step the build drew when they are
     *  the build's first frame). @param {number} total @param {number} [at] */
    reset(total, at = 0) {
      groups = Array.from({ length: total + 1 }, () => []);
      current = Array.from({ length: total }, () => []);
      shown = at;
    },
    /** `el` appears at step `at` (at once when at <= 0; shown now if the elements show a
     *  step past it). @param {Element} el @param {number} at */
    reveal(el, at) {
      if (at <= 0) {
        el.classList.add("is-on");
        return;
      }
      groups[Math.min(at, groups.length - 1)].push(el);
      if (at <= shown) el.classList.add("is-on");
    },
    /** `el` stands for event i: marked while i is the event just judged (at once if it is:
     *  the table view's rows are made when it opens). @param {Element} el @param {number} i */
    belongsTo(el, i) {
      current[i].push(el);
      if (i === shown - 1) el.classList.add("is-current");
    },
    /** Every element shown, as at the last step (a checkpoint's outer programs, whole while
     *  the steps go inside its remat). */
    showAll() {
      for (const g of groups) for (const el of g) el.classList.add("is-on");
      shown = groups.length - 1;
    },
    /** Each element registered, made `to(el)`: the element drawn in its place (reconcile.js).
     *  @param {<T>(n: T) => T} to */
    remap(to) {
      groups = groups.map((g) => g.map(to));
      current = current.map((c) => c.map(to));
    },
    /** The elements that change between step `prev` and step `next`.
     *  @param {number} prev @param {number} next */
    move(prev, next) {
      if (next > prev) {
        for (let t = prev + 1; t <= next; t++) for (const el of groups[t]) el.classList.add("is-on");
      } else {
        for (let t = prev; t > next; t--) for (const el of groups[t]) el.classList.remove("is-on");
      }
      if (prev !== next) {
        if (prev > 0) for (const el of current[prev - 1] || []) el.classList.remove("is-current");
        if (next > 0) for (const el of current[next - 1] || []) el.classList.add("is-current");
      }
      shown = next;
    },
  };
}

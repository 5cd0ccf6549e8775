// Where the residual labels go: columns in the gutter between the panes, one slot per label,
// never two overlapping, each as near the height it wants as the slots taken above it allow.
// The gutter's width is fixed (widening it would narrow the panes, re-wrap their equations and
// move every anchor): when its columns are busy, a label moves down, never out.
// Pure (numbers in, numbers out).

/**
 * @param {{want: number, width: number}[]} items the height each label would like, its width
 * @param {{x0: number, x1: number, height: number, gap: number, fromRight?: boolean}} area the
 *   gutter; columns fill from its left (or right) side
 * @returns {{x: number, y: number, width: number, column: number}[]} the centre of each label's
 *   slot, in the order of `items`
 */
export function placeLabels(items, { x0, x1, height, gap, fromRight = false }) {
  const colW = Math.max(20, ...items.map((it) => it.width)) + 2;
  const columns = Math.max(1, Math.floor((x1 - x0) / colW));
  const centre = (/** @type {number} */ c) => (fromRight ? x1 - colW / 2 - c * colW : x0 + colW / 2 + c * colW);
  const half = height / 2;
  const free = new Array(columns).fill(0); // free[c]: the lowest height column c has free
  const order = items.map((_, i) => i).sort((a, b) => items[a].want - items[b].want);
  const out = new Array(items.length);
  for (const i of order) {
    const want = Math.max(items[i].want, half);
    let best = 0;
    let bestY = Infinity;
    free.forEach((top, c) => {
      const y = Math.max(want, top + half);
      if (y < bestY) {
        bestY = y;
        best = c;
      }
    });
    free[best] = bestY + half + gap;
    out[i] = { x: centre(best), y: bestY, width: items[i].width, column: best };
  }
  return out;
}

// Where the residual labels go: columns in the gutter between the panes, one slot per label,
// never two overlapping, each as near the height it wants as the slots taken above it allow.
// Pure (numbers in, numbers out), so it is cheap to run on every scroll frame.

/**
 * @param {{want: number, width: number}[]} items the height each label would like, its width
 * @param {{x0: number, x1: number, top: number, bottom: number, height: number, gap: number,
 *          fromRight?: boolean}} area the gutter; columns fill from its left (or right) side
 * @returns {{slots: {x: number, y: number, width: number, column: number}[], columns: number,
 *           colW: number}} the centre of each label's slot, in the order of `items`; the
 *   columns used (the gutter holds `Math.floor((x1 - x0) / colW)`; more go on past it)
 */
export function placeLabels(items, { x0, x1, top, bottom, height, gap, fromRight = false }) {
  const colW = Math.max(20, ...items.map((it) => it.width)) + 2;
  const centre = (c) => (fromRight ? x1 - colW / 2 - c * colW : x0 + colW / 2 + c * colW);
  const next = []; // next[c]: the lowest free height in column c
  const order = items.map((_, i) => i).sort((a, b) => items[a].want - items[b].want);
  const out = new Array(items.length);
  const half = height / 2;
  for (const i of order) {
    const want = Math.min(Math.max(items[i].want, top + half), Math.max(top + half, bottom - half));
    let best = -1;
    let bestY = Infinity;
    next.forEach((free, c) => {
      const y = Math.max(want, free + half);
      if (y + half <= bottom + 0.5 && y < bestY) {
        bestY = y;
        best = c;
      }
    });
    if (best < 0) {
      // every column is full down to the bottom: a new one (past the gutter if need be)
      best = next.length;
      next.push(-Infinity);
      bestY = want;
    }
    next[best] = bestY + half + gap;
    out[i] = { x: centre(best), y: bestY, width: items[i].width, column: best };
  }
  return { slots: out, columns: next.length, colW };
}

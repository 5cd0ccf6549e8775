// The stage's keys, on the document while focus is not somewhere that uses them itself (an
// editor, a form field, a widget with its own arrow keys, such as the programs' equations):
//   ← →  step · Home End  first/last step · Space  play/pause
//   [ ]  previous/next residual · u / U  next/previous unknown equation

import { isActivatable, isTypingTarget, ownsArrowKeys } from "./dom.js";

/**
 * @param {HTMLElement} root the stage
 * @param {() => import("./model.js").Model} getModel
 * @param {{step: (n: number, source: string) => void, current: () => number, total: () => number,
 *          toggle: () => void, residual: (dir: number) => void, unknown: (dir: number) => void}} nav
 * @returns {() => void} unbinds
 */
export function bindStageKeys(root, getModel, nav) {
  /** @type {Record<string, () => number>} */
  const STEPS = {
    ArrowLeft: () => nav.current() - 1,
    ArrowRight: () => nav.current() + 1,
    Home: () => 0,
    End: () => nav.total(),
  };
  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const model = getModel();
    if (!root.isConnected || model.kind !== "panes" || !model.total) return;
    if (root.closest("[inert]") || root.hidden) return;
    const active = document.activeElement;
    if (isTypingTarget(active)) return;
    if (e.key === "[" || e.key === "]") nav.residual(e.key === "]" ? 1 : -1);
    else if (e.key === "u" || e.key === "U") nav.unknown(e.key === "u" ? 1 : -1);
    else if (ownsArrowKeys(active)) return;
    else if (STEPS[e.key]) nav.step(STEPS[e.key](), "key");
    else if (e.key === " " || e.key === "Spacebar") {
      if (isActivatable(active) || e.repeat) return;
      nav.toggle();
    } else return;
    e.preventDefault();
  }
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

// The guided tour: a "Tour" button that walks the seed's five questions in order on the reader's
// function (app/page/tour-steps.js), each step scrolled to and outlining the live part of the
// page that answers it. Back / Next / Escape; a non-modal card whose text is a live region.
//
//   mountTour(container, {getState})   // the button goes at the end of `container`

import { tourSteps } from "./tour-steps.js";

// a demo drawn late (near the viewport only) moves what is below it: the tour follows its target
// while the page settles, until the reader scrolls
const FOLLOW_MS = 2500;

/** @template {keyof HTMLElementTagNameMap} K @param {K} tag @param {Record<string, string>} [attrs]
 *  @param {...(Node | string)} children @returns {HTMLElementTagNameMap[K]} */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/** Text with `code` spans as <code> (text nodes only, never HTML). @param {string} text */
function rich(text) {
  return text.split("`").map((part, i) => (i % 2 ? el("code", {}, part) : part));
}

/** The first of the selectors that is on the page and drawn. @param {string[]} selectors */
function targetOf(selectors) {
  for (const sel of selectors) {
    const node = document.querySelector(sel);
    if (node && node.getClientRects().length) return /** @type {HTMLElement} */ (node);
  }
  return null;
}

/**
 * @param {HTMLElement} container
 * @param {{getState: () => {record: import("../contract/record.js").EngineAnswer | null}}} deps
 */
export function mountTour(container, { getState }) {
  const start = el(
    "button",
    { type: "button", class: "action tour-start", "data-testid": "tour-start", "aria-haspopup": "dialog" },
    "Tour",
    el("span", { class: "tour-more" }, ": five questions"),
  );
  container.append(start);

  const count = el("p", { class: "tour-count", "data-testid": "tour-count" });
  const heading = el("h2", { id: "tour-heading" });
  const text = el("p", { class: "tour-text", "data-testid": "tour-text" });
  const live = el("div", { "aria-live": "polite", "aria-atomic": "true" }, count, heading, text);
  const back = el("button", { type: "button", class: "action", "data-testid": "tour-back" }, "Back");
  const next = el("button", { type: "button", class: "action", "data-testid": "tour-next" }, "Next");
  const close = el("button", { type: "button", class: "action", "data-testid": "tour-close" }, "Close (Esc)");
  const card = el(
    "section",
    {
      class: "tour-card",
      role: "dialog",
      "aria-modal": "false",
      "aria-labelledby": "tour-heading",
      "data-testid": "tour",
    },
    live,
    el("div", { class: "tour-nav" }, back, next, close),
  );
  card.hidden = true;
  document.body.append(card);

  /** @type {ReturnType<typeof tourSteps>} */
  let steps = [];
  let at = -1;
  /** @type {HTMLElement | null} the step's target, outlined */
  let lit = null;
  let stopFollowing = () => {};

  /** @param {HTMLElement} target */
  function follow(target) {
    stopFollowing();
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    const land = (/** @type {ScrollBehavior} */ behavior) => target.scrollIntoView({ block: "start", behavior });
    land(smooth ? "smooth" : "auto");
    let first = true;
    const sizes = new ResizeObserver(() => {
      if (first)
        first = false; // its first call is the observation starting, already landed
      else land("auto");
    });
    sizes.observe(document.body);
    const stop = () => {
      sizes.disconnect();
      clearTimeout(timer);
      for (const ev of ["wheel", "touchstart"]) removeEventListener(ev, stop);
    };
    const timer = setTimeout(stop, FOLLOW_MS);
    for (const ev of ["wheel", "touchstart"]) addEventListener(ev, stop, { passive: true });
    stopFollowing = stop;
  }

  /** @param {number} i */
  function show(i) {
    steps = tourSteps(getState().record); // the function as it is now
    at = Math.max(0, Math.min(steps.length - 1, i));
    const step = steps[at];
    count.textContent = `Question ${at + 1} of ${steps.length}`;
    heading.textContent = step.question;
    text.replaceChildren(...rich(step.text));
    back.disabled = at === 0;
    next.textContent = at === steps.length - 1 ? "Finish" : "Next";
    lit?.classList.remove("tour-target");
    lit = targetOf(step.targets);
    if (lit) {
      lit.classList.add("tour-target");
      lit.dataset.tourStep = step.id;
      follow(lit);
    }
    card.dataset.step = String(at + 1);
  }

  function open() {
    card.hidden = false;
    start.setAttribute("aria-expanded", "true");
    show(0);
    next.focus({ preventScroll: true });
  }

  function end() {
    if (card.hidden) return;
    stopFollowing();
    card.hidden = true;
    start.setAttribute("aria-expanded", "false");
    lit?.classList.remove("tour-target");
    if (lit) delete lit.dataset.tourStep;
    lit = null;
    start.focus({ preventScroll: true });
  }

  start.addEventListener("click", () => (card.hidden ? open() : end()));
  back.addEventListener("click", () => show(at - 1));
  next.addEventListener("click", () => (at >= steps.length - 1 ? end() : show(at + 1)));
  close.addEventListener("click", end);
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || card.hidden || e.defaultPrevented) return;
    const active = document.activeElement;
    // an editor or a field keeps its own Escape, unless the reader is in the card
    if (active && !card.contains(active) && active.closest?.('input, textarea, select, [contenteditable="true"]'))
      return;
    e.preventDefault();
    end();
  });
  return { open, end };
}

// The one movement on the stage: the equation flying from the traced strip into its pane
// (FLIP with Web Animations, transform and opacity only). What the step reveals besides the
// equation (its residual edges and chips) waits for it to land.

const FLIGHT_MS = 560;

/** @typedef {ReturnType<typeof import("./view.js").buildView>} View */

export function createFlights() {
  const layer = document.createElement("div");
  layer.className = "st-fly";
  layer.setAttribute("aria-hidden", "true");
  document.body.append(layer); // outside any containment, so fixed positions are the viewport's
  /** @type {Array<{anim: Animation, done: boolean, land: () => void}>} */
  let flights = [];

  /** Fly event i's chip into each of its places; `view`, `model` as the stage holds them.
   *  @param {View | null} view @param {import("./model.js").Model} model @param {number} i
   *  @param {number} speed */
  function fly(view, model, i, speed) {
    const chip = view?.trace?.chips[i];
    if (!chip) return;
    const ev = model.events[i];
    const from = chip.getBoundingClientRect();
    if (!from.width) return;
    const waiting = [
      ...(view.edges?.items.filter((it) => it.e.consumers.includes(i)).map((it) => it.g) || []),
      ...(ev.residuals || []).map((k) => view.resChips?.[k]).filter((el) => el != null),
    ];
    for (const el of waiting) el.classList.add("st-landing");
    let landed = false;
    const landRest = () => {
      if (landed) return;
      landed = true;
      for (const el of waiting) el.classList.remove("st-landing");
    };
    if (!ev.places.length) landRest();
    for (const [pi, j] of ev.places) {
      const pv = view.panes[pi];
      const el = pv.eqnEls[j];
      if (!el) continue;
      const to = el.getBoundingClientRect();
      const body = view.wrap.getBoundingClientRect();
      if (!to.width || to.bottom < body.top || to.top > body.bottom) {
        landRest();
        continue;
      }
      launch(chip, from, el, to, FLIGHT_MS / speed, landRest);
    }
  }

  /** @param {Element} chip @param {DOMRect} from @param {Element} el @param {DOMRect} to
   *  @param {number} duration @param {() => void} landRest */
  function launch(chip, from, el, to, duration, landRest) {
    const ghost = /** @type {HTMLElement} */ (chip.cloneNode(true));
    ghost.classList.add("st-ghost");
    ghost.classList.remove("is-current");
    ghost.removeAttribute("data-testid");
    Object.assign(ghost.style, {
      left: `${from.left}px`,
      top: `${from.top}px`,
      width: `${from.width}px`,
      height: `${from.height}px`,
    });
    layer.append(ghost);
    const dx = to.left + 4 - from.left;
    const dy = to.top + (to.height - from.height) / 2 - from.top;
    el.classList.add("st-landing");
    const anim = ghost.animate(
      [
        { transform: "translate(0, 0) scale(1)", opacity: 1 },
        { transform: `translate(${dx * 0.5}px, ${dy * 0.5 - 18}px) scale(1.06)`, opacity: 1, offset: 0.5 },
        { transform: `translate(${dx}px, ${dy}px) scale(1)`, opacity: 0.15 },
      ],
      { duration, easing: "cubic-bezier(.3,.1,.2,1)" },
    );
    const flight = { anim, done: false, land: () => {} };
    flight.land = () => {
      if (flight.done) return;
      flight.done = true;
      ghost.remove();
      el.classList.remove("st-landing");
      landRest();
      flights = flights.filter((f) => f !== flight);
    };
    anim.onfinish = flight.land;
    anim.oncancel = flight.land;
    flights.push(flight);
  }

  /** Land every flight now (a new step, a new record). */
  function finish() {
    for (const f of [...flights]) {
      f.anim.cancel();
      f.land();
    }
    flights = [];
  }

  return { fly, finish, destroy: () => layer.remove() };
}

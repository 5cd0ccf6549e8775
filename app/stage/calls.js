// A call equation opened in place. The engine splits every call (jit, remat2, scan, cond,
// while) by the same rule as the outer program and hands that split over as the event's
// `call` (a CallSplit of the record contract). The toggle on the call's row opens it under the
// row: the inner known and unknown programs (rows with data-depth 1, and 2, ... for calls
// inside calls), scan's and while's carry fixpoint round by round, remat's saved and
// recomputed equations, the call's own residuals, every branch of a cond. Built when first
// opened, then kept.

import { add, h, richText, section, sourceAnchor, stateOf } from "./dom.js";

/** @typedef {import("../contract/record.js").CallSplit} CallSplit */
/** @typedef {"known" | "unknown"} InnerRole the roles of the inner panes shown */

/** @type {Record<InnerRole, string>} */
const BADGE = { known: "K", unknown: "U" };

/**
 * A toggle for a call's row. Opening inserts the call's split after its row in its list.
 * The call and its split (made when first opened) are the toggle's state (dom.js stateOf),
 * its row the <li> it sits in: a toggle the stage keeps for a new record opens the new call.
 * @param {HTMLElement} row the call equation's row (an <li>)
 * @param {CallSplit} call
 * @param {number} depth the depth of the rows the split shows (1 under the outer program)
 */
export function callToggle(row, call, depth) {
  const btn = h(
    "button",
    {
      type: "button",
      class: "st-btn st-btn--small st-call-toggle",
      "data-testid": "call-toggle",
      "aria-expanded": "false",
      title: `Open ${call.title}: its own split`,
      "aria-label": `Open ${call.title}: the split of its inner program`,
    },
    h("span", { "aria-hidden": "true" }, "▸ "),
    "open",
  );
  Object.assign(stateOf(btn), { call, depth, split: null });
  btn.addEventListener("click", (e) => {
    e.stopPropagation(); // the row's own click (a step) is not this
    const open = btn.getAttribute("aria-expanded") !== "true";
    setOpen(btn, open);
    // it opens below the programs: brought into view (the panes' scroller, then the page)
    if (open) opened(btn).scrollIntoView({ block: "nearest" });
  });
  // Escape on the call's row (or its toggle) closes what it opened
  row.addEventListener("keydown", (e) => closeOnEscape(e, btn));
  return btn;
}

/** The split of the toggle's call, made when it first opens, then kept.
 *  @param {HTMLButtonElement} btn @returns {HTMLElement} */
function opened(btn) {
  const st = stateOf(btn);
  if (st.split) return st.split;
  const made = renderCallSplit(st.call, st.depth, sourceOf(rowOf(btn)));
  made.addEventListener("keydown", (e) => closeOnEscape(e, btn));
  made.querySelector("[data-testid=call-close]")?.addEventListener("click", () => {
    setOpen(btn, false);
    btn.focus();
  });
  st.split = made;
  return made;
}

/** @param {HTMLButtonElement} btn @param {boolean} open */
function setOpen(btn, open) {
  const { call, split } = stateOf(btn);
  if (open) placeSplit(rowOf(btn), opened(btn));
  else split?.remove();
  btn.setAttribute("aria-expanded", String(open));
  // written only when it changes: a call the build's first frame opened is taken over as is
  retext(btn.firstElementChild, open ? "▾ " : "▸ ");
  retext(btn.lastChild, open ? "close" : "open");
  btn.setAttribute("aria-label", `${open ? "Close" : "Open"} ${call.title}: the split of its inner program`);
}

/** The row a toggle sits in. @param {Element} btn */
const rowOf = (btn) => /** @type {HTMLElement} */ (btn.closest("li"));

/** @param {Node | null} node @param {string} text */
function retext(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

/** Open a call from its toggle without moving the page (a call the stage opens itself).
 *  @param {Element} btn @returns {boolean} whether `btn` is a call's toggle */
export function openCall(btn) {
  const ok = btn instanceof HTMLButtonElement && stateOf(btn).call != null;
  if (ok) setOpen(btn, true);
  return ok;
}

/** Escape closes the innermost opened call the key was pressed in, focus back on its toggle.
 *  @param {KeyboardEvent} e @param {HTMLButtonElement} btn */
function closeOnEscape(e, btn) {
  if (e.key !== "Escape" || e.defaultPrevented || btn.getAttribute("aria-expanded") !== "true") return;
  e.preventDefault();
  btn.click();
  btn.focus();
}

/** Where a call was opened from: "opened from Forward (known), line 9". @param {HTMLElement} row */
function sourceOf(row) {
  const pane = row.closest("[data-role]")?.querySelector("h3, h4")?.textContent ?? "";
  const line = row.dataset.line;
  return `opened from ${pane || "its row"}${line ? `, line ${line}` : ""}`;
}

/**
 * An opened call takes the whole width below the programs it opens from (the outer panes'
 * region, view.js, or the call it sits in), not the one column its row is in. Outside the
 * panes (a card), it opens under its row.
 * @param {HTMLElement} row @param {HTMLElement} split
 */
function placeSplit(row, split) {
  const parent = row.parentElement?.closest("[data-testid=call-split]");
  const region = parent
    ? parent.querySelector(":scope > [role=group] > .st-call-opened")
    : row.closest(".st-panes")?.querySelector(":scope > .st-opened");
  if (region) add(region, split);
  else row.after(split);
}

/** The split of one call: a section of its own (an <li> when it opens under its row in a
 *  list of equations). `from` says where it was opened from.
 *  @param {CallSplit} call @param {number} depth @param {string} [from] @returns {HTMLElement} */
export function renderCallSplit(call, depth, from = "") {
  // each operand named as the reader knows it: the argument W1, a literal, "from line 6"
  const inputs = call.inputs_known.map((k, i) =>
    h(
      "span",
      { class: `st-call-in st-call-in--${k ? "known" : "unknown"}`, "data-testid": "call-input" },
      `${call.inputs?.[i] ?? `operand ${i + 1}`} ${k ? "known" : "unknown"}`,
    ),
  );
  const close = from
    ? h(
        "button",
        {
          type: "button",
          class: "st-btn st-btn--small",
          "data-testid": "call-close",
          "aria-label": `Close ${call.title}`,
        },
        "Close",
      )
    : null;
  const head = h(
    "div",
    { class: "st-call-head" },
    h("strong", null, call.title),
    from ? h("span", { class: "st-muted" }, from) : null,
    close,
    close ? h("span", { class: "st-muted" }, "or press Esc") : null,
    h("span", { class: "st-call-ins" }, "Its own split, by the same rule. Its inputs as the rule saw them: ", inputs),
  );
  const places = placesOf(call);
  const panes = call.panes.flatMap((p) =>
    p.role === "known" || p.role === "unknown" ? [innerPane(call, p, p.role, places, depth)] : [],
  );
  return h(
    "section",
    {
      class: "st-call",
      "data-testid": "call-split",
      "data-depth": String(depth),
      "data-primitive": call.primitive,
    },
    h(
      "div",
      { role: "group", "aria-label": `${call.title}: inner split` },
      head,
      call.rounds.length ? renderRounds(call) : null,
      call.saved.length || call.recomputed.length ? rematNote(call) : null,
      h("div", { class: "st-call-panes" }, panes),
      reducePrecisionNote(call),
      call.residuals.length ? residualLine(call) : null,
      // a cond: its other branches, split under the same unknowns, at the same depth
      call.branches?.length
        ? h(
            "ol",
            { class: "st-call-branches" },
            call.branches.map((b) => h("li", null, renderCallSplit(b, depth))),
          )
        : null,
      // the calls opened inside this one, at its full width
      h("div", { class: "st-call-opened" }),
    ),
  );
}

/** For each pane role, which inner event each equation is.
 *  @param {CallSplit} call @returns {Record<InnerRole, Map<number, number>>} */
function placesOf(call) {
  const of = { known: new Map(), unknown: new Map() };
  call.events.forEach((ev, i) => {
    for (const j of ev.known_eqns ?? []) of.known.set(j, i);
    for (const j of ev.unknown_eqns ?? []) of.unknown.set(j, i);
  });
  return of;
}

/** @param {CallSplit} call @param {import("../contract/record.js").Pane} pane @param {InnerRole} role its role
 *  @param {Record<InnerRole, Map<number, number>>} places @param {number} depth */
function innerPane(call, pane, role, places, depth) {
  const saved = new Set(call.saved);
  const recomputed = new Set(call.recomputed);
  const rows = pane.program.eqns.map((text, j) => {
    const evi = places[role].get(j);
    const ev = evi != null ? call.events[evi] : null;
    // remat: what the known side keeps, what the unknown side computes again
    // what the known side keeps (its outputs are residuals), what the unknown side runs again
    const remat =
      evi == null
        ? null
        : role === "known"
          ? saved.has(evi)
            ? "saved"
            : null
          : recomputed.has(evi)
            ? "recomputed"
            : null;
    const li = h("li", {
      class: "st-eqn is-on",
      "data-testid": "eqn",
      "data-depth": String(depth),
      "data-side": role,
      "data-pane": `${pane.id}@${depth}`,
      "data-inner-event": evi ?? null,
      "data-line": ev?.line ?? null,
      "data-remat": remat,
      tabindex: "-1",
    });
    const line = ev?.line ?? null;
    const prevEvi = j > 0 ? places[role].get(j - 1) : undefined;
    const prevEv = prevEvi != null ? call.events[prevEvi] : null;
    if (line != null && prevEv?.line !== line) add(li, sourceAnchor(line, ev?.source));
    add(
      li,
      h(
        "span",
        { class: "st-eqn-main" },
        h("span", { class: `st-badge st-badge--${role}`, "aria-hidden": "true" }, BADGE[role]),
        h("code", { class: "st-eqn-text" }, text),
      ),
    );
    const tags = h("span", { class: "st-eqn-tags" });
    if (remat) add(tags, h("span", { class: `st-remat st-remat--${remat}` }, remat));
    if (ev?.call) add(tags, callToggle(li, ev.call, depth + 1));
    if (remat || ev?.call) add(li, tags);
    li.setAttribute(
      "aria-label",
      `${text.replace(/\s+/g, " ")} (${role}, inside ${call.title}${remat ? `, ${remat}` : ""})`,
    );
    return li;
  });
  return h(
    "section",
    { class: "st-call-pane", "data-role": role, "data-testid": `call-${role}` },
    h("h4", null, pane.title),
    h("ol", { class: "st-body", "aria-label": `${pane.title}: equations` }, rows),
  );
}

/** scan / while: the carries' fixpoint, one round after another, beside the body the rounds
 *  speak of (the inner program as traced, whose names they use). @param {CallSplit} call */
function renderRounds(call) {
  const carryName = (/** @type {number} */ c) => call.carries?.[c] ?? `carry ${c}`;
  const carries = (/** @type {boolean[]} */ flags) =>
    flags.map((u, c) =>
      h(
        "span",
        {
          class: `st-call-in st-call-in--${u ? "unknown" : "known"}`,
          role: "img",
          "aria-label": `carry ${carryName(c)} ${u ? "unknown" : "known"}`,
        },
        `${carryName(c)} ${u ? "U" : "K"}`,
      ),
    );
  const last = call.rounds.length - 1;
  const items = call.rounds.map((r, n) =>
    h(
      "li",
      { class: "st-round", "data-testid": "call-round", "data-turned": r.turned.join(" ") },
      h("span", { class: "st-round-n" }, `Round ${n + 1}`),
      h(
        "span",
        { class: "st-round-flow" },
        carries(r.unknown_in),
        h("span", { "aria-label": "becomes" }, " → "),
        carries(r.unknown_out),
      ),
      r.turned.length
        ? h(
            "ul",
            { class: "st-round-why" },
            r.turned.map((c, i) => h("li", { "data-carry": c }, richText(r.why[i] ?? `carry ${c} turns unknown`))),
          )
        : h("p", { class: "st-round-why" }, n === last ? "no carry turns: the fixpoint" : "no carry turns"),
    ),
  );
  const carried = (call.carries ?? []).map((c) => `\`${c}\``).join(", ");
  return section(
    { class: "st-rounds", "data-testid": "call-rounds" },
    "h4",
    "The carries' fixpoint, round by round",
    richText(
      `Each round: the carries (${carried || "none"}) going into the body → coming out (K known, U unknown). ` +
        "A carry the body makes unknown is unknown on the next round too: the rule runs again until no carry turns. " +
        "The rounds name the body's variables as it was traced:",
    ),
    h(
      "div",
      { class: "st-rounds-grid" },
      h("pre", { class: "st-pre st-call-body", "data-testid": "call-body", tabindex: "0" }, call.program?.text ?? ""),
      h("ol", null, items),
    ),
  );
}

/** What the inner split keeps and, for a checkpoint, what the unknown program runs again:
 *  counted as the residuals are (one traced equation, one saved output), so the numbers
 *  agree with the residuals listed under it. @param {CallSplit} call */
function rematNote(call) {
  /** @param {number} k @param {string} one @param {string} many */
  const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  const saved = call.residuals.filter((r) => r.producer != null).length;
  const forwarded = call.residuals.length - saved;
  const remat = call.primitive === "remat2";
  const kept =
    `${n(call.residuals.length, "residual", "residuals")} kept: ` +
    `${n(saved, "output", "outputs")} of the equations marked saved${remat ? " (what the policy saves)" : ""}` +
    (forwarded ? ` and ${n(forwarded, "input", "inputs")} passed on as they are` : "");
  const text = remat
    ? `checkpoint: ${kept}; ${n(call.recomputed.length, "equation", "equations")} recomputed in the unknown ` +
      "program (the backward pass runs them again instead of keeping their outputs)."
    : `${kept}.`;
  return h("p", { class: "st-call-note", "data-testid": "call-remat" }, text);
}

// jax/_src/ad_checkpoint.py (remat_partial_eval, _insert_reduce_precision), said once where
// the equation appears
export const REDUCE_PRECISION_WHY =
  "reduce_precision rounds each residual a checkpoint saves to its own dtype, so that XLA's " +
  "excess precision cannot give the forward pass and the recomputation in the backward pass " +
  "different values (JAX inserts it on every saved residual's producer).";

const hasReducePrecision = (/** @type {string[]} */ texts) => texts.some((t) => /= reduce_precision\[/.test(t));

/** The sentence on reduce_precision, under the inner programs that hold one (else null).
 *  @param {CallSplit} call */
function reducePrecisionNote(call) {
  if (!hasReducePrecision(call.panes.flatMap((p) => p.program.eqns))) return null;
  return h("p", { class: "st-call-note st-why", "data-testid": "reduce-precision-why" }, REDUCE_PRECISION_WHY);
}

/** @param {CallSplit} call */
function residualLine(call) {
  return h(
    "p",
    { class: "st-call-note" },
    `residuals of ${call.title}: `,
    call.residuals.map((r, k) =>
      h(
        "code",
        { class: "st-call-res" },
        `r${k} ${r.known_name || "(a constant of the call)"} → ${r.unknown_name} ${r.aval}`,
      ),
    ),
  );
}

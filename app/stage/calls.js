// A call equation opened in place. The engine splits every call (jit, remat2, scan, cond,
// while) by the same rule as the outer program and hands that split over as the event's
// `call` (a CallSplit of the record contract). The toggle on the call's row opens it under the
// row: the inner known and unknown programs (rows with data-depth 1, and 2, ... for calls
// inside calls), scan's and while's carry fixpoint round by round, remat's saved and
// recomputed equations, the call's own residuals, every branch of a cond. Built when first
// opened, then kept.

import { h, richText } from "./dom.js";

/** @typedef {import("../contract/record.js").CallSplit} CallSplit */

const BADGE = { known: "K", unknown: "U" };

/**
 * A toggle for a call's row. Opening inserts the call's split after `row` in its list.
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
  let split = null;
  btn.addEventListener("click", (e) => {
    e.stopPropagation(); // the row's own click (a step) is not this
    const open = btn.getAttribute("aria-expanded") !== "true";
    if (open && !split) split = renderCallSplit(call, depth);
    if (open) row.after(split);
    else split?.remove();
    btn.setAttribute("aria-expanded", String(open));
    btn.firstElementChild.textContent = open ? "▾ " : "▸ ";
    btn.lastChild.textContent = open ? "close" : "open";
    btn.setAttribute("aria-label", `${open ? "Close" : "Open"} ${call.title}: the split of its inner program`);
  });
  return btn;
}

/** The split of one call, as an <li> that sits in its parent's list of equations. */
export function renderCallSplit(call, depth) {
  const inputs = call.inputs_known.map((k, i) =>
    h("span", { class: `st-call-in st-call-in--${k ? "known" : "unknown"}` }, `in${i} ${k ? "known" : "unknown"}`),
  );
  const head = h(
    "div",
    { class: "st-call-head" },
    h("strong", null, call.title),
    h("span", { class: "st-muted" }, ": its own split, by the same rule. Its inputs as the rule saw them:"),
    inputs,
  );
  const places = placesOf(call);
  const panes = call.panes
    .filter((p) => p.role === "known" || p.role === "unknown")
    .map((p) => innerPane(call, p, places, depth));
  // an <li> of its parent's list of equations, holding a group (a list holds list items only)
  return h(
    "li",
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
      call.residuals.length ? residualLine(call) : null,
      // a cond: its other branches, split under the same unknowns, at the same depth
      call.branches?.length
        ? h(
            "ol",
            { class: "st-call-branches" },
            call.branches.map((b) => renderCallSplit(b, depth)),
          )
        : null,
    ),
  );
}

/** For each pane role, which inner event each equation is. */
function placesOf(call) {
  const of = { known: new Map(), unknown: new Map() };
  call.events.forEach((ev, i) => {
    for (const j of ev.known_eqns ?? []) of.known.set(j, i);
    for (const j of ev.unknown_eqns ?? []) of.unknown.set(j, i);
  });
  return of;
}

function innerPane(call, pane, places, depth) {
  const role = pane.role;
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
      "data-remat": remat,
      tabindex: "-1",
    });
    li.append(
      h(
        "span",
        { class: "st-eqn-main" },
        h("span", { class: `st-badge st-badge--${role}`, "aria-hidden": "true" }, BADGE[role]),
        h("code", { class: "st-eqn-text" }, text),
      ),
    );
    const tags = h("span", { class: "st-eqn-tags" });
    if (remat) tags.append(h("span", { class: `st-remat st-remat--${remat}` }, remat));
    if (ev?.call) tags.append(callToggle(li, ev.call, depth + 1));
    if (tags.childNodes.length) li.append(tags);
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

/** scan / while: the carries' fixpoint, one round after another. */
function renderRounds(call) {
  const carries = (flags) =>
    flags.map((u, c) =>
      // short chips (c0 K, c1 U) keep a round on one line in a narrow pane; the name is said
      h(
        "span",
        {
          class: `st-call-in st-call-in--${u ? "unknown" : "known"}`,
          role: "img",
          "aria-label": `carry ${c} ${u ? "unknown" : "known"}`,
        },
        `c${c} ${u ? "U" : "K"}`,
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
  return h(
    "section",
    { class: "st-rounds", "data-testid": "call-rounds" },
    h("h4", null, "The carries' fixpoint, round by round"),
    h(
      "p",
      { class: "st-muted" },
      "Each round: the carries going into the body → coming out (K known, U unknown). A carry " +
        "the body makes unknown is unknown on the next round too: the rule runs again until no carry turns.",
    ),
    h("ol", null, items),
  );
}

/** What the inner split keeps (saved: outputs that become residuals) and, for a checkpoint,
 *  what the unknown program runs again instead of keeping. */
function rematNote(call) {
  const n = (k, one) => `${k} equation${k === 1 ? "" : "s"} ${one}`;
  // counted as printed: one traced operation may print as several equations
  const rows = (events, key) => events.reduce((sum, i) => sum + (call.events[i]?.[key]?.length ?? 0), 0);
  const saved = `${n(rows(call.saved, "known_eqns"), "saved")} (their outputs are residuals)`;
  const text =
    call.primitive === "remat2"
      ? `checkpoint: ${saved}; ${n(rows(call.recomputed, "unknown_eqns"), "recomputed")} in the unknown program ` +
        "(the backward pass runs them again instead of keeping their outputs)."
      : `${saved}.`;
  return h("p", { class: "st-call-note", "data-testid": "call-remat" }, text);
}

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

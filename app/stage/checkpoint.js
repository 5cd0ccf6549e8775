// Checkpoint (remat) records: policies side by side, what each saves and what it recomputes.
// Schema: {mode:'checkpoint', policies:[{name, label?, residual_count, residual_bytes, account,
// recomputed, panes:[{id,title,program}], saved_residuals|residuals:[{aval, description}]}],
// selected: name or index, pending_policies?: [name]}. When the record also carries the
// selected policy's split (panes/events/residuals), the stage animates it below these cards
// (`animated: true`). A pending policy (still being computed, app/page/pending-policies.js)
// holds its place in the grid as a placeholder card until its answer is merged in.

import { POLICY_ROWS } from "../contract/values.js";
import { add, copyText, formatBytes, h, lazyDetails, openDetails } from "./dom.js";
import { accountData, accountText } from "./memory-account.js";

/**
 * @param {import("../contract/record.js").CheckpointRecord} record
 * @param {{onLink?: (link: import("./model.js").Link | null) => void, animated?: boolean}} [options]
 */
export function renderCheckpoint(record, { onLink, animated = false } = {}) {
  const policies = record.policies || [];
  const selected =
    typeof record.selected === "number"
      ? record.selected
      : Math.max(
          0,
          policies.findIndex((p) => p.name === record.selected),
        );
  const maxBytes = Math.max(1, ...policies.map((p) => p.account.total_bytes));
  const cards = policies.map((p, i) => {
    const isSel = i === selected;
    const bytes = p.account.total_bytes;
    const fill = h("span", { class: "st-bar-fill" });
    fill.style.width = `${Math.max(bytes ? 2 : 0, (100 * bytes) / maxBytes).toFixed(1)}%`;
    const bar = h(
      "div",
      {
        class: "st-bar",
        role: "img",
        "aria-label": `${formatBytes(bytes)} saved, of at most ${formatBytes(maxBytes)}`,
      },
      fill,
    );
    const saved = p.saved_residuals;
    // JAX's print_saved_residuals wording: "f32[] output of cos from line 3 (f)"
    const resList = h(
      "ul",
      { class: "st-ckpt-res", "aria-label": "Saved residuals" },
      saved.map((r, k) => {
        const li = h("li", { "data-saved": k }, h("code", null, `${r.aval} ${r.description}`));
        if (r.line != null) {
          li.tabIndex = 0;
          const link = { line: r.line };
          li.addEventListener("mouseenter", () => onLink?.(link));
          li.addEventListener("focus", () => onLink?.(link));
          li.addEventListener("mouseleave", () => onLink?.(null));
          li.addEventListener("blur", () => onLink?.(null));
        }
        return li;
      }),
    );
    if (!saved.length) add(resList, h("li", { class: "st-muted" }, "nothing saved"));
    const programs = () =>
      (p.panes || []).map((pane) => {
        const btn = h("button", { type: "button", class: "st-btn st-btn--small" }, "Copy");
        btn.addEventListener("click", async () => {
          btn.textContent = (await copyText(pane.program?.text ?? "")) ? "Copied" : "Copy failed";
          setTimeout(() => {
            btn.textContent = "Copy";
          }, 1600);
        });
        return h(
          "div",
          { class: "st-ckpt-prog", "data-pane": pane.id },
          h("div", { class: "st-ckpt-prog-head" }, h("h5", null, pane.title || pane.id), btn),
          h("pre", { class: "st-pre", tabindex: "0" }, pane.program?.text ?? ""),
        );
      });
    const details = lazyDetails({ class: "st-ckpt-details" }, "Programs", programs);
    if (isSel && !animated) openDetails(details);
    return h(
      "article",
      {
        class: "st-policy",
        "data-testid": "policy-card",
        "data-policy": p.name,
        "data-selected": isSel ? "true" : "false",
        "aria-current": isSel ? "true" : null,
      },
      h(
        "h4",
        null,
        h("code", null, p.label || p.name),
        isSel ? h("span", { class: "st-pill" }, animated ? "selected: animated below" : "selected") : null,
      ),
      h(
        "dl",
        { class: "st-ckpt-stats" },
        h(
          "div",
          null,
          h("dt", null, "Saved"),
          h("dd", null, `${p.residual_count} residual${p.residual_count === 1 ? "" : "s"}`),
        ),
        h(
          "div",
          null,
          h("dt", null, "Memory"),
          h(
            "dd",
            { class: "st-ckpt-total", "data-testid": "policy-total", ...accountData(p.account) },
            accountText(p.account),
          ),
        ),
        h(
          "div",
          null,
          h("dt", null, "Recomputed"),
          h("dd", null, `${p.recomputed ?? 0} equation${p.recomputed === 1 ? "" : "s"}`),
        ),
      ),
      bar,
      resList,
      details,
    );
  });
  return h(
    "section",
    { class: "st-ckpt", "data-testid": "checkpoint", "data-animated": animated ? "true" : null },
    h(
      "div",
      { class: "st-ckpt-head" },
      h("h3", null, "Checkpoint policies"),
      h(
        "p",
        { class: "st-muted" },
        "Each policy decides which known values the backward pass may save (residuals) and " +
          "which it must recompute. Fewer bytes saved means more work recomputed.",
      ),
    ),
    h("div", { class: "st-ckpt-grid" }, inRowOrder(policies, cards, record.pending_policies ?? [])),
  );
}

/** The cards, and a placeholder for each pending policy, in POLICY_ROWS order.
 *  @param {import("../contract/record.js").Policy[]} policies @param {HTMLElement[]} cards cards[i]: policies[i]'s
 *  @param {string[]} pending */
function inRowOrder(policies, cards, pending) {
  if (!pending.length) return cards;
  const rank = (/** @type {string} */ name) => POLICY_ROWS.indexOf(name);
  const placed = policies.map((p, i) => ({ rank: rank(p.name), el: cards[i] }));
  for (const name of pending) placed.push({ rank: rank(name), el: pendingCard(name) });
  return placed.sort((a, b) => a.rank - b.rank).map((c) => c.el);
}

/** @param {string} name */
function pendingCard(name) {
  return h(
    "article",
    {
      class: "st-policy st-policy--pending",
      "data-testid": "policy-pending",
      "data-policy": name,
      "aria-busy": "true",
    },
    h("h4", null, h("code", null, name)),
    h("p", { class: "st-muted" }, "computing…"),
  );
}

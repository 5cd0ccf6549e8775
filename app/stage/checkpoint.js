// Checkpoint (remat) records: policies side by side, what each saves and what it recomputes.
// Tentative schema: {mode:'checkpoint', policies:[{name, residual_count, residual_bytes,
// recomputed, panes:[{id,title,program}], residuals:[{..., description}]}], selected}

import { copyText, formatBytes, h } from "./dom.js";

export function renderCheckpoint(record, { onLink } = {}) {
  const policies = record.policies || [];
  const selected = typeof record.selected === "number"
    ? record.selected
    : Math.max(0, policies.findIndex((p) => p.name === record.selected));
  const maxBytes = Math.max(1, ...policies.map((p) => p.residual_bytes || 0));
  const cards = policies.map((p, i) => {
    const isSel = i === selected;
    const bytes = p.residual_bytes || 0;
    const fill = h("span", { class: "st-bar-fill" });
    fill.style.width = `${Math.max(bytes ? 2 : 0, (100 * bytes) / maxBytes).toFixed(1)}%`;
    const bar = h("div", {
      class: "st-bar", role: "img",
      "aria-label": `${formatBytes(bytes)} saved, of at most ${formatBytes(maxBytes)}`,
    }, fill);
    const resList = h("ul", { class: "st-ckpt-res" }, (p.residuals || []).map((r, k) => {
      const li = h("li", { tabindex: "0", "data-residual": k },
        h("span", { class: "st-rtag" }, `r${k}`), " ",
        h("code", null, r.description || `${r.aval} ${r.known_name}`));
      const link = { residual: k, policy: i, event: r.producer ?? undefined };
      li.addEventListener("mouseenter", () => onLink?.(link));
      li.addEventListener("focus", () => onLink?.(link));
      li.addEventListener("mouseleave", () => onLink?.(null));
      li.addEventListener("blur", () => onLink?.(null));
      return li;
    }));
    if (!(p.residuals || []).length) resList.append(h("li", { class: "st-muted" }, "nothing saved"));
    const progs = (p.panes || []).map((pane) => {
      const btn = h("button", { type: "button", class: "st-btn st-btn--small" }, "Copy");
      btn.addEventListener("click", async () => {
        btn.textContent = (await copyText(pane.program?.text ?? "")) ? "Copied" : "Copy failed";
        setTimeout(() => { btn.textContent = "Copy"; }, 1600);
      });
      return h("div", { class: "st-ckpt-prog", "data-pane": pane.id },
        h("div", { class: "st-ckpt-prog-head" }, h("h5", null, pane.title || pane.id), btn),
        h("pre", { class: "st-pre", tabindex: "0" }, pane.program?.text ?? ""));
    });
    const details = h("details", { class: "st-ckpt-details" },
      h("summary", null, "Forward and backward programs"), progs);
    details.open = isSel;
    return h("article", {
      class: "st-policy", "data-testid": "policy", "data-policy": p.name,
      "data-selected": isSel ? "true" : "false", "aria-current": isSel ? "true" : null,
    },
    h("h4", null, h("code", null, p.name), isSel ? h("span", { class: "st-pill" }, "selected") : null),
    h("dl", { class: "st-ckpt-stats" },
      h("div", null, h("dt", null, "Saved"), h("dd", null,
        `${p.residual_count ?? (p.residuals || []).length} residual`
        + `${(p.residual_count ?? (p.residuals || []).length) === 1 ? "" : "s"}`)),
      h("div", null, h("dt", null, "Memory"), h("dd", null, formatBytes(bytes))),
      h("div", null, h("dt", null, "Recomputed"), h("dd", null,
        `${p.recomputed ?? 0} equation${p.recomputed === 1 ? "" : "s"}`))),
    bar, resList, details);
  });
  return h("section", { class: "st-ckpt", "data-testid": "checkpoint" },
    h("div", { class: "st-ckpt-head" },
      h("h3", null, "Checkpoint policies"),
      h("p", { class: "st-muted" },
        "Each policy decides which known values the backward pass may save (residuals) and "
        + "which it must recompute. Fewer bytes saved means more work recomputed.")),
    h("div", { class: "st-ckpt-grid" }, cards));
}

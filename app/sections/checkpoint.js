// Section 3: checkpoint is a predicate. The demo's own function under every policy side by
// side (the checkpoint record's policies[]): what each may save, the bytes saved, the count
// of equations recomputed in the linear program.
import { h, formatBytes, waitingNote, errorNote, programPre, textOf } from "./util.js";
import { createMiniEditor } from "./mini-editor.js";

export const CHECKPOINT_CODE = `import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

def loss(W1, W2, x):
    h = checkpoint_name(jnp.tanh(W1 @ x), "h")
    y = W2 @ h
    return jnp.sum(jnp.sin(y) * y)
`;
export const CHECKPOINT_VALUES = { W1: "full((32, 16), 0.1)", W2: "full((8, 32), 0.1)", x: "full((16, 64), 0.5)" };
export const CHECKPOINT_POLICY = "nothing_saveable";

const PREDICATE = {
  "no checkpoint": "no policy: every value the linear program reads is saved",
  everything_saveable: "lambda *_, **__: True",
  nothing_saveable: "lambda *_, **__: False  (the default)",
  dots_saveable: "True for dot_general and conv_general_dilated",
  dots_with_no_batch_dims_saveable: "True for dot_general without batch dimensions",
  save_only_these_names: "True only for values named by checkpoint_name in the list",
  save_any_names_but_these: "True for named values not in the list",
};

export function createCheckpointDemo(el, ctx) {
  let record = null;
  let error = null;
  let wantedKey = null;
  let shownPolicy = "dots_saveable";
  const editor = createMiniEditor({
    id: "ckpt", code: CHECKPOINT_CODE, values: CHECKPOINT_VALUES, label: "The demo's function",
    onChange: (kw) => load(kw),
  });
  const body = h("div", { class: "ckpt-body" });
  el.replaceChildren(editor.el, body);

  function load(kw) {
    const kwargs = { ...kw, policy: CHECKPOINT_POLICY };
    const key = JSON.stringify(["checkpoint", kwargs]);
    if (key === wantedKey && (record || error)) return;
    wantedKey = key;
    const hit = ctx.cached("checkpoint", kwargs);
    if (hit) { take(hit); return; }
    el.classList.add("is-updating");
    if (!record) draw();
    ctx.request("checkpoint", kwargs, { stillWanted: () => wantedKey === key }).then((rec) => {
      if (wantedKey === key && rec) take(rec);
    });
  }

  function take(rec) {
    el.classList.remove("is-updating");
    if (rec.error) error = rec; else { error = null; record = rec; }
    draw();
  }

  function draw() {
    body.replaceChildren();
    if (error) body.append(errorNote(error));
    if (!record) { if (!error) body.append(waitingNote(ctx.engine)); return; }
    const pols = record.policies;
    const maxBytes = Math.max(1, ...pols.map((p) => p.residual_bytes));
    const maxRe = Math.max(1, ...pols.map((p) => p.recomputed));
    const cards = h("ul", { class: "ckpt-cards", "data-testid": "policy-cards" });
    for (const p of pols) {
      const args = p.saved_residuals.filter((s) => s.description.startsWith("from the argument"));
      const acts = p.saved_residuals.filter((s) => !s.description.startsWith("from the argument"));
      const actBytes = acts.reduce((s, r) => s + r.bytes, 0);
      cards.append(h("li", {
        class: `ckpt-card${p.name === "no checkpoint" ? " is-baseline" : ""}`,
        "data-testid": `policy-card-${p.name.replaceAll(" ", "-")}`,
        "data-bytes": String(p.residual_bytes), "data-recomputed": String(p.recomputed),
        "data-count": String(p.residual_count),
      },
      h("h4", null, h("code", null, p.label)),
      h("p", { class: "ckpt-pred" }, h("code", null, PREDICATE[p.name] ?? "")),
      h("div", { class: "ckpt-metric" },
        h("span", { class: "ckpt-metric-label" }, "saved"),
        h("span", { class: "ckpt-bar ckpt-bar-bytes", "aria-hidden": "true" }, h("span", { style: `width:${((100 * p.residual_bytes) / maxBytes).toFixed(1)}%` })),
        h("span", { class: "ckpt-metric-val" }, `${formatBytes(p.residual_bytes)} · ${p.residual_count} res.`)),
      h("div", { class: "ckpt-metric" },
        h("span", { class: "ckpt-metric-label" }, "recomputed"),
        h("span", { class: "ckpt-bar ckpt-bar-re", "aria-hidden": "true" }, h("span", { style: `width:${((100 * p.recomputed) / maxRe).toFixed(1)}%` })),
        h("span", { class: "ckpt-metric-val" }, `${p.recomputed} equation${p.recomputed === 1 ? "" : "s"}`)),
      h("details", { class: "ckpt-saved" },
        h("summary", null, `${acts.length} activation${acts.length === 1 ? "" : "s"} (${formatBytes(actBytes)}) + ${args.length} input${args.length === 1 ? "" : "s"} kept`),
        h("ul", null, p.saved_residuals.map((s) => h("li", { class: s.description.startsWith("from the argument") ? "is-input" : "" },
          h("code", null, s.aval), " ", s.description))))));
    }
    const pick = h("select", { "aria-label": "Policy whose linear program is shown", "data-testid": "ckpt-linear-policy" },
      pols.map((p) => h("option", { value: p.name, selected: p.name === shownPolicy }, p.label)));
    const linWrap = h("div", { class: "ckpt-linear" });
    const showLinear = () => {
      const p = pols.find((x) => x.name === shownPolicy) ?? pols[0];
      const lin = p.panes?.find((x) => x.id === "linear")?.program;
      linWrap.replaceChildren(
        h("p", { class: "x-caption" }, `${p.recomputed} equation${p.recomputed === 1 ? "" : "s"} in it read no tangent: they recompute forward values that ${p.label} did not let the forward pass save.`),
        programPre(textOf(lin), { label: `Linear program under ${p.label}`, testid: "ckpt-linear" }));
    };
    pick.addEventListener("change", () => { shownPolicy = pick.value; showLinear(); });
    showLinear();
    body.append(
      h("p", { class: "x-args" }, `${record.fn}(`, record.args.map((a, i) => [i ? ", " : "", h("code", null, `${a.name}:${a.aval}`)]), ")",
        record.names?.length ? [" · names: ", record.names.map((n) => h("code", null, `'${n}'`))] : ""),
      cards,
      h("details", { class: "ckpt-linear-box" },
        h("summary", null, "The linear program under a policy, recomputations included"),
        h("label", null, "Policy ", pick), linWrap));
  }

  return {
    follows: false,
    refresh() { load(editor.request()); },
    onEngineState() { if (!record) draw(); },
  };
}

// Section 3: checkpoint is a predicate. The demo's own function under every policy side by
// side (the checkpoint record's policies[]): what each may save, the bytes saved, the count
// of equations recomputed in the linear program.
import { h, formatBytes, programPre, drawFrame } from "./util.js";
import { createLoader } from "./loader.js";
import { createMiniEditor } from "./mini-editor.js";
import { CHECKPOINT_CODE, CHECKPOINT_VALUES, checkpointRequest } from "./requests.js";
import { accountData, accountParts } from "../stage/memory-account.js";

/** @import { CheckpointRecord, EngineAnswer, ErrorRecord } from "../contract/record.js" */
/** @import { FunctionKwargs } from "./requests.js" */

/** @type {Record<string, string>} */
const PREDICATE = {
  "no checkpoint": "no policy: every value the linear program reads is saved",
  everything_saveable: "lambda *_, **__: True",
  nothing_saveable: "lambda *_, **__: False  (the default)",
  dots_saveable: "True for dot_general and conv_general_dilated",
  dots_with_no_batch_dims_saveable: "True for dot_general without batch dimensions",
  save_only_these_names: "True only for values named by checkpoint_name in the list",
  save_any_names_but_these: "True for named values not in the list",
};

/** One of a policy card's bars: what it measures, how full (0..1), the figure.
 *  @param {string} label @param {string} kind @param {number} fraction @param {string} text */
function metric(label, kind, fraction, text) {
  return h(
    "div",
    { class: "ckpt-metric" },
    h("span", { class: "ckpt-metric-label" }, label),
    h(
      "span",
      { class: `ckpt-bar ckpt-bar-${kind}`, "aria-hidden": "true" },
      h("span", { style: `width:${(100 * fraction).toFixed(1)}%` }),
    ),
    h("span", { class: "ckpt-metric-val" }, text),
  );
}

/** @param {HTMLElement} el @param {import("./index.js").SectionContext} ctx */
export function createCheckpointDemo(el, ctx) {
  /** @type {CheckpointRecord | null} */
  let record = null;
  /** @type {ErrorRecord | null} */
  let error = null;
  const loader = createLoader(ctx, el);
  let shownPolicy = "dots_saveable";
  const editor = createMiniEditor({
    signature: ctx.signature,
    id: "ckpt",
    code: CHECKPOINT_CODE,
    values: CHECKPOINT_VALUES,
    label: "The demo's function",
    onChange: (/** @type {FunctionKwargs} */ kw) => load(kw),
  });
  const body = h("div", { class: "ckpt-body" });
  el.replaceChildren(editor.el, body);

  /** @param {FunctionKwargs} kw */
  function load(kw) {
    loader([checkpointRequest(kw)], {
      shown: Boolean(record || error),
      waiting: () => record || draw(),
      take: ([rec]) => take(rec),
    });
  }

  /** @param {EngineAnswer} rec a checkpoint request's */
  function take(rec) {
    if ("error" in rec) error = rec;
    else {
      error = null;
      record = /** @type {CheckpointRecord} */ (rec);
    }
    draw();
  }

  function draw() {
    if (!drawFrame(body, { error, ready: Boolean(record), engine: ctx.engine }) || !record) return;
    const pols = record.policies;
    const maxBytes = Math.max(1, ...pols.map((p) => p.account.total_bytes));
    const maxRe = Math.max(1, ...pols.map((p) => p.recomputed));
    const cards = h("ul", { class: "ckpt-cards", "data-testid": "policy-cards" });
    for (const p of pols) {
      cards.append(
        h(
          "li",
          {
            class: `ckpt-card${p.name === "no checkpoint" ? " is-baseline" : ""}`,
            "data-testid": `policy-card-${p.name.replaceAll(" ", "-")}`,
            "data-bytes": String(p.account.total_bytes),
            ...accountData(p.account),
            "data-recomputed": String(p.recomputed),
            "data-count": String(p.residual_count),
          },
          h("h4", null, h("code", null, p.label)),
          h("p", { class: "ckpt-pred" }, h("code", null, PREDICATE[p.name] ?? "")),
          metric(
            "saved",
            "bytes",
            p.account.total_bytes / maxBytes,
            `${formatBytes(p.account.total_bytes)} · ${p.residual_count} res.`,
          ),
          metric("recomputed", "re", p.recomputed / maxRe, `${p.recomputed} equation${p.recomputed === 1 ? "" : "s"}`),
          h(
            "details",
            { class: "ckpt-saved" },
            h("summary", null, accountParts(p.account)),
            h(
              "ul",
              null,
              p.saved_residuals.map((s) =>
                h(
                  "li",
                  { class: /^from (the argument|a constant)/.test(s.description) ? "is-input" : "" },
                  h("code", null, s.aval),
                  " ",
                  s.description,
                ),
              ),
            ),
          ),
        ),
      );
    }
    const pick = h(
      "select",
      { "aria-label": "Policy whose linear program is shown", "data-testid": "ckpt-linear-policy" },
      pols.map((p) => h("option", { value: p.name, selected: p.name === shownPolicy }, p.label)),
    );
    const linWrap = h("div", { class: "ckpt-linear" });
    const showLinear = () => {
      const p = pols.find((x) => x.name === shownPolicy) ?? pols[0];
      const lin = p.panes?.find((x) => x.id === "linear")?.program;
      linWrap.replaceChildren(
        h(
          "p",
          { class: "x-caption" },
          `${p.recomputed} equation${p.recomputed === 1 ? "" : "s"} in it read no tangent: they recompute forward values that ${p.label} did not let the forward pass save.`,
        ),
        programPre(lin ?? null, { label: `Linear program under ${p.label}`, testid: "ckpt-linear" }),
      );
    };
    pick.addEventListener("change", () => {
      shownPolicy = pick.value;
      showLinear();
    });
    showLinear();
    body.append(
      h(
        "p",
        { class: "x-args" },
        `${record.fn}(`,
        record.args.map((a, i) => [i ? ", " : "", h("code", null, `${a.name}:${a.aval}`)]),
        ")",
        record.names?.length ? [" · names: ", record.names.map((n) => h("code", null, `'${n}'`))] : "",
      ),
      cards,
      h(
        "details",
        { class: "ckpt-linear-box" },
        h("summary", null, "The linear program under a policy, recomputations included"),
        h("label", null, "Policy ", pick),
        linWrap,
      ),
    );
  }

  return {
    follows: false,
    refresh() {
      load(editor.request());
    },
    onEngineState() {
      if (!record) draw();
    },
  };
}

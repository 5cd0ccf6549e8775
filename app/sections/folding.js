// Section 4: why sin(1.0) stays an equation inside jit. The demo's own function staged by
// DynamicJaxprTrace (jit record), the engine's const_fold_rules, the eager_constant_folding
// switch, and the same code under JaxprTrace, where sin(1.0) is computed now (interpreters).
import { h, programPre, drawFrame } from "./util.js";
import { createLoader } from "./loader.js";
import { createMiniEditor } from "./mini-editor.js";
import { FOLDING_CODE, FOLDING_VALUES, foldingRequests } from "./requests.js";

/** @import { EngineAnswer, ErrorRecord, InterpretersRecord, JitRecord } from "../contract/record.js" */
/** @import { FunctionKwargs } from "./requests.js" */

/** @param {HTMLElement} el @param {import("./index.js").SectionContext} ctx */
export function createFoldingDemo(el, ctx) {
  let folding = false;
  /** @type {FunctionKwargs | null} */
  let kw = null;
  /** @type {{jit: JitRecord | null, pe: InterpretersRecord | null}} */
  const recs = { jit: null, pe: null };
  /** @type {ErrorRecord | null} */
  let error = null;
  const loader = createLoader(ctx, el);
  const editor = createMiniEditor({
    signature: ctx.signature,
    id: "fold",
    code: FOLDING_CODE,
    values: FOLDING_VALUES,
    label: "The demo's function",
    rows: 5,
    onChange: (/** @type {FunctionKwargs} */ k) => {
      kw = k;
      load();
    },
  });
  const state = h("span", { class: "x-switch-state" }, " off");
  const sw = h(
    "button",
    {
      type: "button",
      role: "switch",
      class: "x-switch",
      "aria-checked": "false",
      "data-testid": "folding-switch",
    },
    h("span", { class: "x-switch-track", "aria-hidden": "true" }, h("span", { class: "x-switch-thumb" })),
    h("code", null, "eager_constant_folding"),
    state,
  );
  sw.addEventListener("click", () => {
    folding = !folding;
    sw.setAttribute("aria-checked", String(folding));
    state.textContent = folding ? " on" : " off";
    load();
  });
  const body = h("div", { class: "fold-body" });
  el.replaceChildren(
    editor.el,
    h(
      "div",
      { class: "x-controls fold-switch" },
      sw,
      h("span", { class: "x-hint" }, "as ", h("code", null, "jax.ensure_compile_time_eval()"), " sets it"),
    ),
    body,
  );

  function load() {
    if (!kw) kw = editor.request();
    loader(foldingRequests(kw, folding), { waiting: () => recs.jit || draw(), take });
  }

  /** @param {EngineAnswer[]} answers foldingRequests': the jit record, then the interpreters one */
  function take([j, p]) {
    const bad = "error" in j ? j : "error" in p ? p : null;
    if (bad) error = bad;
    else {
      error = null;
      recs.jit = /** @type {JitRecord} */ (j);
      recs.pe = /** @type {InterpretersRecord} */ (p);
    }
    draw();
  }

  function draw() {
    if (!drawFrame(body, { error, ready: Boolean(recs.jit), engine: ctx.engine })) return;
    const jit = recs.jit;
    if (!jit || !recs.pe) return; // taken together: ready
    const pe = recs.pe.jaxpr_trace;
    const prog = programPre(jit.program, { label: "The jaxpr jit stages", testid: "folding-program" });
    // Light the equations whose every input is a constant (staged all the same).
    const allConst = jit.events.filter((e) => e.all_constant);
    const table = new Set(jit.const_fold_rules);
    const rules = h(
      "ul",
      { class: "fold-rules", "data-testid": "engine-fold-rules" },
      jit.const_fold_rules.map((r) => h("li", null, h("code", null, r))),
    );
    const verdicts = allConst.map((e) =>
      h(
        "li",
        { "data-testid": "folding-verdict" },
        h("code", null, e.short),
        " · ",
        h("code", null, e.primitive),
        table.has(e.primitive) ? " has a folding rule" : " is not in the table, so it is staged",
      ),
    );
    const consts = jit.consts?.length
      ? h(
          "p",
          { class: "x-caption", "data-testid": "folding-consts" },
          "Computed while tracing and carried as constvars: ",
          jit.program.constvars.map((c, i) => [i ? ", " : "", h("code", null, `${c.name} = ${jit.consts[i]}`)]),
        )
      : null;
    const peConsts = pe.program.constvars.map((c, i) =>
      h("li", null, h("code", null, `${c.name} = ${pe.residuals[i]}`)),
    );
    body.append(
      h(
        "div",
        { class: "fold-grid" },
        h(
          "div",
          { class: "fold-col" },
          h("h4", null, "Staged by jit ", h("span", { class: "x-muted" }, "(DynamicJaxprTrace)")),
          prog,
          consts ?? "",
          allConst.length
            ? h("ul", { class: "fold-verdicts" }, verdicts)
            : h(
                "p",
                { class: "x-caption", "data-testid": "folding-none" },
                folding
                  ? "No equation has only constant inputs: with the switch on, they were computed while tracing."
                  : "No equation has only constant inputs.",
              ),
          h(
            "p",
            { class: "x-caption" },
            "The engine's ",
            h("code", null, "const_fold_rules"),
            ` has ${jit.const_fold_rules.length} entries:`,
          ),
          rules,
        ),
        h(
          "div",
          { class: "fold-col" },
          h("h4", null, "Partially evaluated ", h("span", { class: "x-muted" }, "(JaxprTrace, inputs unknown)")),
          programPre(pe.program, { label: "The unknown jaxpr JaxprTrace builds", testid: "folding-pe-program" }),
          peConsts.length
            ? [
                h(
                  "p",
                  { class: "x-caption" },
                  "Computed during the trace and carried into the program as constvars, that is, residuals:",
                ),
                h("ul", { class: "fold-pe-consts", "data-testid": "folding-pe-consts" }, peConsts),
              ]
            : h("p", { class: "x-caption" }, "No constant was carried: nothing known reached the recorded work."),
        ),
      ),
    );
  }

  return {
    follows: false,
    refresh() {
      load();
    },
    onEngineState() {
      if (!recs.jit) draw();
    },
  };
}

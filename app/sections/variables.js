// Section 5: where a jaxpr's variables come from. Every Var of the reader's function's jaxprs
// (the interpreters record's `variables` lists): its identity, the printer's letter, its
// recipe origin (LambdaBinding, ConstVar, FreeVar, equation, DropVar) or a Literal (no Var).
import { h, programPre, lightVar, drawFrame, argsLine } from "./util.js";
import { createFollowingDemo } from "./loader.js";

/** @import { ErrorRecord, InterpretersRecord, Variable } from "../contract/record.js" */
/** @import { SectionContext } from "./index.js" */

/** @type {Record<string, string>} */
const ORIGIN_TEXT = {
  LambdaBinding: "LambdaBinding",
  ConstVar: "ConstVar",
  FreeVar: "FreeVar",
  equation: "equation",
  DropVar: "DropVar",
  Literal: "Literal",
  invar: "input",
  constvar: "constvar",
};

/** @param {Variable[]} vars @param {HTMLElement} pre @param {string} caption @param {string} testid */
function varTable(vars, pre, caption, testid) {
  const body = h("tbody");
  for (const v of vars) {
    const row = h(
      "tr",
      { tabindex: "0", dataset: { origin: v.origin }, class: v.name === null ? "is-literal" : "" },
      h("th", { scope: "row" }, v.name === null ? h("span", { class: "x-muted" }, "none") : h("code", null, v.name)),
      h("td", { class: "var-repr" }, h("code", null, v.repr)),
      h("td", null, h("code", null, v.aval)),
      h("td", null, h("span", { class: "x-origin", "data-origin": v.origin }, ORIGIN_TEXT[v.origin] ?? v.origin)),
      h("td", null, v.role, v.value != null ? [" = ", h("code", null, v.value)] : ""),
    );
    const on = () => lightVar(pre, v.name);
    row.addEventListener("mouseenter", on);
    row.addEventListener("focus", on);
    row.addEventListener("mouseleave", () => lightVar(pre, null));
    row.addEventListener("blur", () => lightVar(pre, null));
    body.append(row);
  }
  return h(
    "div",
    { class: "x-table-wrap" },
    h(
      "table",
      { class: "x-table var-table", "data-testid": testid },
      h("caption", null, caption),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { scope: "col" }, "printed"),
          h("th", { scope: "col" }, "identity (repr)"),
          h("th", { scope: "col" }, "aval"),
          h("th", { scope: "col" }, "origin"),
          h("th", { scope: "col" }, "role"),
        ),
      ),
      body,
    ),
  );
}

/** @param {HTMLElement} el @param {SectionContext} ctx */
export function createVariablesDemo(el, ctx) {
  return createFollowingDemo(ctx, el, ["interpreters"], ({ answers, error }) => {
    if (!drawFrame(el, { error, ready: Boolean(answers), engine: ctx.engine })) return;
    const [record] = /** @type {[InterpretersRecord]} */ (answers); // the answer of an interpreters request
    const jt = record.jaxpr_trace;
    const dt = record.dynamic_trace;
    const mask = argsLine(record);
    const pre1 = programPre(jt.program, {
      label: "The unknown jaxpr JaxprTrace assembles",
      testid: "variables-pe-program",
    });
    const pre2 = programPre(dt.program, { label: "The jaxpr jit stages", testid: "variables-jit-program" });
    el.append(
      mask,
      h("h4", null, "Under JaxprTrace ", h("span", { class: "x-muted" }, "(your mask: the unknown program)")),
      pre1,
      varTable(jt.variables, pre1, "Variables of the jaxpr JaxprTrace assembled from recipes", "variables-pe"),
      h("h4", null, "Under DynamicJaxprTrace ", h("span", { class: "x-muted" }, "(jit: every input unknown)")),
      pre2,
      varTable(dt.variables, pre2, "Variables of the jaxpr jit staged", "variables-jit"),
      h(
        "p",
        { class: "x-caption" },
        "The ",
        h("code", null, "id"),
        " is the address of the Python object, different on every run; the letter is given by the printer. Focus or point at a row to light its variable in the program.",
      ),
    );
  });
}

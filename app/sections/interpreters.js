// Section 6: the reader's function under JaxprTrace and under DynamicJaxprTrace, side by
// side. JaxprTrace: what ran now (the split record's known events), the recipes hung on
// tracers (interpreters log), the jaxpr assembled at the end. DynamicJaxprTrace: equations in
// the order they were appended to the frame, and which an auto-DCE frame lets Python collect.
import { h, programPre, drawFrame } from "./util.js";
import { createFollowingDemo } from "./loader.js";

/** @import { ErrorRecord, InterpretersRecord, SplitRecord } from "../contract/record.js" */
/** @import { Child } from "./util.js" */

/**
 * The reader's code with an unused line before the last `return` of the last def, reading
 * its last parameter (`params`: the record's).
 * @param {string} code @param {string[]} params
 */
export function withUnusedLine(code, params) {
  if (!params.length || !/import\s+jax\.numpy\s+as\s+jnp/.test(code)) return null;
  const lines = code.split("\n");
  let i = lines.length - 1;
  while (i >= 0 && !/^\s+return\b/.test(lines[i])) i--;
  if (i < 0) return null;
  const indent = /^\s+/.exec(lines[i])?.[0] ?? ""; // lines[i] starts with blanks and a return
  lines.splice(i, 0, `${indent}unused = jnp.cos(${params[params.length - 1]})`);
  return lines.join("\n");
}

/** A list of `items` (each drawn by `item`), or a caption saying there are none.
 *  @template T @param {string} testid @param {string} none @param {T[]} items @param {(item: T) => Child} item */
function listOr(testid, none, items, item) {
  return items.length
    ? h("ul", { class: "int-list", "data-testid": testid }, items.map(item))
    : h("p", { class: "x-caption", "data-testid": testid }, none);
}

/**
 * A numbered step of an interpreter's column: its number, then its words.
 * @param {string} num @param {...any} words
 */
function step(num, ...words) {
  return h("p", { class: "int-step" }, h("span", { class: "int-num" }, num), ...words);
}

/** @param {HTMLElement} el @param {import("./index.js").SectionContext} ctx */
export function createInterpretersDemo(el, ctx) {
  return createFollowingDemo(ctx, el, ["split", "interpreters"], ({ answers, error }) => {
    if (!drawFrame(el, { error, ready: Boolean(answers), engine: ctx.engine })) return;
    // the answers of a split and an interpreters request; only the last is never an error
    const [split, rec] = /** @type {[SplitRecord | ErrorRecord, InterpretersRecord]} */ (answers);
    const jt = rec.jaxpr_trace;
    const dt = rec.dynamic_trace;
    const ran = ("error" in split ? [] : split.events).filter((e) => e.side === "known" || e.side === "known-dropped");
    const recipes = jt.log.filter((e) => e.decision !== "executed");
    const collected = dt.frame.filter((f) => f.collected);

    const left = h(
      "div",
      { class: "int-col int-pe", "data-testid": "interp-jaxprtrace" },
      h("h4", null, h("code", null, "JaxprTrace"), h("span", { class: "x-muted" }, " partial evaluation, your mask")),
      step("1", " Executed now"),
      listOr("interp-executed", "Nothing: no operation had only known inputs.", ran, (e) =>
        h(
          "li",
          { class: "is-known" },
          h("code", null, e.short),
          e.value && e.value[0] != null ? [" → ", h("code", null, e.value.join(", "))] : "",
        ),
      ),
      step("2", " Recipes hung on the outputs of the rest"),
      listOr("interp-recipes", "None: every operation ran.", recipes, (e) =>
        h(
          "li",
          { class: "is-unknown" },
          h("code", null, e.primitive),
          e.decision === "split"
            ? " split by its own rule"
            : [
                ` · JaxprEqnRecipe #${e.eqn_id}, inputs: `,
                (e.input_recipes ?? []).map((r, i) => [
                  i ? ", " : "",
                  h("span", { class: "x-origin", "data-origin": r }, r),
                ]),
              ],
        ),
      ),
      step("3", " Assembled at the end by ", h("code", null, "tracers_to_jaxpr")),
      programPre(jt.program, { label: "The jaxpr JaxprTrace assembled", testid: "interp-pe-program" }),
      jt.residuals.length
        ? h(
            "p",
            { class: "x-caption" },
            "With the residual values: ",
            jt.residuals.map((r, i) => [i ? ", " : "", h("code", null, `${jt.program.constvars[i].name} = ${r}`)]),
          )
        : "",
    );

    const frame = h(
      "ol",
      { class: "int-frame", "data-testid": "interp-frame", start: "0" },
      dt.frame.map((f) =>
        h(
          "li",
          { class: f.collected ? "is-collected" : "", "data-collected": String(f.collected) },
          h("code", null, f.short),
          f.collected ? h("span", { class: "x-badge x-badge-collected" }, "collected by auto_dce") : "",
        ),
      ),
    );
    const add = collected.length
      ? null
      : withUnusedLine(
          ctx.main?.kwargs?.source ?? "",
          (ctx.main?.record?.args ?? []).map((a) => a.name),
        );
    const right = h(
      "div",
      { class: "int-col int-dyn", "data-testid": "interp-dynamic" },
      h("h4", null, h("code", null, "DynamicJaxprTrace"), h("span", { class: "x-muted" }, " staging, as jit does")),
      step("1", " Every operation appended to the frame as it happens"),
      frame,
      collected.length
        ? h(
            "p",
            { class: "x-caption", "data-testid": "interp-collected" },
            `${collected.length} equation${collected.length === 1 ? "" : "s"} no output depends on: an `,
            h("code", null, "auto_dce=True"),
            " frame holds it only by a weak reference, so it is gone before the jaxpr is built.",
          )
        : h(
            "p",
            { class: "x-caption", "data-testid": "interp-collected" },
            "Every equation is used, so nothing is collected.",
            add
              ? [
                  " ",
                  h(
                    "button",
                    {
                      type: "button",
                      class: "action x-inline-btn",
                      "data-testid": "interp-add-unused",
                      onclick: () => ctx.explainer.setSource(add),
                    },
                    "Add an unused line to my function",
                  ),
                ]
              : "",
          ),
      step(
        "2",
        " The frame becomes the jaxpr: ",
        h("code", null, "jit"),
        ", ",
        h("code", null, "make_jaxpr"),
        " (auto_dce off)",
      ),
      programPre(dt.program, { label: "The jaxpr jit stages", testid: "interp-jit-program" }),
      step("3", " The same frame with ", h("code", null, "auto_dce=True")),
      programPre(dt.auto_dce_program, { label: "The jaxpr of an auto-DCE frame", testid: "interp-dce-program" }),
    );
    el.append(h("div", { class: "int-grid" }, left, right));
  });
}

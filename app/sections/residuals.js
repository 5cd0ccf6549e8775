// Section 2: residuals under grad, with their bytes, for the reader's function; a slider
// scales every array dimension of the inputs so the memory can be watched as shapes grow.
import { h, formatBytes, programPre, lightVar, drawFrame } from "./util.js";
import { createLoader } from "./loader.js";

/** @import { Arg, EngineAnswer, ErrorRecord, GradRecord, Residual } from "../contract/record.js" */
/** @import { FunctionKwargs } from "./requests.js" */

const SCALES = [1, 2, 4, 8, 16, 32];

/**
 * Inputs with every dimension (except 1s) times k; scalars keep their values.
 * @param {Array<{known: boolean, value: string}>} args the request's
 * @param {import("../contract/record.js").Arg[]} shapes the record's, for each input
 * @param {number} k
 */
export function scaledArgs(args, shapes, k) {
  if (k === 1) return args;
  // When every input is a scalar, the scalars become vectors of k elements; otherwise a
  // scalar stays a scalar (it broadcasts against anything).
  const allScalar = shapes.every((a) => a.shape.length === 0);
  return args.map((a, i) => {
    const av = shapes[i];
    if (!av || (av.shape.length === 0 && !allScalar)) return a;
    const dims = av.shape.length ? av.shape.map((d) => (d === 1 ? 1 : d * k)) : [k];
    const fill = ["f", "bf", "c"].some((kind) => av.dtype.startsWith(kind)) ? "0.5" : "1";
    const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(", ")})`;
    return { ...a, value: `full(${shape}, ${fill})` };
  });
}

/** @param {HTMLElement} el @param {import("./index.js").SectionContext} ctx */
export function createResidualsDemo(el, ctx) {
  let scaleIdx = 0;
  /** @type {GradRecord | null} */
  let record = null;
  /** @type {FunctionKwargs | null} the main kwargs the shapes are read from */
  let base = null;
  /** @type {Arg[] | null} */
  let avals = null;
  const loader = createLoader(ctx, el);
  /** @type {ErrorRecord | null} */
  let error = null;
  /** @type {Residual | null} the residual lit in both programs */
  let lit = null;

  const slider = h("input", {
    type: "range",
    min: "0",
    max: String(SCALES.length - 1),
    step: "1",
    value: "0",
    "data-testid": "residual-scale",
    "aria-label": "Scale every input dimension",
    "data-stage-keys": "off",
  });
  const scaleOut = h("output", { class: "x-scale-out", "data-testid": "residual-scale-out" }, "×1");
  let sliderTimer = 0;
  slider.addEventListener("input", () => {
    scaleIdx = Number(slider.value);
    scaleOut.textContent = `×${SCALES[scaleIdx]}`;
    clearTimeout(sliderTimer);
    sliderTimer = setTimeout(load, 200);
  });
  const controls = h(
    "div",
    { class: "x-controls x-slider" },
    h("label", null, "Scale every dimension of the inputs ", slider),
    " ",
    scaleOut,
  );
  const body = h("div", { class: "res-body" });
  el.replaceChildren(controls, body);

  function request() {
    if (!base) return null;
    const k = SCALES[scaleIdx];
    const args = avals ? scaledArgs(base.args, avals, k) : base.args;
    return { source: base.source, args };
  }

  function load() {
    const kw = request();
    if (!kw) {
      draw();
      return;
    }
    loader([{ mode: "grad", kwargs: kw }], {
      shown: Boolean(record || error),
      waiting: () => record || draw(),
      take: ([rec]) => take(rec),
    });
  }

  /** @param {EngineAnswer} rec a grad request's */
  function take(rec) {
    if ("error" in rec) {
      error = rec;
    } else {
      error = null;
      record = /** @type {GradRecord} */ (rec);
    }
    if (!avals && record && SCALES[scaleIdx] === 1) avals = record.args;
    draw();
  }

  /** @param {Residual} r */
  function sourceOf(r) {
    if (r.from_input) return { input: true, text: `input ${r.from_input}` };
    const ev = r.producer != null ? record?.events[r.producer] : null;
    return {
      input: false,
      text: ev ? `output of ${ev.primitive}${ev.line ? `, line ${ev.line}` : ""}` : "computed by the forward pass",
    };
  }

  function draw() {
    if (!drawFrame(body, { error, ready: Boolean(record), engine: ctx.engine }) || !record) return;
    const res = record.residuals;
    const total = record.residual_bytes;
    const max = Math.max(1, ...res.map((r) => r.bytes));
    const fromInputs = res.filter((r) => r.from_input).reduce((s, r) => s + r.bytes, 0);
    const argsLine = h(
      "p",
      { class: "x-args", "data-testid": "residual-shapes" },
      "Inputs: ",
      record.args.map((a, i) => [i ? ", " : "", h("code", null, `${a.name}:${a.aval}`)]),
    );
    const list = h("ol", { class: "res-list", "data-testid": "residual-list" });
    for (const r of res) {
      const src = sourceOf(r);
      const row = h(
        "li",
        { class: `res-row${src.input ? " is-input" : ""}`, tabindex: "0", dataset: { k: String(r.k) } },
        h("span", { class: "res-names" }, h("code", null, r.known_name), " → ", h("code", null, r.unknown_name)),
        h("code", { class: "res-aval" }, r.aval),
        h(
          "span",
          { class: "res-src" },
          src.input ? h("span", { class: "x-badge x-badge-input" }, "input") : "",
          " ",
          src.text,
        ),
        h(
          "span",
          { class: "res-bar", "aria-hidden": "true" },
          h("span", { style: `width:${Math.max(2, (100 * r.bytes) / max).toFixed(1)}%` }),
        ),
        h("span", { class: "res-bytes" }, formatBytes(r.bytes)),
      );
      const on = () => {
        lit = r;
        light();
      };
      const off = () => {
        if (lit === r) {
          lit = null;
          light();
        }
      };
      row.addEventListener("mouseenter", on);
      row.addEventListener("focus", on);
      row.addEventListener("mouseleave", off);
      row.addEventListener("blur", off);
      list.append(row);
    }
    const totalEl = h(
      "p",
      { class: "res-total", "data-testid": "residual-bytes", "data-bytes": String(total) },
      h("strong", null, formatBytes(total)),
      ` held between the two programs in ${res.length} residual${res.length === 1 ? "" : "s"}`,
      fromInputs ? ` (${formatBytes(fromInputs)} of it inputs passed across)` : "",
      ".",
    );
    const fwd = programPre(record.known, {
      label: "Forward program (known)",
      testid: "residual-forward",
      cls: "x-known",
    });
    const lin = programPre(record.unknown, {
      label: "Linear program (unknown)",
      testid: "residual-linear",
      cls: "x-unknown",
    });
    const nOut = record.known.outvars.length - res.length;
    body.append(
      argsLine,
      totalEl,
      h(
        "div",
        { class: "res-grid" },
        h(
          "div",
          { class: "res-col" },
          h("h4", null, "Forward program ", h("span", { class: "x-muted" }, "(known)")),
          fwd,
          h(
            "p",
            { class: "x-caption" },
            `Returns its ${nOut} output${nOut === 1 ? "" : "s"}, then the ${res.length} residual${res.length === 1 ? "" : "s"}.`,
          ),
        ),
        h(
          "div",
          { class: "res-col res-mid" },
          h("h4", null, "Residuals ", h("span", { class: "x-muted" }, "(in memory)")),
          list,
        ),
        h(
          "div",
          { class: "res-col" },
          h("h4", null, "Linear program ", h("span", { class: "x-muted" }, "(unknown)")),
          lin,
          h(
            "p",
            { class: "x-caption" },
            `Takes the ${res.length} residual${res.length === 1 ? "" : "s"} first, then the tangents.`,
          ),
        ),
      ),
    );
    light();
  }

  function light() {
    lightVar(body.querySelector('[data-testid="residual-forward"]') ?? body, lit ? lit.known_name : null);
    lightVar(body.querySelector('[data-testid="residual-linear"]') ?? body, lit ? lit.unknown_name : null);
  }

  return {
    follows: true,
    refresh() {
      const kw = ctx.mainOrDraw(draw);
      if (!kw) return;
      if (!base || base.source !== kw.source || JSON.stringify(base.args) !== JSON.stringify(kw.args)) {
        base = kw;
        // shapes come from the main record when it has them (every mode lists its args)
        const margs = ctx.main?.record?.args;
        avals = margs && margs.length === kw.args.length ? margs : null;
      }
      load();
    },
    onEngineState() {
      if (!record) draw();
    },
  };
}

// The page's modes, one entry each: everything the page's modules ask of a mode. The engine's
// side is one entry too (pe_engine/explain/modes.py's MODES, jax_snippet.BODIES, and the
// mode's request in request_contract.py); tests/js/modes_table.mjs checks this table against
// that contract (app/contract/). A new mode is one entry here and one there. Pure: no DOM.
//
//   label, title, blurb  the mode's tab, its tooltip, and the line under the tabs
//   jax       the JAX functions the mode shows, outermost first, as prose names them
//             (jaxWords: "jax.grad of jax.checkpoint"); [] for split, partial evaluation itself
//   group     the heading of the mode's examples in the examples menu
//   mask      what the known/unknown toggles mean: "known" (split's mask), "argnums" (the
//             unknown inputs are differentiated, as JAX's argnums), "none" (every input a
//             formal parameter: the toggles have no say)
//   maskWords the words for an input [unknown, known] under that mask
//   option    the mode's own control: "folding" (jit's eager constant folding), "policy"
//             (checkpoint's), or null; a mode with a policy answers with each policy's card
//   kwargs    the request's kwargs of the mode beyond the function's source and args
//   first     what an edit's first request adds to leave parts out (page/pending-whole.js,
//             page/pending-policies.js); null: asked whole at once
//   later     record fields a first answer leaves for later, which the stage does not draw
//             from the split (stage-panel.js compares splits without them)
//   staged    everything is staged: one program, no split (jit)
//   instantiate  the split's outputs may be forced into the unknown program (JAX's instantiate)
//   masks     what the mask explorer counts each mask as (the masks request's as_mode); null:
//             no explorer (the mask has no say)

/** @typedef {{code: string, known: object, values: object, mode: string, policy: string,
 *             folding: boolean, instantiate?: boolean[]}} ModeState */

/**
 * A mode's entry (the fields are described above).
 * @typedef {object} Mode
 * @property {string} label
 * @property {string} group
 * @property {string} title
 * @property {string} blurb
 * @property {string[]} jax
 * @property {"known" | "argnums" | "none"} mask
 * @property {[string, string]} maskWords
 * @property {"folding" | "policy" | null} option
 * @property {(s: ModeState) => Record<string, unknown>} kwargs
 * @property {{open_calls: boolean, only_selected?: boolean, saved?: boolean} | null} first
 * @property {string[]} later
 * @property {boolean} staged
 * @property {boolean} instantiate
 * @property {import("./contract/request.js").MasksRequest["as_mode"] | null} masks
 */

/** What the modes of JAX's autodiff share: the toggles are argnums (an unknown input is
 *  differentiated), and the split is the JVP's (nothing all staged, nothing instantiated). */
/** @type {Pick<Mode, "mask" | "maskWords" | "staged" | "instantiate">} */
const ARGNUMS = {
  mask: "argnums",
  maskWords: ["differentiated", "held fixed"],
  staged: false,
  instantiate: false,
};

/** @type {Record<string, Mode>} */
export const MODE_TABLE = {
  split: {
    label: "split",
    jax: [],
    group: "Partial evaluation",
    title: "Partial evaluation with your known/unknown mask",
    blurb:
      "Known inputs are real arrays; unknown ones are only a shape and a dtype. An equation runs now when " +
      "every input is known; otherwise it is staged into the unknown program, and the known values it reads" +
      " cross over as residuals.",
    mask: "known",
    maskWords: ["unknown", "known"],
    option: null,
    // JAX's per-output instantiate, only when it forces something (the key stays the same)
    kwargs: (/** @type {ModeState} */ s) => (s.instantiate?.some(Boolean) ? { instantiate: s.instantiate } : {}),
    first: { open_calls: false },
    later: [],
    staged: false,
    instantiate: true,
    masks: "split",
  },
  jit: {
    label: "jit",
    jax: ["jax.jit"],
    group: "jit (staging)",
    title: "Staging under jit: every operation becomes an equation",
    blurb:
      "At a jit boundary every argument is a formal parameter, so nothing is known: every operation becomes" +
      " an equation, even the sine of a literal. Only device_put, convert_element_type and stage have " +
      "constant-folding rules.",
    mask: "none",
    maskWords: ["unknown", "unknown"],
    option: "folding",
    kwargs: (/** @type {ModeState} */ s) => ({ eager_constant_folding: s.folding }),
    first: null,
    later: [],
    staged: true,
    instantiate: false,
    masks: null,
  },
  grad: {
    label: "grad",
    jax: ["jax.grad"],
    group: "grad",
    title: "jax.grad: forward pass, linear pass, backward pass, residual memory",
    blurb:
      "jax.grad linearizes, then transposes. The forward pass runs now (known); the linear pass waits for a" +
      " cotangent (unknown). The residuals between them are the activations held in memory for the backward" +
      " pass.",
    ...ARGNUMS,
    option: null,
    kwargs: () => ({}),
    first: { open_calls: false, saved: false },
    later: ["saved_residuals", "saved_bytes"],
    masks: "grad",
  },
  linearize: {
    label: "linearize",
    jax: ["jax.linearize"],
    group: "linearize",
    title: "jax.linearize: JVP plus partial evaluation, the forward pass now and a linear program for later",
    blurb:
      "jax.linearize runs the JVP with the primals known and the tangents unknown. The forward pass runs " +
      "now (known) and returns f's outputs; the linear program (unknown) is what linearize hands back, and " +
      "every call of it reads the residuals, which stay in memory as long as it lives.",
    ...ARGNUMS,
    option: null,
    kwargs: () => ({}),
    first: { open_calls: false },
    later: [],
    masks: "grad",
  },
  checkpoint: {
    label: "checkpoint",
    jax: ["jax.grad", "jax.checkpoint"],
    group: "checkpoint",
    title: "jax.checkpoint: a policy decides which residuals are saved",
    blurb:
      "jax.checkpoint hands the same splitter a policy that decides, per equation, whether its output may be saved as a residual or must be recomputed in the backward pass.",
    ...ARGNUMS,
    option: "policy",
    kwargs: (/** @type {ModeState} */ s) => ({ policy: s.policy }),
    first: { open_calls: false, only_selected: true },
    later: ["policies", "memory", "pending_policies"],
    masks: "checkpoint",
  },
};

/** The mode's JAX functions as a sentence names them, each through `quote`:
 *  "`jax.grad` of `jax.checkpoint`". @param {Mode} mode @param {(name: string) => string} [quote] */
export function jaxWords(mode, quote = (name) => name) {
  return mode.jax.map(quote).join(" of ");
}

/** The modes in the tabs' order. */
export const MODES = Object.keys(MODE_TABLE);

/** A mode's entry; null for a name that is no page mode (a record of "masks", a typo).
 *  @param {string | null | undefined} name @returns {Mode | null} */
export function modeOf(name) {
  return Object.prototype.hasOwnProperty.call(MODE_TABLE, name ?? "") ? MODE_TABLE[name ?? ""] : null;
}

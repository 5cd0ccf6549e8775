// What the demos ask the engine: their own functions and the requests built from them. Pure
// (no DOM), so tools/page_requests.mjs can list the page's opening requests for the build.

import { functionKwargs } from "../state.js";

/** @typedef {ReturnType<typeof functionKwargs>} FunctionKwargs a function's source and args, as a request's kwargs */

export const CHECKPOINT_CODE = `import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

def loss(W1, W2, x):
    h = checkpoint_name(jnp.tanh(W1 @ x), "h")
    y = W2 @ h
    return jnp.sum(jnp.sin(y) * y)
`;
export const CHECKPOINT_VALUES = { W1: "full((32, 16), 0.1)", W2: "full((8, 32), 0.1)", x: "full((16, 64), 0.5)" };
const CHECKPOINT_POLICY = "nothing_saveable";

export const FOLDING_CODE = `import jax
import jax.numpy as jnp

def f(x):
    return x + jnp.sin(1.0)
`;
export const FOLDING_VALUES = { x: "2.0" };

/** A demo's own function with its values: every input unknown unless `known` says.
 *  @param {string} code @param {Record<string, string>} values @param {Record<string, boolean>} [known] */
export function demoKwargs(code, values, known = {}) {
  return functionKwargs(code, known, values, false);
}

/** Section 3: the checkpoint record (every policy) of the demo's function. @param {FunctionKwargs} kw */
export function checkpointRequest(kw) {
  return { mode: "checkpoint", kwargs: { ...kw, policy: CHECKPOINT_POLICY } };
}

/** Section 4: the function staged by jit (with or without folding) and partially evaluated
 * with every input unknown. @param {FunctionKwargs} kw @param {boolean} folding */
export function foldingRequests(kw, folding) {
  return [
    { mode: "jit", kwargs: { source: kw.source, args: kw.args, eager_constant_folding: folding } },
    { mode: "interpreters", kwargs: { source: kw.source, args: kw.args.map((a) => ({ ...a, known: false })) } },
  ];
}

/** Sections 1, 2, 5 and 6: the main function's split, grad and both interpreters. @param {FunctionKwargs} main */
export function followingRequests(main) {
  const kw = { source: main.source, args: main.args };
  return ["split", "grad", "interpreters"].map((mode) => ({ mode, kwargs: kw }));
}

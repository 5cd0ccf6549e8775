// The one accounting of residual memory: activations + inputs kept. The engine computes it
// once per split (pe_engine/explain/memory.py `account`: the record's memory_account, each
// policy card's and each memory line's account); the residual list, the policy cards (the
// stage's and the checkpoint section's) and the memory chart all word it here, so that one
// split shows one total everywhere. Activations: residuals an equation of the forward pass
// computes. Inputs kept: residuals that are an input or a constant, which the backward pass
// reads as they are (held from the start to the end of the backward pass).

import { formatBytes } from "./dom.js";

/** @typedef {import("../contract/record.js").MemoryAccount} MemoryAccount */

/** @param {number} n @param {string} word */
const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "3 activations (40 B) + 2 inputs kept (44 B)" */
export function accountParts(/** @type {MemoryAccount} */ a) {
  return (
    `${count(a.activations, "activation")} (${formatBytes(a.activation_bytes)}) + ` +
    `${count(a.inputs_kept, "input")} kept (${formatBytes(a.input_bytes)})`
  );
}

/** "84 B: 3 activations (40 B) + 2 inputs kept (44 B)" */
export function accountText(/** @type {MemoryAccount} */ a) {
  return `${formatBytes(a.total_bytes)}: ${accountParts(a)}`;
}

/** The attributes that mark an element as showing an account's total (tests read them). */
export function accountData(/** @type {MemoryAccount} */ a) {
  return { "data-total-bytes": String(a.total_bytes) };
}

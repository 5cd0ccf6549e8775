// Checkpoint's selected policy first (issue 14): an edit asks the engine for the selected
// policy's card and split alone (only_selected), and the page draws that at once; the other
// policies' cards are asked one at a time afterwards (pe_engine.explain.checkpoint_policy)
// and merged into the record here. Pure: no DOM, no engine.

import { POLICY_ROWS } from "../contract/values.js";
import { modeOf } from "../modes.js";

/** @typedef {import("../contract/record.js").CheckpointRecord} CheckpointRecord */
/** @typedef {import("../contract/record.js").PolicyAnswer} PolicyAnswer */
/** @import { EngineAnswer } from "../contract/record.js" */
/** @import { PageRequest } from "./pending-whole.js" */

/** The request an edit sends first: a checkpoint request asks for its selected policy alone,
 *  a split's calls come unopened and grad's saved residuals untraced (pending-whole.js).
 *  @param {PageRequest} req @returns {PageRequest} */
export function firstRequest(req) {
  const first = modeOf(req.mode)?.first;
  return first ? { mode: req.mode, kwargs: { ...req.kwargs, ...first } } : req;
}

/** The policies a record still waits for ([] for a complete record, or another mode's).
 *  @param {EngineAnswer | null | undefined} record @returns {string[]} */
export function pendingOf(record) {
  return record && "pending_policies" in record && Array.isArray(record.pending_policies)
    ? record.pending_policies
    : [];
}

/** The kwargs of pe_engine.explain.checkpoint_policy for one pending policy of `req`.
 *  @param {PageRequest} req @param {string} policy */
export function policyKwargs(req, policy) {
  return { ...req.kwargs, policy };
}

/**
 * `record` with one more policy: its card and its memory line in POLICY_ROWS order, the
 * policy no longer pending. Everything else, the selected policy's split above all, is kept as
 * it is (the same objects: see sameSplit).
 * @param {CheckpointRecord} record @param {PolicyAnswer} answer
 * @returns {CheckpointRecord}
 */
export function withPolicy(record, answer) {
  const name = answer.policy.name;
  const rank = (/** @type {string} */ n) => POLICY_ROWS.indexOf(n);
  const at = record.policies.filter((p) => rank(p.name) < rank(name)).length;
  const policies = [...record.policies];
  const memory = [...record.memory];
  policies.splice(at, 0, answer.policy);
  memory.splice(at, 0, answer.memory);
  return { ...record, policies, memory, pending_policies: record.pending_policies.filter((p) => p !== name) };
}

/**
 * Whether `next` is `prev` with more policies merged in (withPolicy), so the split drawn for
 * `prev` stands and only the cards and the memory lines change. A fresh answer never is, even
 * one equal to it: its split is made of new objects.
 * @param {any} prev @param {any} next
 */
export function sameSplit(prev, next) {
  return (
    modeOf(prev?.mode)?.option === "policy" &&
    prev.mode === next?.mode &&
    prev.events === next.events &&
    prev.panes === next.panes &&
    prev.residuals === next.residuals
  );
}

/**
 * `record`, a first answer whose split is the one on screen, with the answers of `drawn` (the
 * record whose cards are on screen) standing in for its pending policies: a change that keeps
 * the split (a comment typed) keeps every card drawn until its own answer comes, instead of
 * turning them back into placeholders for the time the follow-ups take.
 * @param {CheckpointRecord} record @param {CheckpointRecord} drawn
 */
export function withStandIns(record, drawn) {
  let out = record;
  for (const name of pendingOf(record)) {
    const policy = drawn.policies?.find((p) => p.name === name);
    const memory = drawn.memory?.find((m) => m.policy === name);
    if (policy && memory) out = withPolicy(out, { policy, memory });
  }
  return out;
}

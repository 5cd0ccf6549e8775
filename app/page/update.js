// The page's state and its one update function. Every change, from the UI or from
// window.explainer, is a plain object handed to `dispatch` (main.js); `update(state, change)`
// returns the next state without touching anything else, and the views then draw the
// difference (`render(prev, next)`).
//
//   {type: "code", code, from?: "editor"}     the editor's text
//   {type: "known", name, known}              an argument marked known / unknown
//   {type: "value", name, text}               an argument's value
//   {type: "mode", mode} | {type: "policy", policy} | {type: "folding", on}
//   {type: "instantiate", instantiate}        split's outputs forced into the unknown program
//   {type: "step", step, byUser}              the stage's timeline
//   {type: "load", doc, exampleId, byUser}    an example, a link, a restored state
//   {type: "answer", answer, key}             the engine's answer for a request key
//   {type: "signature", signature}            the engine read the function of doc.code
//   {type: "waiting", on}                     a first answer is being waited for (an answer
//                                             ends the wait, the build's as well as Python's)
//   {type: "masks", key, answer}              the mask explorer's record (null: no function)
//   {type: "touch"}                           the reader asked for the link: save from now on

import { MODES } from "../modes.js";
import { effectiveKnown } from "../state.js";

/**
 * @typedef {{code: string, known: Record<string, boolean>, values: Record<string, string>,
 *            mode: string, policy: string, step: number | null, folding: boolean,
 *            instantiate: boolean[]}} Doc
 * @typedef {{message: string, line: number | null, type: string, input: string | null}} PageError
 * @typedef {object} PageState
 * @property {Doc} doc what a permalink carries (state.js)
 * @property {string} exampleId the example the doc still is ("" once edited)
 * @property {boolean} touched the reader changed something: only then is anything saved
 * @property {import("../contract/record.js").EngineRecord | null} record the last good record
 * @property {string | null} recordKey its request key
 * @property {PageError | null} error the last answer's error
 * @property {boolean} waiting
 * @property {{key: string, answer: any} | null} masks the mask explorer's last answer
 *   (engine session), for the request of key (answer null: the function did not trace)
 * @property {Signature | null} signature the function of the last code whose signature the
 *   engine gave (signatures.js): the inputs drawn, kept while an edit is read
 * @typedef {import("../signatures.js").Signature} Signature
 */

/**
 * @param {Doc} doc @param {string} exampleId
 * @param {Signature | null} [signature] doc.code's, when known already (the build's)
 * @returns {PageState}
 */
export function initialPageState(doc, exampleId, signature = null) {
  const empty = { record: null, recordKey: null, error: null, waiting: false, masks: null };
  return { doc, exampleId, touched: false, signature, ...empty };
}

/** A copy of an argument map, with no prototype (an argument may be called "__proto__").
 *  @template T @param {Record<string, T>} map @param {string} name @param {T} value @returns {Record<string, T>} */
function withEntry(map, name, value) {
  return Object.assign(Object.create(null), map, { [name]: value });
}

/** An edit of what is traced: the stage lands on the new split's last step (step null).
 *  @param {PageState} s @param {Doc} doc @param {(doc: Doc) => boolean} sameExample @returns {PageState} */
function edited(s, doc, sameExample) {
  const next = { ...doc, step: null };
  return { ...s, doc: next, touched: true, exampleId: sameExample(next) ? s.exampleId : "" };
}

/**
 * @param {PageState} s
 * @param {any} change
 * @param {(doc: Doc) => boolean} sameExample whether a doc still is the example s.exampleId
 * @returns {PageState}
 */
export function update(s, change, sameExample) {
  const doc = s.doc;
  switch (change.type) {
    case "code": {
      const code = String(change.code);
      // forced outputs are per output of this code's function: new code starts with none
      const instantiate = code === doc.code ? doc.instantiate : [];
      return edited(s, { ...doc, code, instantiate }, sameExample);
    }
    case "known":
      // from the flags in force: grad's default input stays differentiated beside a new one
      return edited(
        s,
        { ...doc, known: withEntry(effectiveKnown(doc), change.name, Boolean(change.known)) },
        sameExample,
      );
    case "value":
      return edited(s, { ...doc, values: withEntry(doc.values, change.name, String(change.text)) }, sameExample);
    case "mode":
      if (!MODES.includes(change.mode) || change.mode === doc.mode) return s;
      return edited(s, { ...doc, mode: change.mode }, sameExample);
    case "policy":
      return edited(s, { ...doc, policy: String(change.policy) }, sameExample);
    case "folding":
      return edited(s, { ...doc, folding: Boolean(change.on) }, sameExample);
    case "instantiate":
      return edited(s, { ...doc, instantiate: change.instantiate.map(Boolean) }, sameExample);
    case "step":
      if (change.step === doc.step) return s;
      return { ...s, doc: { ...doc, step: change.step }, touched: s.touched || Boolean(change.byUser) };
    case "load":
      return { ...s, doc: change.doc, exampleId: change.exampleId, touched: s.touched || Boolean(change.byUser) };
    case "answer":
      return answered(s, change.answer, change.key);
    case "touch":
      return s.touched ? s : { ...s, touched: true };
    case "signature":
      if (change.signature.code !== doc.code || change.signature === s.signature) return s;
      return { ...s, signature: change.signature };
    case "waiting":
      return change.on === s.waiting ? s : { ...s, waiting: change.on };
    case "masks":
      return { ...s, masks: { key: change.key, answer: change.answer } };
    default:
      throw new Error(`unknown change ${JSON.stringify(change.type)}`);
  }
}

/** @param {PageState} s @param {import("../contract/record.js").EngineAnswer} answer @param {string} key
 *  @returns {PageState} */
function answered(s, answer, key) {
  if ("error" in answer) {
    const e = answer.error;
    const line = Number.isInteger(e.lineno) ? e.lineno : null;
    return {
      ...s,
      error: { type: e.type, message: e.message || "error", line, input: e.input ?? null },
      waiting: false,
    };
  }
  return { ...s, error: null, record: answer, recordKey: key, waiting: false };
}

/** Whether a change alters what the engine is asked (and so calls for a run).
 *  @param {{type: string}} change */
export function changesRequest(change) {
  return ["code", "known", "value", "mode", "policy", "folding", "instantiate", "load"].includes(change.type);
}

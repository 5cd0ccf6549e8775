// The stage's panel: the stage (app/stage/), loaded as its own module, drawing each new
// record; or, if that module cannot load, the programs as plain text. It also carries the
// linked highlighting between the editor and the stage.

import { wholeArrived } from "../pending-whole.js";
import { pendingOf, sameSplit, withStandIns } from "../pending-policies.js";
import { modeOf } from "../../modes.js";

/** @typedef {import("../../contract/record.js").EngineRecord} EngineRecord */
/** @typedef {import("../../contract/record.js").CheckpointRecord} CheckpointRecord */
/** @typedef {import("../../contract/record.js").Pane} Pane */

/** Printed programs of a record, whatever its mode: the known and unknown panes, the program.
 *  @param {{mode: string, panes?: Pane[], program?: {text: string} | null} | null} rec */
export function programsOf(rec) {
  if (!rec) return { known: null, unknown: null, program: null };
  const pane = (/** @type {string} */ role) => (rec.panes ?? []).find((p) => p.role === role)?.program.text ?? null;
  return { known: pane("known"), unknown: pane("unknown"), program: rec.program?.text ?? null };
}

/** What the stage draws of a record's split, as text: all of it but the JAX snippet, the
 *  calls' inner splits and grad's saved residuals (for checkpoint, the policies' cards too):
 *  those come in parts.
 *  @param {any} rec a record of any mode, compared as its JSON text whatever its fields */
const splitText = (rec) => {
  const events = Array.isArray(rec.events)
    ? rec.events.map((/** @type {Record<string, unknown>} */ { call: _, ...ev }) => ev)
    : rec.events;
  const split = { ...rec, events, jax_snippet: null };
  // (a key set to null would keep its place in the text)
  delete split.unopened_calls;
  for (const field of modeOf(rec.mode)?.later ?? []) delete split[field];
  return JSON.stringify(split);
};

/** Whether two records' panes print the same programs: when they do not, neither are their
 *  splits the same (a fresh edit's answer is not compared whole: two record texts of a
 *  transformer block were 7 ms of its redraw).
 *  @param {EngineRecord} a @param {EngineRecord} b */
const samePrograms = (a, b) => {
  const [pa, pb] = [a, b].map((r) => ("panes" in r ? r.panes : []));
  return pa.length === pb.length && pa.every((p, i) => p.program.text === pb[i].program.text);
};

/** The programs as text, when the stage module could not be loaded.
 *  @param {HTMLElement} root @param {EngineRecord} rec */
function fallbackDraw(root, rec) {
  const progs = programsOf(rec);
  root.replaceChildren();
  const titled = [
    ["Known program", progs.known],
    ["Unknown program", progs.unknown],
    ["Staged program", progs.program],
  ];
  for (const [title, text] of titled) {
    if (!text) continue;
    const h = document.createElement("h3");
    h.textContent = title;
    const pre = document.createElement("pre");
    pre.className = "program-text";
    pre.textContent = text;
    root.append(h, pre);
  }
}

/**
 * @param {{root: HTMLElement, panel: HTMLElement, editor: any,
 *          dispatch: (change: object) => void, onRecord?: (record: object) => void}} deps
 *   onRecord: told of each record once the stage shows it (window.explainer.onRecord)
 */
export async function createStagePanel({ root, panel, editor, dispatch, onRecord = () => {} }) {
  /** @type {ReturnType<typeof import("../../stage/index.js").createStage> | null} */
  let stage = null;
  // the record the stage last drew, its text, and the record whose policy cards it shows
  /** @type {{record: EngineRecord | null, text: string | null, cards: EngineRecord | null}} */
  let drawn = { record: null, text: null, cards: null };
  // (an error answer is never a record: not drawn, nor compared)
  const erred = (/** @type {object | null} */ r) => Boolean(r && /** @type {{error?: unknown}} */ (r).error);
  /** Whether `next` is the split drawn, answered for another source: a comment or a blank
   *  line typed changes only the JAX snippet (it quotes the source). Not after an error (the
   *  drawing is marked stale). @param {EngineRecord | null} prev @param {EngineRecord} next */
  function sameAsDrawn(prev, next) {
    if (!drawn.record || erred(prev) || erred(next) || next.mode !== drawn.record.mode) return false;
    if (!samePrograms(drawn.record, next)) return false;
    drawn.text ??= splitText(drawn.record);
    return splitText(next) === drawn.text;
  }
  /** More policies of a checkpoint record answered: its cards drawn again, the cards on
   *  screen standing in for those still pending (withStandIns).
   *  @param {CheckpointRecord} record */
  function renewCards(record) {
    // (called with a stage; the cards drawn are of the same split: a checkpoint record's)
    stage?.setPolicies(drawn.cards ? withStandIns(record, /** @type {CheckpointRecord} */ (drawn.cards)) : record);
    if (!pendingOf(record).length) drawn.cards = record;
  }
  try {
    const [mod, { withPredict }] = await Promise.all([
      import("../../stage/index.js"),
      import("../../stage/predict-view.js"),
    ]);
    /** @param {import("../../stage/model.js").Link | null} link */
    const onLink = (link) => editor.linkLine(link && Number.isInteger(link.line) ? link.line : null);
    // the "Predict" toggle goes beside the stage's heading
    const slot = /** @type {HTMLElement | null} */ (panel.querySelector(".stage-head"));
    const created = /** @type {ReturnType<typeof mod.createStage>} */ (
      withPredict(mod.createStage, root, { onLink }, slot)
    );
    stage = created;
    created.onStepChange((step, info) => {
      // the step's source line, in its colour, in the editor
      editor.stepLine(info.line, info.hue);
      // the reader moved the timeline (play, scrub, keys): that goes into the link
      const byUser = info.source !== "record" && info.source !== "api";
      dispatch({ type: "step", step, byUser });
    });
    root.classList.remove("stage-fallback");
  } catch (err) {
    console.error("stage module could not be loaded; showing the programs as text", err);
    root.classList.add("stage-fallback");
  }

  return {
    /** The step the stage shows, and how many there are (null without a stage). */
    step: () => (stage ? stage.getStep() : null),
    stepCount: () => (stage ? stage.stepCount() : null),
    /** Focus the stage (its programs' tab stop), for the skip link. */
    focus() {
      if (stage) stage.focus();
      else root.focus();
    },
    /** Lay out what the stage has pending (its edges) now. */
    drawn: () => stage?.drawn(),
    /** Move the timeline; the stage reports where it landed. */
    /** @param {number} n */
    setStep(n) {
      stage?.setStep(n);
    },
    /** Light what belongs to a source line (or nothing). @param {number | null} line */
    highlight(line) {
      stage?.highlight(line !== null ? { line } : null);
    },
    /** @param {import("../update.js").PageState} prev @param {import("../update.js").PageState} next */
    render(prev, next) {
      panel.classList.toggle("is-waiting", next.waiting);
      if (next.record === prev.record || !next.record) return;
      // more checkpoint policies answered: the split drawn stays, not drawn (nor diffed) again
      // (sameSplit: both are checkpoint records)
      if (stage && sameSplit(prev.record, next.record)) renewCards(/** @type {CheckpointRecord} */ (next.record));
      else if (stage && wholeArrived(drawn.record, next.record)) {
        stage.setRest(next.record); // the split drawn, completed: call toggles, saved residuals
        drawn = { ...drawn, record: next.record };
      } else if (stage && sameAsDrawn(prev.record, next.record)) {
        // the split on screen, with its step, its opened calls and its cards, is this one
      } else if (stage) {
        // a null step is the end; the build's first frame is taken over if it drew this request
        stage.setRecord(next.record, { step: next.doc.step, key: next.recordKey });
        drawn = { record: next.record, text: null, cards: pendingOf(next.record).length ? null : next.record };
      } else fallbackDraw(root, next.record);
      onRecord(next.record);
    },
  };
}

// window.explainer: the embedding API (README "Embedding API"), for embedding pages, the
// browser tests and the console. Every setter dispatches the same change the UI would and
// resolves, once the engine has answered and the page has redrawn, to state().

import { jaxSnippet } from "../jax-snippet.js";
import { MODES } from "../modes.js";
import { DEFAULT_VALUE, isKnown, stateFromExample } from "../state.js";
import { programsOf } from "./views/stage-panel.js";

/**
 * The stage panel as the API sees it (null: no stage to ask).
 * @typedef {{step: () => number | null, stepCount: () => number | null, setStep: (n: number) => void,
 *            drawn: () => void}} StagePanelApi
 */

/**
 * @param {{recordWatchers: Set<(record: object) => void>,
 *          getState: () => import("./update.js").PageState, dispatch: (c: object) => void,
 *          whenIdle: () => Promise<void>, stagePanel: StagePanelApi, permalink: () => Promise<string>,
 *          examples: import("../examples.js").Examples, openedFrom: string}} deps
 *   recordWatchers: told of each record the stage shows (onRecord adds to it)
 */
export function createApi({
  recordWatchers,
  getState,
  dispatch,
  whenIdle,
  stagePanel,
  permalink,
  examples,
  openedFrom,
}) {
  function state() {
    const { doc, record, error, signature } = getState();
    // the inputs the panel shows: the last function the engine read, kept while an edit that
    // has none (a syntax error) or is still being read is on screen; before the engine has
    // read any, the inputs the doc itself holds settings for (a link's, a saved state's)
    const params = signature?.params ?? Object.keys(doc.known);
    const progs = programsOf(record);
    return {
      source: doc.code,
      mask: Object.fromEntries(params.map((p) => [p, isKnown(doc, p)])),
      values: Object.fromEntries(params.map((p) => [p, doc.values[p] ?? DEFAULT_VALUE])),
      mode: doc.mode,
      policy: doc.policy,
      folding: doc.folding,
      instantiate: doc.instantiate,
      step: stagePanel.step() ?? doc.step,
      stepCount: stagePanel.stepCount() ?? 0,
      known: progs.known,
      unknown: progs.unknown,
      program: progs.program,
      residuals: record && "residuals" in record ? record.residuals : [],
      recordMode: record?.mode ?? null,
      stale: Boolean(error) && record !== null,
      error: error ? { message: error.message, line: error.line, type: error.type } : null,
    };
  }

  /** Once the engine has answered and the stage shows it: caption, panes and edges. */
  async function settled() {
    await whenIdle();
    stagePanel.drawn();
    return state();
  }

  /** Dispatch a change that asks the engine again, and wait for its answer to be drawn.
   *  @param {{type: string} & Record<string, unknown>} c */
  function change(c) {
    dispatch({ ...c, run: "now" });
    return settled();
  }

  // the arguments come from the console or an embedding page (app/embed.js): any JSON, so each
  // is made the type it must be (String, Boolean) or checked before use
  return {
    /** cb(record) for each record the stage shows, once shown (its parts merged in too);
     *  returns a function that stops it.
     *  @param {(record: object) => void} cb @returns {() => boolean} */
    onRecord(cb) {
      recordWatchers.add(cb);
      return () => recordWatchers.delete(cb);
    },
    setSource: (/** @type {unknown} */ code) => change({ type: "code", code: String(code) }),
    setKnown: (/** @type {string} */ name, /** @type {unknown} */ known) =>
      change({ type: "known", name, known: Boolean(known) }),
    setValue: (/** @type {string} */ name, /** @type {unknown} */ text) =>
      change({ type: "value", name, text: String(text) }),
    /** @param {string} name */
    async setMode(name) {
      if (!MODES.includes(name)) throw new Error(`unknown mode ${JSON.stringify(name)}; modes: ${MODES.join(", ")}`);
      return change({ type: "mode", mode: name });
    },
    setPolicy: (/** @type {unknown} */ name) => change({ type: "policy", policy: String(name) }),
    setFolding: (/** @type {unknown} */ on) => change({ type: "folding", on: Boolean(on) }),
    /** @param {unknown} flags */
    setInstantiate(flags) {
      if (!Array.isArray(flags)) throw new Error("setInstantiate takes a list of true/false, one per output");
      return change({ type: "instantiate", instantiate: flags.map(Boolean) });
    },
    /** @param {number} n */
    async setStep(n) {
      stagePanel.setStep(n);
      dispatch({ type: "step", step: stagePanel.step() ?? n, byUser: true });
      stagePanel.drawn();
      return state();
    },
    /** @param {string} id */
    async loadExample(id) {
      const ex = examples.examples.find((e) => e.id === id);
      if (!ex) throw new Error(`no example ${JSON.stringify(id)}`);
      return change({ type: "load", doc: stateFromExample(ex), exampleId: ex.id, byUser: true });
    },
    state,
    settled,
    permalink,
    jaxSnippet: () => jaxSnippet(getState()),
    examples: () => examples.examples.map((e) => ({ id: e.id, title: e.title, mode: e.mode })),
    record: () => getState().record,
    get openedFrom() {
      return openedFrom;
    },
  };
}

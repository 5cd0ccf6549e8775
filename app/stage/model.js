// The stage's view model: a pure function of an engine record (no DOM).
//
// Every mode becomes a list of "panes" (printed programs) plus events in trace order. Step s
// (0..events.length) means events[0..s-1] have been judged; everything the stage shows is
// "revealed at" some step, so moving the step only toggles what was revealed in between.
//
//   split       panes known | unknown          (events' known_eqns / unknown_eqns)
//   grad        panes forward | linear | backward (forward/linear indexed like split)
//   jit         one pane: the staged program   (event i is equation i)
//   checkpoint  no animation: policies compared side by side (see checkpoint.js)

import { modeOf } from "../modes.js";

/** @typedef {import("../contract/record.js").EngineRecord} EngineRecord */
/** @typedef {import("../contract/record.js").Pane} Pane */
/** @typedef {import("../contract/record.js").Event} Event */
/** @typedef {import("../contract/record.js").Residual} Residual */
/**
 * @typedef {Event & {i: number, places: Array<[number, number]>, produces: number[], reads: number[]}} ModelEvent
 *   places: [paneIndex, eqnIndex] of each equation the event made
 * @typedef {Residual & {label: string, reveal: number}} ModelResidual
 * @typedef {Pane & {index: number, sub: string, testid: string, eqnEvent: number[], eqnReveal: number[],
 *            inLabels: Array<ModelResidual | null>, outLabels: Array<ModelResidual | null>,
 *            argNames: Array<string | null>}} ModelPane
 * @typedef {{pane: number, eqn?: number, invar?: string}} EdgeFrom an equation or an input
 * @typedef {{id: number, k: number, label: string, from: EdgeFrom | null,
 *            to: Array<{pane: number, eqn: number, consumer: number}>, consumers: number[],
 *            reveal: number}} Edge
 * @typedef {object} Model
 * @property {string} kind panes | checkpoint | error | empty
 * @property {string | null} mode
 * @property {any} record the engine's answer, of any mode or an error: kind says which
 * @property {ModelPane[]} panes
 * @property {ModelEvent[]} events
 * @property {ModelResidual[]} residuals
 * @property {Edge[]} edges
 * @property {Map<number, number[]>} lineEvents source line -> the events on it
 * @property {Map<number, number>} lineHue source line -> its hue
 * @property {number} total
 * @property {{call: any, outerTotal: number, split: Element | null, outer: Model}} [inside]
 *   checkpoint: the remat call its steps go through (insideModel), the outer programs whole
 * @typedef {{event?: number | null, line?: number | null, residual?: number | null}} Link
 */

// What each role's pane is for (the titles come with the record).
/** @type {Record<string, string>} */
const PANE_SUB = {
  known: "runs now, while tracing: every input is known",
  unknown: "staged for later: reads residuals and unknown inputs",
  staged: "every operation becomes an equation",
};

/**
 * The panes of a record, whatever its mode (the engine names each pane's role).
 * @param {any} record
 * @returns {Pane[]}
 */
export function panesOf(record) {
  return Array.isArray(record?.panes) ? record.panes : [];
}

/** @param {any} record an engine answer (or null): this finds out which @returns {string} */
export function kindOf(record) {
  if (!record) return "empty";
  if (record.error) return "error";
  // a checkpoint record carries the selected policy's split: animate it under the policy cards
  if (panesOf(record).length && Array.isArray(record.events)) return "panes";
  if (modeOf(record.mode)?.option === "policy") return "checkpoint"; // its policies' cards alone
  return "empty";
}

/** @type {Record<string, string>} an event's side, said (model.Event's `side`) */
export const SIDE_LABEL = {
  known: "known",
  unknown: "unknown",
  both: "both",
  "known-dropped": "known, unused",
  "unknown-dropped": "unknown, dropped",
  staged: "staged",
};

/** Badge letters: colour is never the only cue. @type {Record<string, string>} */
export const SIDE_BADGE = {
  known: "K",
  unknown: "U",
  both: "K+U",
  "known-dropped": "K",
  "unknown-dropped": "U",
  staged: "S",
};

/**
 * Build the view model. Pure; safe to call in tests.
 * @param {any} record an engine answer (or null): any mode's, or an error
 * @returns {Model}
 */
export function buildModel(record) {
  const kind = kindOf(record);
  if (kind !== "panes") {
    return {
      kind,
      mode: record?.mode ?? null,
      panes: [],
      events: [],
      residuals: [],
      edges: [],
      lineEvents: new Map(),
      lineHue: new Map(),
      total: 0,
      record,
    };
  }
  /** @type {Event[]} */
  const events = record.events || [];
  const total = events.length;
  /** @type {Residual[]} */
  const residualsIn = record.residuals || [];
  const panes = panesOf(record).map((p, index) => {
    const prog = p.program;
    const n = prog.eqns.length;
    /** @type {ModelPane} */
    const pane = {
      ...p,
      index,
      program: prog,
      sub: PANE_SUB[p.role] ?? "",
      testid: `${p.id}-jaxpr`,
      eqnEvent: new Array(n).fill(-1),
      // the step at which each equation appears; equations no event claims (other panes,
      // or parts of a call the engine split whole) appear when the split is done
      eqnReveal: new Array(n).fill(p.role === "staged" ? 0 : total),
      inLabels: [],
      outLabels: [],
      argNames: [],
    };
    return pane;
  });
  const known = panes.find((p) => p.role === "known");
  const unknown = panes.find((p) => p.role === "unknown");
  const staged = panes.find((p) => p.role === "staged");

  const evs = events.map((ev, i) => {
    /** @type {Array<[number, number]>} */
    const places = []; // [paneIndex, eqnIndex]
    if (staged) places.push([staged.index, i]);
    if (known) for (const j of ev.known_eqns || []) places.push([known.index, j]);
    if (unknown) for (const j of ev.unknown_eqns || []) places.push([unknown.index, j]);
    for (const [pi, j] of places) {
      const pane = panes[pi];
      if (j >= 0 && j < pane.eqnEvent.length) {
        pane.eqnEvent[j] = i;
        pane.eqnReveal[j] = i + 1;
      }
    }
    /** @type {ModelEvent} */
    const modelEvent = { ...ev, i, places, side: ev.side || "staged", produces: [], reads: [] };
    return modelEvent;
  });

  const residuals = residualsIn.map((r, k) => {
    const creators = evs.filter((e) => (e.residuals || []).includes(k)).map((e) => e.i);
    const consumers = (r.consumers || []).filter((c) => c >= 0 && c < total);
    const first = Math.min(...creators, ...consumers, total);
    return {
      ...r,
      k,
      consumers,
      label: `r${k}`,
      reveal: first < total ? first + 1 : total,
    };
  });
  for (const r of residuals) {
    if (r.producer != null && evs[r.producer]) evs[r.producer].produces.push(r.k);
    for (const c of r.consumers) evs[c].reads.push(r.k);
  }

  // residual edges: one per residual, from where the known program has it (the equation
  // that made it, or the input it forwards) to every unknown equation that reads it
  const edges = residuals.map((r) => {
    /** @type {EdgeFrom | null} */
    let from = null;
    if (known) {
      if (r.known_eqn != null && r.known_eqn < known.eqnEvent.length) {
        from = { pane: known.index, eqn: r.known_eqn };
      } else if (r.from_input != null || r.producer == null) {
        from = { pane: known.index, invar: r.known_name };
      }
    }
    /** @type {Edge["to"]} */
    const to = [];
    for (const c of r.consumers) {
      const place = unknown ? evs[c].places.find(([pi]) => pi === unknown.index) : null;
      if (place) to.push({ pane: place[0], eqn: place[1], consumer: c });
    }
    return { id: r.k, k: r.k, label: r.label, from, to, consumers: r.consumers, reveal: r.reveal };
  });

  // header/footer labels: the residual each input receives or each output hands over
  for (const pane of panes) {
    pane.inLabels = pane.inputs.map((v) => (v.residual != null ? residuals[v.residual] : null));
    pane.outLabels = pane.outputs.map((v) => (v.residual != null ? residuals[v.residual] : null));
    pane.argNames = pane.inputs.map((v) => v.arg);
  }

  /** @type {Map<number, number[]>} */
  const lineEvents = new Map();
  for (const ev of evs) {
    if (ev.line == null) continue;
    const onLine = lineEvents.get(ev.line) ?? [];
    if (!lineEvents.has(ev.line)) lineEvents.set(ev.line, onLine);
    onLine.push(ev.i);
  }
  const lineHue = lineHues([...lineEvents.keys(), ...panes.flatMap((p) => p.program.lines ?? [])]);
  return { kind, mode: record.mode, record, panes, events: evs, residuals, edges, lineEvents, lineHue, total };
}

export const LINE_HUES = 8;

/** One colour per source line (an index into LINE_HUES), in order of first appearance: the
 *  line in the editor and its equations in every pane share it.
 *  @param {Array<number | null>} lines @returns {Map<number, number>} */
export function lineHues(lines) {
  /** @type {Map<number, number>} */
  const hue = new Map();
  for (const line of lines) if (line != null && !hue.has(line)) hue.set(line, hue.size % LINE_HUES);
  return hue;
}

/** Events, residuals and edges a link refers to (for linked highlighting).
 *  @param {Model} model @param {Link | null} link */
export function resolveLink(model, link) {
  /** @type {Set<number>} */
  const events = new Set();
  /** @type {Set<number>} */
  const residuals = new Set();
  if (!link) return { events, residuals };
  if (link.event != null && model.events[link.event]) events.add(link.event);
  if (link.line != null && link.event == null && link.residual == null) {
    for (const i of model.lineEvents.get(link.line) || []) events.add(i);
  }
  if (link.residual != null && model.residuals[link.residual]) {
    const r = model.residuals[link.residual];
    residuals.add(r.k);
    if (r.producer != null) events.add(r.producer);
    for (const c of r.consumers) events.add(c);
  }
  for (const i of [...events]) {
    const ev = model.events[i];
    for (const k of ev.residuals || []) residuals.add(k);
    for (const k of ev.produces) residuals.add(k);
  }
  return { events, residuals };
}

/** The known program's equation that computes residual r, in that program's names (not the
 *  traced program's), and the user's line it came from; null when no equation computes it.
 *  @param {Model} model @param {ModelResidual} r
 *  @returns {{short: string, line: number | null} | null} */
export function madeBy(model, r) {
  const producer = r.producer != null ? model.events[r.producer] : null;
  if (!producer) return null;
  const at = r.known_eqn == null ? -1 : (producer.known_eqns ?? []).indexOf(r.known_eqn);
  const short = producer.known_short?.[at] ?? producer.known_short?.at(-1) ?? producer.short;
  return { short, line: producer.line ?? null };
}

/** The remat call a checkpoint record steps inside: its one event, when that is a remat2
 *  opened (null otherwise, or while its calls are not opened yet).
 *  @param {any} record a record of any mode */
export function insideCall(record) {
  // (a mode with a policy is checkpoint: its function is inside a remat)
  const events = modeOf(record?.mode)?.option === "policy" ? (record.events ?? []) : [];
  return events.length === 1 && events[0].call?.primitive === "remat2" ? events[0].call : null;
}

/** The model stepped inside its remat call: the steps are the call's inner events (which no
 *  outer pane holds), the outer programs and residuals shown whole.
 *  @param {Model} model @returns {Model} */
export function insideModel(model) {
  const call = insideCall(model.record);
  if (!call) return model;
  const events = call.events.map((/** @type {any} */ ev, /** @type {number} */ i) => ({
    ...ev,
    i,
    places: [],
    side: ev.side || "staged",
    produces: [],
    reads: [],
  }));
  const lineEvents = new Map();
  for (const ev of events) {
    if (ev.line == null) continue;
    if (!lineEvents.has(ev.line)) lineEvents.set(ev.line, []);
    lineEvents.get(ev.line).push(ev.i);
  }
  return {
    ...model,
    // the outer programs stay whole while the steps go through the remat (inside.js)
    inside: { call, outerTotal: model.total, split: /** @type {Element | null} */ (null), outer: model },
    events,
    total: events.length,
    lineEvents,
    lineHue: lineHues([...model.lineHue.keys(), ...lineEvents.keys()]),
    // the outer residuals belong to the outer call equation, no inner step
    residuals: model.residuals.map((r) => ({ ...r, producer: null, consumers: [] })),
  };
}

/** Plain text of a narration sentence (backticks removed), with the step prefix and the
 *  user's line the equation came from.
 *  @param {Model} model @param {number} step */
export function narrationText(model, step) {
  if (!model.total) return "";
  if (step <= 0) {
    return modeOf(model.mode)?.staged
      ? `Step 0 of ${model.total}: nothing staged yet. Step forward to stage each traced operation.`
      : `Step 0 of ${model.total}: nothing judged yet. Step forward to send each traced ` +
          "equation to the known or the unknown program.";
  }
  const ev = model.events[step - 1];
  const where =
    ev.line != null ? `, line ${ev.line}${ev.source ? ` (\`${ev.source.replaceAll("`", "'")}\`)` : ""}` : "";
  const inside = model.inside ? ` inside ${model.inside.call.title}` : "";
  return `Step ${step} of ${model.total}${inside}${where}: ${ev.narration || ev.short || ev.eqn}`;
}

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

// What each role's pane is for (the titles come with the record).
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

export function kindOf(record) {
  if (!record) return "empty";
  if (record.error) return "error";
  // a checkpoint record carries the selected policy's split: animate it under the policy cards
  if (panesOf(record).length && Array.isArray(record.events)) return "panes";
  if (modeOf(record.mode)?.option === "policy") return "checkpoint"; // its policies' cards alone
  return "empty";
}

export const SIDE_LABEL = {
  known: "known",
  unknown: "unknown",
  both: "both",
  "known-dropped": "known, unused",
  "unknown-dropped": "unknown, dropped",
  staged: "staged",
};

/** Badge letters: colour is never the only cue. */
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
 * @param {any} record an engine answer (or null)
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
  const events = record.events || [];
  const total = events.length;
  const residualsIn = record.residuals || [];
  const panes = panesOf(record).map((p, index) => {
    const prog = p.program;
    const n = prog.eqns.length;
    return {
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
  });
  const known = panes.find((p) => p.role === "known");
  const unknown = panes.find((p) => p.role === "unknown");
  const staged = panes.find((p) => p.role === "staged");

  const evs = events.map((ev, i) => {
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
    return { ...ev, i, places, side: ev.side || "staged", produces: [], reads: [] };
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
    let from = null;
    if (known) {
      if (r.known_eqn != null && r.known_eqn < known.eqnEvent.length) {
        from = { pane: known.index, eqn: r.known_eqn };
      } else if (r.from_input != null || r.producer == null) {
        from = { pane: known.index, invar: r.known_name };
      }
    }
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

  const lineEvents = new Map();
  for (const ev of evs) {
    if (ev.line == null) continue;
    if (!lineEvents.has(ev.line)) lineEvents.set(ev.line, []);
    lineEvents.get(ev.line).push(ev.i);
  }
  const lineHue = lineHues([...lineEvents.keys(), ...panes.flatMap((p) => p.program.lines ?? [])]);
  return { kind, mode: record.mode, record, panes, events: evs, residuals, edges, lineEvents, lineHue, total };
}

export const LINE_HUES = 8;

/** One colour per source line (an index into LINE_HUES), in order of first appearance: the
 *  line in the editor and its equations in every pane share it. */
export function lineHues(lines) {
  const hue = new Map();
  for (const line of lines) if (line != null && !hue.has(line)) hue.set(line, hue.size % LINE_HUES);
  return hue;
}

/** Events, residuals and edges a link refers to (for linked highlighting). */
export function resolveLink(model, link) {
  const events = new Set();
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

/** Plain text of a narration sentence (backticks removed), with the step prefix. */
export function narrationText(model, step) {
  if (!model.total) return "";
  if (step <= 0) {
    return modeOf(model.mode)?.staged
      ? `Step 0 of ${model.total}: nothing staged yet. Step forward to stage each traced operation.`
      : `Step 0 of ${model.total}: nothing judged yet. Step forward to send each traced ` +
          "equation to the known or the unknown program.";
  }
  const ev = model.events[step - 1];
  return `Step ${step} of ${model.total}: ${ev.narration || ev.short || ev.eqn}`;
}

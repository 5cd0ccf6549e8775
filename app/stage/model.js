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

const KNOWN_IDS = new Set(["known", "forward", "primal"]);
const UNKNOWN_IDS = new Set(["unknown", "linear", "tangent"]);

/** "known" | "unknown" | "staged" | "other": which events' equations a pane holds. */
export function paneRole(pane) {
  if (pane.role) return pane.role;
  if (KNOWN_IDS.has(pane.id)) return "known";
  if (UNKNOWN_IDS.has(pane.id)) return "unknown";
  return "other";
}

const PANE_TEXT = {
  known: { title: "Known program", sub: "runs now, while tracing: every input is known" },
  unknown: { title: "Unknown program", sub: "staged for later: reads residuals and unknown inputs" },
  staged: { title: "Staged program", sub: "every operation becomes an equation" },
};

/** The panes of a record, with roles, whatever its mode. */
export function panesOf(record) {
  if (Array.isArray(record.panes)) {
    return record.panes.map((p) => ({ ...p, role: paneRole(p) }));
  }
  if (record.mode === "jit") {
    return [{ id: "staged", role: "staged", title: PANE_TEXT.staged.title, program: record.program }];
  }
  if (record.known && record.unknown) {
    return [
      { id: "known", role: "known", title: PANE_TEXT.known.title, program: record.known },
      { id: "unknown", role: "unknown", title: PANE_TEXT.unknown.title, program: record.unknown },
    ];
  }
  return [];
}

export function kindOf(record) {
  if (!record) return "empty";
  if (record.error) return "error";
  // a checkpoint record carries the selected policy's split: animate it under the policy cards
  if (panesOf(record).length && Array.isArray(record.events)) return "panes";
  if (record.mode === "checkpoint") return "checkpoint";
  return panesOf(record).length ? "panes" : "empty";
}

/** "{ lambda a:f32[]; b:f32[] c:f32[3]. let" -> {pre, consts:[{name,type}], invars:[...]}. */
export function parseHeader(header) {
  const m = /^\{ lambda (.*?); ?(.*?)\. let$/.exec(header || "");
  if (!m) return null;
  const vars = (s) =>
    s.trim() ? s.trim().split(/\s+/).map((t) => {
      const i = t.indexOf(":");
      return i < 0 ? { name: t, type: "" } : { name: t.slice(0, i), type: t.slice(i + 1) };
    }) : [];
  return { consts: vars(m[1]), invars: vars(m[2]) };
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
  known: "K", unknown: "U", both: "K+U", "known-dropped": "K", "unknown-dropped": "U", staged: "S",
};

/**
 * Build the view model. Pure; safe to call in tests.
 * @returns {{kind, mode, panes, events, residuals, edges, lineEvents, total}}
 */
export function buildModel(record) {
  const kind = kindOf(record);
  if (kind !== "panes") {
    return { kind, mode: record?.mode ?? null, panes: [], events: [], residuals: [], edges: [],
      lineEvents: new Map(), total: 0, record };
  }
  const events = record.events || [];
  const total = events.length;
  const residualsIn = record.residuals || [];
  const panes = panesOf(record).map((p, index) => {
    const prog = p.program || { header: "", eqns: [], footer: "", invars: [], outvars: [] };
    const n = prog.eqns?.length || 0;
    return {
      ...p, index, program: prog, sub: p.sub ?? PANE_TEXT[p.role]?.sub ?? "",
      testid: `${p.id}-jaxpr`,
      eqnEvent: new Array(n).fill(-1),
      // the step at which each equation appears; equations no event claims (other panes,
      // or parts of a call the engine split whole) appear when the split is done
      eqnReveal: new Array(n).fill(p.role === "staged" ? 0 : total),
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

  const nRes = residualsIn.length;
  const residuals = residualsIn.map((r, k) => {
    const creators = evs.filter((e) => (e.residuals || []).includes(k)).map((e) => e.i);
    const consumers = (r.consumers || []).filter((c) => c >= 0 && c < total);
    const first = Math.min(...creators, ...consumers, total);
    return {
      ...r, k, consumers, label: `r${k}`,
      reveal: first < total ? first + 1 : total,
    };
  });
  for (const r of residuals) {
    if (r.producer != null && evs[r.producer]) evs[r.producer].produces.push(r.k);
    for (const c of r.consumers) evs[c].reads.push(r.k);
  }

  // residual edges: one per (residual, consumer event)
  const edges = [];
  for (const r of residuals) {
    let from = null;
    if (known) {
      if (r.known_eqn != null && r.known_eqn < known.eqnEvent.length) {
        from = { pane: known.index, eqn: r.known_eqn };
      } else if (r.from_input != null || r.producer == null) {
        from = { pane: known.index, invar: r.known_name };
      }
    }
    for (const c of r.consumers) {
      const ev = evs[c];
      const target = unknown ? ev.places.find(([pi]) => pi === unknown.index) : null;
      edges.push({
        id: edges.length, k: r.k, consumer: c, label: r.label, from,
        to: target ? { pane: target[0], eqn: target[1] } : null,
        reveal: Math.max(c + 1, r.reveal),
      });
    }
  }

  // header/footer labels: residuals are the known program's trailing outputs and the
  // unknown program's leading inputs, in order
  if (known) {
    const outs = known.program.outvars || [];
    known.outLabels = outs.map((_, j) => {
      const k = j - (outs.length - nRes);
      return k >= 0 ? residuals[k] : null;
    });
  }
  if (unknown) {
    unknown.inLabels = (unknown.program.invars || []).map((_, j) => (j < nRes ? residuals[j] : null));
  }
  const args = record.args || [];
  if (known) {
    const knownArgs = args.filter((a) => a.known);
    known.argNames = (known.program.invars || []).map((_, j) => knownArgs[j]?.name ?? null);
  }
  if (unknown) {
    // autodiff: the unknown inputs are the tangents of the (all known) primal arguments
    const autodiff = record.mode === "grad" || record.mode === "checkpoint";
    const unknownNames = autodiff ? args.map((a) => `${a.name}\u0307`)
      : args.filter((a) => !a.known).map((a) => a.name);
    const ins = unknown.program.invars || [];
    unknown.argNames = ins.map((_, j) => (j >= nRes ? unknownNames[j - nRes] ?? null : null));
  }
  if (staged) staged.argNames = (staged.program.invars || []).map((_, j) => args[j]?.name ?? null);

  const lineEvents = new Map();
  for (const ev of evs) {
    if (ev.line == null) continue;
    if (!lineEvents.has(ev.line)) lineEvents.set(ev.line, []);
    lineEvents.get(ev.line).push(ev.i);
  }
  return { kind, mode: record.mode, record, panes, events: evs, residuals, edges, lineEvents, total };
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
    return model.mode === "jit"
      ? `Step 0 of ${model.total}: nothing staged yet. Step forward to stage each traced operation.`
      : `Step 0 of ${model.total}: nothing judged yet. Step forward to send each traced `
        + "equation to the known or the unknown program.";
  }
  const ev = model.events[step - 1];
  return `Step ${step} of ${model.total}: ${ev.narration || ev.short || ev.eqn}`;
}

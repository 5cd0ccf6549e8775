// app/stage/model.js: the stage's view model, a pure function of a record, on the engine's own
// records (written by tests/test_js_units.py into the file PE_RECORDS names).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { LINE_HUES, buildModel, kindOf, lineHues, narrationText, resolveLink } from "../../../app/stage/model.js";

const RECORDS = JSON.parse(readFileSync(process.env.PE_RECORDS ?? "", "utf8"));

test("a record's kind: nothing, an error, or panes to animate", () => {
  assert.equal(kindOf(null), "empty");
  assert.equal(kindOf({ error: { message: "m" } }), "error");
  for (const name of ["split", "jit", "grad", "checkpoint"]) assert.equal(kindOf(RECORDS[name]), "panes", name);
  const cardsAlone = { ...RECORDS.checkpoint };
  delete cardsAlone.events; // its cards alone: nothing to animate
  assert.equal(kindOf(cardsAlone), "checkpoint");
});

test("every equation of a split is claimed by the event that judged it, and appears at its step", () => {
  const m = buildModel(RECORDS.split);
  assert.equal(m.total, RECORDS.split.events.length);
  const known = m.panes.find((p) => p.role === "known");
  const unknown = m.panes.find((p) => p.role === "unknown");
  for (const ev of m.events) {
    for (const j of ev.known_eqns ?? []) assert.equal(known.eqnReveal[j], ev.i + 1);
    for (const j of ev.unknown_eqns ?? []) assert.equal(unknown.eqnReveal[j], ev.i + 1);
  }
  assert.ok(m.residuals.length > 0);
  for (const e of m.edges) {
    assert.equal(e.from.pane, known.index);
    for (const to of e.to) assert.equal(to.pane, unknown.index);
    assert.ok(e.reveal >= 1 && e.reveal <= m.total);
  }
});

test("jit stages equation i at step i + 1, in its one pane", () => {
  const m = buildModel(RECORDS.jit);
  const staged = m.panes.find((p) => p.role === "staged");
  assert.deepEqual(
    staged.eqnReveal.slice(0, m.total),
    m.events.map((ev) => ev.i + 1),
  );
});

test("narration: step 0 says what stepping does in the mode's words, then each event's line", () => {
  const split = buildModel(RECORDS.split);
  const jit = buildModel(RECORDS.jit);
  assert.match(narrationText(split, 0), /^Step 0 of \d+: nothing judged yet/);
  assert.match(narrationText(jit, 0), /^Step 0 of \d+: nothing staged yet/);
  const ev = split.events[0];
  // the step is said with the reader's line it came from, when the event has one
  const where = ev.line ? `, line ${ev.line}` : "";
  assert.ok(narrationText(split, 1).startsWith(`Step 1 of ${split.total}${where}`));
  assert.ok(narrationText(split, 1).endsWith(ev.narration || ev.short || ev.eqn));
  assert.equal(narrationText(buildModel(null), 0), "");
});

test("a residual's link lights its producer and every consumer", () => {
  const m = buildModel(RECORDS.split);
  const r = m.residuals[0];
  const { events, residuals } = resolveLink(m, { residual: r.k });
  assert.ok(residuals.has(r.k));
  if (r.producer != null) assert.ok(events.has(r.producer));
  for (const c of r.consumers) assert.ok(events.has(c));
  assert.equal(resolveLink(m, null).events.size, 0);
});

test("source lines get hues in order of first appearance, wrapping after LINE_HUES", () => {
  const lines = [7, 3, 7, null, ...Array.from({ length: LINE_HUES }, (_, i) => 100 + i)];
  const hue = lineHues(lines);
  assert.equal(hue.get(7), 0);
  assert.equal(hue.get(3), 1);
  assert.equal(hue.has(null), false);
  assert.equal(hue.get(100 + LINE_HUES - 2), 0);
});

// app/page/update.js: the page's one update function, pure. Run by tests/test_js_units.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { changesRequest, initialPageState, update } from "../../../app/page/update.js";

const DOC = {
  code: "def f(x, y):\n  return x * y\n",
  known: { x: true, y: false },
  values: { x: "1.0", y: "2.0" },
  mode: "split",
  policy: "nothing_saveable",
  step: 3,
  folding: false,
  instantiate: [true],
};
const start = () => initialPageState(DOC, "ex");
const never = () => false;
const always = () => true;

test("an edit of the code lands on the new split's last step and forgets forced outputs", () => {
  const s = update(start(), { type: "code", code: DOC.code + "# c\n" }, never);
  assert.equal(s.doc.step, null);
  assert.deepEqual(s.doc.instantiate, []);
  assert.equal(s.touched, true);
  assert.equal(s.exampleId, "");
});

test("the same code keeps its forced outputs, and the example when it still is one", () => {
  const s = update(start(), { type: "code", code: DOC.code }, always);
  assert.deepEqual(s.doc.instantiate, [true]);
  assert.equal(s.exampleId, "ex");
});

test("an input called __proto__ is an entry like any other", () => {
  const s = update(start(), { type: "known", name: "__proto__", known: true }, never);
  assert.equal(Object.getOwnPropertyDescriptor(s.doc.known, "__proto__")?.value, true);
  assert.equal(s.doc.known.x, true);
  const v = update(start(), { type: "value", name: "__proto__", text: 3 }, never);
  assert.equal(Object.getOwnPropertyDescriptor(v.doc.values, "__proto__")?.value, "3");
});

test("a mode change to an unknown mode or to the same mode changes nothing", () => {
  const s = start();
  assert.equal(update(s, { type: "mode", mode: "nope" }, never), s);
  assert.equal(update(s, { type: "mode", mode: "split" }, never), s);
  assert.equal(update(s, { type: "mode", mode: "grad" }, never).doc.mode, "grad");
});

test("a step to where the stage is keeps the state; a reader's step touches it", () => {
  const s = start();
  assert.equal(update(s, { type: "step", step: 3 }, never), s);
  const t = update(s, { type: "step", step: 1, byUser: true }, never);
  assert.equal(t.doc.step, 1);
  assert.equal(t.touched, true);
  assert.equal(update(s, { type: "step", step: 1 }, never).touched, false);
});

test("an error answer keeps the record drawn and locates the error", () => {
  const record = { mode: "split" };
  let s = update(start(), { type: "answer", answer: record, key: "k" }, never);
  assert.equal(s.record, record);
  assert.equal(s.recordKey, "k");
  const error = { type: "NameError", message: "", lineno: 2, input: "x" };
  s = update(s, { type: "answer", answer: { error }, key: "k2" }, never);
  assert.deepEqual(s.error, { type: "NameError", message: "error", line: 2, input: "x" });
  assert.equal(s.record, record);
  assert.equal(s.recordKey, "k");
  s = update(s, { type: "answer", answer: { error: { ...error, lineno: "2" } }, key: "k2" }, never);
  assert.equal(s.error.line, null);
});

test("the mask explorer's answer is kept with its key", () => {
  const answer = { mode: "masks" };
  const s = update(start(), { type: "masks", key: "m", answer }, never);
  assert.deepEqual(s.masks, { key: "m", answer });
});

test("a signature of another code than the doc's is dropped", () => {
  const s = start();
  const other = { code: "def g(): pass\n", name: "g", params: [] };
  assert.equal(update(s, { type: "signature", signature: other }, never), s);
  const own = { code: DOC.code, name: "f", params: ["x", "y"] };
  assert.equal(update(s, { type: "signature", signature: own }, never).signature, own);
});

test("waiting and touch change the state only when they change something", () => {
  const s = start();
  assert.equal(update(s, { type: "waiting", on: false }, never), s);
  assert.equal(update(s, { type: "waiting", on: true }, never).waiting, true);
  const t = update(s, { type: "touch" }, never);
  assert.equal(update(t, { type: "touch" }, never), t);
});

test("an unknown change is a bug, said at once", () => {
  assert.throws(() => update(start(), { type: "bogus" }, never), /unknown change/);
});

test("only the changes of what is traced call for a run", () => {
  for (const type of ["code", "known", "value", "mode", "policy", "folding", "instantiate", "load"]) {
    assert.equal(changesRequest({ type }), true, type);
  }
  for (const type of ["step", "answer", "touch", "signature", "waiting", "masks"]) {
    assert.equal(changesRequest({ type }), false, type);
  }
});

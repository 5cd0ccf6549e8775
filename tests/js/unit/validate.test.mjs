// app/contract/validate.js: the contract check on the engine's own records (written by
// tests/test_js_units.py into the file PE_RECORDS names), and the path each problem names.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { answerProblems } from "../../../app/contract/validate.js";

const RECORDS = JSON.parse(readFileSync(process.env.PE_RECORDS ?? "", "utf8"));

test("the engine's records keep the contract", () => {
  for (const [mode, record] of Object.entries(RECORDS)) assert.deepEqual(answerProblems(record), [], mode);
});

test("a problem names the path to the value, however deep, and the path after it is its own", () => {
  const rec = structuredClone(RECORDS.grad);
  rec.events[1].side = "sideways";
  rec.panes[0].program.eqns[0] = 7;
  rec.panes[0].program.extra = true;
  delete rec.residuals[0].aval;
  // (in the record's own order of keys)
  const problems = Object.fromEntries(answerProblems(rec).map((p) => [p.split(":")[0], p]));
  assert.deepEqual(Object.keys(problems).sort(), [
    "record.events[1].side",
    "record.panes[0].program",
    "record.panes[0].program.eqns[0]",
    "record.residuals[0]",
  ]);
  assert.match(problems["record.events[1].side"], /"sideways" is not one of/);
  assert.match(problems["record.panes[0].program.eqns[0]"], /expected string/);
  assert.match(problems["record.panes[0].program"], /unexpected extra/);
  assert.match(problems["record.residuals[0]"], /missing aval/);
});

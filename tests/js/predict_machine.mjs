// Predict mode's state machine (app/stage/predict.js) on the stage's own model of engine
// records, run in Node for tests/test_predict.py. One JSON {record, script} per line in, where
// script is a list of answers ({side} or {residuals: [names]}); one JSON per line out: the
// questions, the state after each answer (phase, at, score, reveal) and the final score text.
import { createInterface } from "node:readline";
import { buildModel } from "../../app/stage/model.js";
import { answerResiduals, answerSide, revealText, scoreOf, scoreText, startPredict } from "../../app/stage/predict.js";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const { record, script } = JSON.parse(line);
  const model = buildModel(record);
  let state = startPredict(model.events, model.mode);
  const questions = state.questions;
  const steps = [];
  for (const a of script) {
    state = "side" in a ? answerSide(state, a.side) : answerResiduals(state, a.residuals);
    steps.push({ phase: state.phase, at: state.at, score: scoreOf(state), reveal: revealText(state) });
  }
  const out = { total: model.total, questions, steps, final: scoreText(state) };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

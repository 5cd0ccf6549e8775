// The page's contract check (app/contract/validate.js), run in Node for tests/test_contract.py.
// One JSON value per line in, one JSON list of problems per line out, in order. The argument
// says what the values are: "record" (answers of pe_engine.explain.run), "policy" (answers of
// pe_engine.explain.checkpoint_policy), "signature" (pe_engine.explain.signature's) or
// "request" ({mode, kwargs}: requests, mode "policy" for checkpoint_policy's).
import { createInterface } from "node:readline";
import {
  answerProblems,
  policyAnswerProblems,
  requestProblems,
  signatureProblems,
} from "../../app/contract/validate.js";

const CHECKS = {
  record: answerProblems,
  policy: policyAnswerProblems,
  signature: signatureProblems,
  request: requestProblems,
};
const problemsOf = CHECKS[process.argv[2] ?? "record"];

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim()) process.stdout.write(`${JSON.stringify(problemsOf(JSON.parse(line)))}\n`);
}

// The page's contract check (app/contract/validate.js), run in Node for tests/test_contract.py.
// One JSON answer per line in, one JSON list of problems per line out, in order. With the
// argument "policy", the answers are pe_engine.explain.checkpoint_policy's.
import { createInterface } from "node:readline";
import { answerProblems, policyAnswerProblems } from "../../app/contract/validate.js";

const problemsOf = process.argv[2] === "policy" ? policyAnswerProblems : answerProblems;

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim()) process.stdout.write(`${JSON.stringify(problemsOf(JSON.parse(line)))}\n`);
}

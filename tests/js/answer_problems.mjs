// The page's contract check (app/contract/validate.js), run in Node for tests/test_contract.py.
// One JSON answer per line in, one JSON list of problems per line out, in order.
import { createInterface } from "node:readline";
import { answerProblems } from "../../app/contract/validate.js";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim()) process.stdout.write(`${JSON.stringify(answerProblems(JSON.parse(line)))}\n`);
}

// The page's merge of pending checkpoint policies (app/page/pending-policies.js), run in Node
// for tests/test_checkpoint_pending.py. One JSON {first, answers} per line in, the record the
// page ends with per line out, in order.
import { createInterface } from "node:readline";
import { withPolicy } from "../../app/page/pending-policies.js";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const { first, answers } = JSON.parse(line);
  process.stdout.write(`${JSON.stringify(answers.reduce(withPolicy, first))}\n`);
}

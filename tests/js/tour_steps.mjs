// The guided tour's steps (app/page/tour-steps.js), run in Node for tests/test_predict.py: one
// JSON record (or null) per line in, its five steps per line out.
import { createInterface } from "node:readline";
import { tourSteps } from "../../app/page/tour-steps.js";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim()) process.stdout.write(`${JSON.stringify(tourSteps(JSON.parse(line)))}\n`);
}

// The page's own request building (app/state.js, app/page/opening-requests.js), run in Node
// for the build and the tests, so no other copy of it exists.
//
//   node tools/page_requests.mjs opening          -> JSON [{mode, kwargs, key}]: every request
//                                                    the page makes on its opening state
//   node tools/page_requests.mjs examples         -> JSON [{mode, kwargs, key}]: every example
//                                                    in every mode
//   node tools/page_requests.mjs states < lines   -> one {mode, kwargs, key} per JSON page
//                                                    state ({code, known, values, mode, ...})
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { exampleRequests, openingRequests } from "../app/page/opening-requests.js";
import { DEFAULT_POLICY } from "../app/contract/record.js";
import { requestFor, requestKey } from "../app/state.js";

const [command] = process.argv.slice(2);
const examples = () => JSON.parse(readFileSync(new URL("../app/examples.json", import.meta.url), "utf8"));
if (command === "opening") {
  process.stdout.write(`${JSON.stringify(openingRequests(examples()))}\n`);
} else if (command === "examples") {
  process.stdout.write(`${JSON.stringify(exampleRequests(examples()))}\n`);
} else if (command === "states") {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const state = { known: {}, values: {}, policy: DEFAULT_POLICY, folding: false, ...JSON.parse(line) };
    const req = requestFor(state);
    process.stdout.write(`${JSON.stringify({ ...req, key: requestKey(req) })}\n`);
  }
} else {
  process.stderr.write("usage: node tools/page_requests.mjs opening | examples | states\n");
  process.exitCode = 2;
}

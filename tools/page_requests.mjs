// The page's own request building and permalinks (app/state.js, app/page/opening-requests.js),
// run in Node for the build, the command line and the tests, so no other copy of them exists.
// Python reaches it through pe_engine/explain/pagecode.py.
//
//   node tools/page_requests.mjs opening           -> JSON [{mode, kwargs, key}]: every request
//                                                     the page makes on its opening state
//   node tools/page_requests.mjs examples          -> JSON [{mode, kwargs, key}]: every example
//                                                     in every mode
//   node tools/page_requests.mjs states < lines    -> one {mode, kwargs, key} per JSON page
//                                                     state ({code, known, values, mode, ...})
//   node tools/page_requests.mjs signatures < lines -> one {name, params} (or null: no `def`)
//                                                     per JSON string of code (parseSignature)
//   node tools/page_requests.mjs links < lines     -> one {ok: true, hash: "v1.…"} or
//                                                     {ok: false, error} per JSON page state
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { exampleRequests, openingRequests } from "../app/page/opening-requests.js";
import { DEFAULT_POLICY } from "../app/contract/values.js";
import { PermalinkError, encodePermalink, normalize, parseSignature, requestFor, requestKey } from "../app/state.js";

/** A page state from a line: what the page would hold, with its defaults filled in. */
const pageState = (line) => ({ known: {}, values: {}, policy: DEFAULT_POLICY, folding: false, ...JSON.parse(line) });

/** One answer per non-empty line of stdin, in order. */
async function perLine(answer) {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    process.stdout.write(`${JSON.stringify(await answer(line))}\n`);
  }
}

async function link(line) {
  try {
    return { ok: true, hash: await encodePermalink(normalize(pageState(line))) };
  } catch (err) {
    if (err instanceof PermalinkError) return { ok: false, error: err.message };
    throw err;
  }
}

const [command] = process.argv.slice(2);
const examples = () => JSON.parse(readFileSync(new URL("../app/examples.json", import.meta.url), "utf8"));
if (command === "opening") {
  process.stdout.write(`${JSON.stringify(openingRequests(examples()))}\n`);
} else if (command === "examples") {
  process.stdout.write(`${JSON.stringify(exampleRequests(examples()))}\n`);
} else if (command === "states") {
  await perLine((line) => {
    const req = requestFor(pageState(line));
    return { ...req, key: requestKey(req) };
  });
} else if (command === "signatures") {
  await perLine((line) => parseSignature(JSON.parse(line)));
} else if (command === "links") {
  await perLine(link);
} else {
  process.stderr.write("usage: node tools/page_requests.mjs opening | examples | states | signatures | links\n");
  process.exitCode = 2;
}

// The page's own request building and permalinks (app/state.js, app/page/opening-requests.js),
// run in Node for the build and the tests, so no other copy of them exists. Python reaches it
// through tools/page_code.py. The page parses no Python: the first line of stdin is
// {"signatures": {source: SignatureAnswer}}, the engine's reading of every source the lines
// that follow (or the opening requests) hold, seeded as the page seeds the build's.
//
//   node tools/page_requests.mjs sources           -> JSON [source]: every source the page
//                                                     opens with (the examples', the demos')
//   node tools/page_requests.mjs opening           -> JSON [{mode, kwargs, key}]: every request
//                                                     the page makes on its opening state
//   node tools/page_requests.mjs examples          -> JSON [{mode, kwargs, key, example}]: every
//                                                     example in every mode
//   node tools/page_requests.mjs states < lines    -> one {mode, kwargs, key} per JSON page
//                                                     state ({code, known, values, mode, ...})
//   node tools/page_requests.mjs links < lines     -> one {ok: true, hash: "v1.…"} or
//                                                     {ok: false, error} per JSON page state
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { exampleRequests, openingRequests, openingSources } from "../app/page/opening-requests.js";
import { DEFAULT_POLICY } from "../app/contract/values.js";
import { seedSignatures } from "../app/signatures.js";
import { PermalinkError, encodePermalink, normalize, requestFor, requestKey } from "../app/state.js";

/** A page state from a line: what the page would hold, with its defaults filled in. */
const pageState = (line) => ({ known: {}, values: {}, policy: DEFAULT_POLICY, folding: false, ...JSON.parse(line) });

/** The non-empty lines of stdin, the signatures of the first seeded. */
async function input() {
  const lines = [];
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim()) lines.push(line);
  }
  seedSignatures(JSON.parse(lines.shift() ?? "{}").signatures);
  return lines;
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
const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
if (command === "sources") {
  say(openingSources(examples()));
} else if (command === "opening") {
  await input();
  say(openingRequests(examples()));
} else if (command === "examples") {
  await input();
  say(exampleRequests(examples()));
} else if (command === "states") {
  for (const line of await input()) {
    const req = requestFor(pageState(line));
    say({ ...req, key: requestKey(req) });
  }
} else if (command === "links") {
  for (const line of await input()) say(await link(line));
} else {
  process.stderr.write("usage: node tools/page_requests.mjs sources | opening | examples | states | links\n");
  process.exitCode = 2;
}

// Every kind of request the page's code builds, for tests/test_contract.py to check against
// the request contract: each example's request in each mode (instantiate forcing an output in
// split), as first sent (firstRequest), whole (wholeRequest), its checkpoint policies apart
// (policyKwargs), asked ahead (anticipate.js), the Masks view's, and the opening requests (the
// demos' included). One JSON {where, mode, kwargs} a line (mode "policy": checkpoint_policy's).
// stdin: {"signatures": {source: SignatureAnswer}}, the engine's reading of those sources.
import { readFileSync } from "node:fs";
import { text } from "node:stream/consumers";
import { seedSignatures } from "../../app/signatures.js";
import { openingRequests } from "../../app/page/opening-requests.js";
import { nextRequests } from "../../app/page/anticipate.js";
import { firstRequest, policyKwargs } from "../../app/page/pending-policies.js";
import { wholeRequest } from "../../app/page/pending-whole.js";
import { POLICY_NAMES } from "../../app/contract/values.js";
import { MODES } from "../../app/modes.js";
import { masksRequest, requestFor, stateFromExample } from "../../app/state.js";

seedSignatures(JSON.parse(await text(process.stdin)).signatures);
const examples = JSON.parse(readFileSync(new URL("../../app/examples.json", import.meta.url), "utf8"));
const out = [];
const put = (where, { mode, kwargs }) => out.push({ where, mode, kwargs });

openingRequests(examples).forEach((r, i) => put(`opening[${i}]`, r));
for (const ex of examples.examples) {
  const state = stateFromExample(ex);
  for (const mode of MODES) {
    const req = requestFor({ ...state, mode });
    put(`${ex.id}/${mode}`, req);
    put(`${ex.id}/${mode}/first`, firstRequest(req));
    put(`${ex.id}/${mode}/whole`, wholeRequest(firstRequest(req)));
    if (mode === "checkpoint") {
      POLICY_NAMES.forEach((p) => put(`${ex.id}/policy/${p}`, { mode: "policy", kwargs: policyKwargs(req, p) }));
    }
  }
  const forced = requestFor({ ...state, mode: "split", instantiate: [true] });
  put(`${ex.id}/split/instantiate`, forced);
  for (const mode of MODES) {
    const masks = masksRequest({ ...state, mode });
    if (masks) put(`${ex.id}/${mode}/masks`, masks);
  }
  nextRequests(state, null).forEach((r, i) => put(`${ex.id}/ahead[${i}]`, r.req));
}
process.stdout.write(out.map((r) => `${JSON.stringify(r)}\n`).join(""));

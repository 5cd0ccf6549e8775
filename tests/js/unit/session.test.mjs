// The engine session: its pure core (app/page/answers.js: the answers kept, the seeded records,
// the parts of a record and their merge) and its adapter (app/page/session.js) on a stand-in
// engine: asking ahead, the demos' requests, the mask explorer's. Run by tests/test_js_units.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createAnswers, mergePart, nextPart, partRequest, waitsForPart } from "../../../app/page/answers.js";
import { createSession } from "../../../app/page/session.js";

globalThis.requestAnimationFrame ??= (cb) => setTimeout(cb, 0);

test("answers beyond the limit forget the oldest; a kept one used again is the newest", () => {
  const a = createAnswers({ limit: 2, check: () => [] });
  a.keep("1", { n: 1 });
  a.keep("2", { n: 2 });
  a.keep("1", { n: 1 });
  a.keep("3", { n: 3 });
  assert.equal(a.get("2"), undefined);
  assert.deepEqual([a.get("1"), a.get("3")], [{ n: 1 }, { n: 3 }]);
});

test("a seeded record is checked once, when first used; one that breaks the contract is dropped", () => {
  const checked = [];
  const a = createAnswers({ limit: 5, check: (r) => (checked.push(r), r.bad ? ["bad"] : []) });
  a.seed("good", { ok: 1 });
  a.seed("bad", { bad: 1 });
  assert.equal(a.has("good") && a.has("bad"), true);
  assert.equal(checked.length, 0); // has() checks nothing
  assert.deepEqual(a.get("good"), { ok: 1 });
  assert.deepEqual(a.get("good"), { ok: 1 });
  assert.equal(a.get("bad"), undefined);
  assert.equal(a.has("bad"), false);
  assert.equal(checked.length, 2);
});

const split = (n, extra = {}) => ({
  mode: "grad",
  events: Array.from({ length: n }, (_, i) => ({ i, primitive: i ? "mul" : "sin" })),
  panes: [],
  residuals: [],
  ...extra,
});

test("a record's parts: the rest of its whole request first, then each pending policy", () => {
  assert.deepEqual(nextPart(split(2, { unopened_calls: [1], pending_policies: ["a"] })), { kind: "whole" });
  assert.deepEqual(nextPart(split(2, { saved_residuals: null })), { kind: "whole" });
  assert.deepEqual(nextPart({ mode: "checkpoint", pending_policies: ["a", "b"] }), { kind: "policy", policy: "a" });
  assert.equal(nextPart(split(2, { saved_residuals: [] })), null);
  assert.equal(waitsForPart(null), false);
});

test("a part's request: the whole request without what the first one left out, or one policy", () => {
  const req = { mode: "checkpoint", kwargs: { source: "s", args: [], policy: "nothing_saveable" } };
  const whole = partRequest(req, { kind: "whole" });
  assert.deepEqual(whole, {
    entry: "run",
    request: { mode: "checkpoint", kwargs: { source: "s", args: [], policy: "nothing_saveable", only_selected: true } },
  });
  assert.deepEqual(partRequest(req, { kind: "policy", policy: "dots_saveable" }), {
    entry: "policy",
    kwargs: { source: "s", args: [], policy: "dots_saveable" },
  });
});

test("the whole answer's calls and saved residuals are merged in; another split's is refused", () => {
  const first = split(2, { unopened_calls: [1], saved_residuals: null, saved_bytes: null });
  const whole = split(2, { saved_residuals: [{ bytes: 4 }], saved_bytes: 4 });
  whole.events[1].call = { inner: true };
  const merged = mergePart(first, { kind: "whole" }, whole);
  assert.deepEqual(merged.events[1].call, { inner: true });
  assert.equal(merged.events[0], first.events[0]); // the split drawn stands
  assert.equal(merged.saved_bytes, 4);
  assert.equal("unopened_calls" in merged, false);
  assert.equal(waitsForPart(merged), false);
  assert.equal(mergePart(first, { kind: "whole" }, split(3, { saved_residuals: [] })), null);
});

test("a policy's card and memory line are merged in in the rows' order", () => {
  const first = {
    mode: "checkpoint",
    policies: [{ name: "nothing_saveable" }],
    memory: [{ policy: "nothing_saveable" }],
    pending_policies: ["no checkpoint", "dots_saveable"],
  };
  const one = mergePart(
    first,
    { kind: "policy", policy: "no checkpoint" },
    {
      policy: { name: "no checkpoint" },
      memory: { policy: "no checkpoint" },
    },
  );
  const two = mergePart(
    one,
    { kind: "policy", policy: "dots_saveable" },
    {
      policy: { name: "dots_saveable" },
      memory: { policy: "dots_saveable" },
    },
  );
  assert.deepEqual(
    two.policies.map((p) => p.name),
    ["no checkpoint", "nothing_saveable", "dots_saveable"],
  );
  assert.deepEqual(two.pending_policies, []);
  assert.equal(nextPart(two), null);
});

/** A stand-in engine whose calls wait until released, and a session on it. */
function rig({ error = null } = {}) {
  const calls = [];
  const engine = {
    state: "ready",
    info: {},
    call(fn, kwargs, opts) {
      return new Promise((resolve) => calls.push({ fn, kwargs, opts, resolve }));
    },
  };
  let state = { error, doc: {} };
  const changes = [];
  let settle = () => {};
  const settled = () => new Promise((resolve) => (settle = resolve));
  const session = createSession({ engine, getState: () => state, dispatch: (c) => changes.push(c), settled });
  return { calls, changes, session, settleNow: () => settle(), setState: (s) => (state = { ...state, ...s }) };
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const record = (mode) => ({ version: 1, mode, fn: "f", args: [] });

test("the page's request asked ahead is awaited, hurried, not asked twice", async () => {
  const { calls, session } = rig();
  const req = { mode: "jit", kwargs: { source: "s", args: [] } };
  const handleHurried = [];
  const ahead = session.askAhead({ key: "k", req });
  calls[0].opts.handle.hurry = () => handleHurried.push(true);
  assert.equal(session.answered("k"), true);
  const asked = session.ask(req, "k");
  await tick();
  assert.equal(calls.length, 1);
  assert.deepEqual(handleHurried, [true]);
  calls[0].resolve({ error: { type: "Stand-in", message: "m", lineno: null } });
  await ahead;
  const answer = await asked;
  assert.equal(answer.error.type, "Stand-in");
  assert.equal(session.answers.get("k"), answer);
});

test("an answer asked ahead that made way is asked again when the page needs it", async () => {
  const { calls, session } = rig();
  const req = { mode: "jit", kwargs: { source: "s", args: [] } };
  session.askAhead({ key: "k", req });
  const asked = session.ask(req, "k");
  const failure = Object.assign(new Error("made way"), { type: "cancelled" });
  calls[0].resolve(Promise.reject(failure));
  await tick();
  assert.equal(calls.length, 2);
  assert.equal(calls[1].opts.quiet, undefined);
  calls[1].resolve({ error: { type: "Stand-in", message: "m", lineno: null } });
  assert.equal((await asked).error.type, "Stand-in");
});

test("the demos' requests wait for the page to settle, share one call per key, skip the unwanted", async () => {
  const { calls, session, settleNow } = rig();
  const req = { mode: "grad", kwargs: { source: "s", args: [] } };
  const a = session.request(req);
  const b = session.request(req);
  assert.equal(a, b);
  let wanted = true;
  const c = session.request({ mode: "split", kwargs: { source: "t", args: [] } }, { stillWanted: () => wanted });
  await tick();
  assert.equal(calls.length, 0); // the main view is not idle yet
  settleNow();
  await tick();
  assert.equal(calls.length, 1);
  wanted = false;
  calls[0].resolve({ error: { type: "Stand-in", message: "m", lineno: null } });
  assert.equal((await a).error.type, "Stand-in");
  assert.equal(await c, null);
  assert.equal(calls.length, 1);
});

test("the mask explorer's record is dispatched, asked once the page is idle and only the latest", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { calls, changes, session, settleNow } = rig();
  const first = { mode: "masks", kwargs: { source: "a", args: [], as_mode: "split" } };
  const second = { mode: "masks", kwargs: { source: "b", args: [], as_mode: "grad" } };
  session.wantMasks(first);
  session.wantMasks(second);
  await Promise.resolve();
  await Promise.resolve();
  settleNow();
  for (let i = 0; i < 5; i++) await Promise.resolve();
  t.mock.timers.tick(10_000);
  for (let i = 0; i < 5; i++) await Promise.resolve();
  settleNow(); // idle again after the pause
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.deepEqual(
    calls.map((c) => c.kwargs.source),
    ["b"],
  );
  assert.equal(calls[0].opts.quiet, true);
  calls[0].resolve({ ...record("masks"), traced_eqns: 1, traces: 1, masks: [] });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.equal(changes.length, 1);
  assert.equal(changes[0].type, "masks");
  assert.equal(changes[0].key, JSON.stringify(["masks", second.kwargs]));
});

test("a grid the page stopped wanting (its next function not read yet) is never asked", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { calls, changes, session, settleNow } = rig();
  session.wantMasks({ mode: "masks", kwargs: { source: "a", args: [], as_mode: "checkpoint" } });
  await Promise.resolve();
  await Promise.resolve();
  settleNow();
  for (let i = 0; i < 5; i++) await Promise.resolve();
  session.wantMasks(null); // an edit: its function is not read yet, so no grid is wanted
  t.mock.timers.tick(10_000);
  for (let i = 0; i < 5; i++) await Promise.resolve();
  settleNow();
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.equal(calls.length, 0);
  assert.equal(changes.length, 0);
});

test("after the pause the grid waits for the page to be idle again (a change's run and follow-ups)", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { calls, session, settleNow } = rig();
  session.wantMasks({ mode: "masks", kwargs: { source: "a", args: [], as_mode: "checkpoint" } });
  await Promise.resolve();
  await Promise.resolve();
  settleNow();
  for (let i = 0; i < 5; i++) await Promise.resolve();
  t.mock.timers.tick(10_000); // the pause is over while another mask's run is followed up
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.equal(calls.length, 0);
  settleNow();
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.equal(calls.length, 1);
  assert.equal(calls[0].opts.quiet, true);
});

test("no masks are asked while the page shows an error: the explorer waits for a fix", async () => {
  const { calls, changes, session, settleNow } = rig({ error: { message: "x" } });
  session.wantMasks({ mode: "masks", kwargs: { source: "a", args: [], as_mode: "split" } });
  await Promise.resolve();
  settleNow();
  await tick();
  assert.equal(calls.length, 0);
  assert.deepEqual(
    changes.map((c) => [c.type, c.answer]),
    [["masks", null]],
  );
});

test("a demo is not handed a record still waiting for its parts: the whole one is asked", async () => {
  const { calls, session, settleNow } = rig();
  const req = { mode: "split", kwargs: { source: "s", args: [] } };
  const key = JSON.stringify(["split", req.kwargs]);
  session.answers.keep(key, { ...record("split"), unopened_calls: [0] });
  const asked = session.request(req);
  await tick();
  settleNow();
  await tick();
  assert.equal(calls.length, 1);
  calls[0].resolve({ error: { type: "Stand-in", message: "m", lineno: null } });
  assert.equal((await asked).error.type, "Stand-in");
});

// The page's runner (app/page/runner.js) on a stand-in engine, run in Node for
// tests/test_runner_schedule.py: when a change's request leaves, and how changes made in one
// task share a request. Prints one JSON object of observations.
import { createRunner } from "../../app/page/runner.js";
import { createSession } from "../../app/page/session.js";
import { requestFor, requestKey, stateFromExample } from "../../app/state.js";
import { seedSignatures } from "../../app/signatures.js";

globalThis.requestAnimationFrame = (cb) => setTimeout(cb, 0);

const EXAMPLE = {
  code: "def f(x, y):\n  return x * y\n",
  known: { x: true, y: false },
  values: { x: "1.0", y: "2.0" },
  mode: "split",
};
// every source here (the example, edited) is f(x, y), as the stand-in reads it; the example's
// is known from the start, as the build hands over the examples'
const SIGNATURE = { name: "f", params: ["x", "y"], lineno: 1 };
seedSignatures({ [EXAMPLE.code]: SIGNATURE });

function page() {
  const calls = []; // the changes' own
  const quiet = []; // asked ahead of the reader
  const engine = {
    state: "ready",
    info: {},
    async call(fn, kwargs, opts) {
      if (fn === "pe_engine.explain.signature") return SIGNATURE; // an edit's, read first
      (opts?.quiet ? quiet : calls).push(kwargs);
      return { error: { type: "Stand-in", message: "no engine here", lineno: null } };
    },
  };
  let state = { doc: stateFromExample(EXAMPLE), record: null, recordKey: null, error: null };
  const answers = [];
  const getState = () => state;
  const dispatch = (c) => {
    if (c.type === "answer") {
      answers.push(c.key);
      state = { ...state, recordKey: c.key, error: c.answer.error ?? null };
    }
  };
  const session = createSession({ engine, getState, dispatch, settled: async () => {} });
  const runner = createRunner({ engine, session, getState, dispatch });
  const setKnown = (name, known) => {
    state = { ...state, doc: { ...state.doc, known: { ...state.doc.known, [name]: known } } };
  };
  const edit = (code) => {
    state = { ...state, doc: { ...state.doc, code } };
  };
  const key = () => requestKey(requestFor(state.doc));
  return { calls, quiet, answers, runner, setKnown, edit, key };
}

const nextTask = () => new Promise((r) => setTimeout(r, 0));
const out = {};

// a change that asks now: its request leaves in the task that made the change, before any
// other task (a timer's would wait behind the frame the change dirtied)
{
  const p = page();
  p.runner.schedule(0);
  await Promise.resolve();
  out.nowSentInSameTask = p.calls.length === 1;
  await p.runner.whenIdle();
  out.nowAnswered = p.answers.length === 1 && p.answers[0] === p.key();
}

// two changes in one task: one request, for the state after both
{
  const p = page();
  p.setKnown("x", false);
  p.runner.schedule(0);
  p.setKnown("y", true);
  p.runner.schedule(0);
  await p.runner.whenIdle();
  out.oneTaskOneCall = p.calls.length;
  out.latestStateAsked = p.calls[0]?.args?.map((a) => a.known).join(",") ?? null;
}

// a debounced change after a "now" one in the same task: the debounce wins
{
  const p = page();
  p.runner.schedule(0);
  p.runner.schedule(60);
  await nextTask();
  out.debounceHeld = p.calls.length === 0;
  await p.runner.whenIdle();
  out.debounceSentOnce = p.calls.length;
}

// once an edit's answer is in, the input flipped last is asked flipped again at once (quiet),
// not after the reader's pause
{
  const p = page();
  p.runner.schedule(0);
  await p.runner.whenIdle();
  p.setKnown("y", true);
  p.runner.schedule(0);
  await p.runner.whenIdle();
  p.quiet.length = 0;
  p.edit(`${EXAMPLE.code}# edited\n`);
  p.runner.schedule(0);
  await p.runner.whenIdle();
  out.likeliestAskedAtOnce = p.quiet.map((kw) => `${kw.source.endsWith("# edited\n")}:${kw.args.map((a) => a.known)}`);
  out.readersCallsThen = p.calls.length;
}

// idle is not reported while a "now" run is queued
{
  const p = page();
  p.runner.schedule(0);
  let idle = false;
  p.runner.whenIdle().then(() => (idle = true));
  await Promise.resolve();
  out.busyWhileQueued = !idle;
  await p.runner.whenIdle();
}

process.stdout.write(`${JSON.stringify(out)}\n`);

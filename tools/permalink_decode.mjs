// The page's own permalink codec (app/state.js), run in Node for tests/test_permalink_fuzz.py.
//
//   node tools/permalink_decode.mjs < requests.jsonl > answers.jsonl
//
// One JSON request per line, one JSON answer per line, in order:
//   {"op": "decode", "hash": "#v1.…"}   -> {"ok": true, "state": {...}}
//                                         | {"ok": false, "error": {"name", "message"}}
//   {"op": "encode", "state": {...}}    -> {"ok": true, "hash": "v1.…"} | {"ok": false, ...}
//   {"op": "local", "stored": "<text>", "hash": null | "#…"}
//                                        -> {"ok": true, "state": {...} | null}  (loadLocal)
//   {"op": "save", "state": {...}, "base": "#…", "ahead": bool}
//                                        -> {"ok": true, "stored": "<text>"}       (saveLocal)
// A codec that throws anything but a PermalinkError answers {"ok": false, "crash": "..."}.
//
// state.js needs no DOM (Node 20 has CompressionStream, atob, Blob); package.json's
// "type": "module" makes Node read the page's .js files as the ES modules they are.
import { createInterface } from "node:readline";
import * as codec from "../app/state.js";

const store = new Map();
globalThis.localStorage = {
  getItem: (k) => (store.has(k) ? store.get(k) : null),
  setItem: (k, v) => {
    store.set(k, String(v));
  },
  removeItem: (k) => {
    store.delete(k);
  },
};

const plain = (state) => state && JSON.parse(JSON.stringify(state));

async function answer(req) {
  try {
    if (req.op === "decode") return { ok: true, state: plain(await codec.decodePermalink(req.hash)) };
    if (req.op === "encode") return { ok: true, hash: await codec.encodePermalink(req.state) };
    if (req.op === "local") {
      store.clear();
      if (req.stored !== null && req.stored !== undefined) store.set("pe-explainer.state.v1", req.stored);
      return { ok: true, state: plain(codec.loadLocal(req.hash ?? null)) };
    }
    if (req.op === "save") {
      store.clear();
      codec.saveLocal(req.state, req.base, req.ahead);
      return { ok: true, stored: store.get("pe-explainer.state.v1") ?? null };
    }
    return { ok: false, crash: `unknown op ${JSON.stringify(req.op)}` };
  } catch (err) {
    if (err instanceof codec.PermalinkError) return { ok: false, error: { name: err.name, message: err.message } };
    return { ok: false, crash: `${err && err.name}: ${err && err.message}\n${err && err.stack}` };
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let out;
  try {
    out = await answer(JSON.parse(line));
  } catch (err) {
    out = { ok: false, crash: `bad request line: ${err}` };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

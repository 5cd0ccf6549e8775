// A module worker of the site's own origin that fetches the engine's files (14 MB) and checks
// each one's sha256, so that neither runs on the page's main thread: received there, each
// large file's arrival cost the main thread a task of 20 to 100 ms on a 2-core machine, hashing
// 15 ms more, and handing the bytes to the sandboxed frame's process 100 ms of copying, all of
// which Lighthouse counts as blocking time. The head's script (engine-preloads.js) starts it
// once the first frame is drawn, or engine-sandbox.js does, and later tells it where the files
// go: a MessagePort whose other end is the engine worker's. Each file is moved over that port
// once its hash matches manifest.json's; the engine worker never talks back to this one.
//
// In: {cmd: 'fetch', urls}, then {cmd: 'deliver', port, files: [{url, path, name, sha256}]}.
// Out: {error} for each file that could not be fetched or did not match; it closes when done.
import { sha256Hex } from "./sha256.js";

const fetched = new Map(); // url -> Promise<{bytes, sha256} | {error}>

async function fetchOne(url) {
  try {
    const r = await fetch(url, { priority: "low" });
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const bytes = await r.arrayBuffer();
    return { bytes, sha256: await sha256Hex(bytes) };
  } catch (e) {
    return { error: String(e instanceof Error ? e.message : e) };
  }
}

const fetchAll = (/** @type {string[]} */ urls) => {
  for (const url of urls) if (!fetched.has(url)) fetched.set(url, fetchOne(url));
};

async function deliver(/** @type {MessagePort} */ port, /** @type {any[]} */ files) {
  fetchAll(files.map((f) => f.url));
  await Promise.all(
    files.map(async ({ url, path, name, sha256 }) => {
      const got = await fetched.get(url);
      if (got.error) self.postMessage({ error: `${path}: ${got.error}` });
      else if (got.sha256 !== sha256)
        self.postMessage({ error: `sha256 mismatch for ${path}: got ${got.sha256}, manifest.json says ${sha256}` });
      else port.postMessage({ cmd: "file", name, bytes: got.bytes }, [got.bytes]);
    }),
  );
  self.close();
}

self.onmessage = ({ data }) => {
  if (data.cmd === "fetch") fetchAll(data.urls);
  else if (data.cmd === "deliver") deliver(data.port, data.files);
};

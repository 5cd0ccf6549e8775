// Service worker: keeps one build of the page (Pyodide, numpy, the engine wheel, the app) in
// Cache Storage, so a repeat visit and a visit with the network cut load from disk without a
// single request. build.py writes dist/sw.js from this file, filling in BUILD (the build hash)
// and FILES ({path: sha256} of every file of the build, relative to this script); app/sw.js
// itself is not served.
//
// Cache Storage belongs to the whole origin: any script of the site could write into it. So
// a cached file is served only if its bytes still have the sha256 this very script was built
// with (a script's own text lives in the registration, not in Cache Storage, and no page code
// can rewrite it). An entry that does not match is deleted and the file comes from the
// network: a poisoned entry is refetched, never run.
//
// - install: caches FILES into "pe-explainer-<BUILD>" (revalidating, so files the HTTP cache
//   holds cost a 304), checks every cached file against FILES, and takes over at once
//   (skipWaiting): a rebuild reaches a returning visitor on the next visit.
// - activate: deletes the caches of other builds; claims the open pages.
// - fetch: GET requests for a file of the build (the query string ignored, so
//   wheels/x.whl?v=<hash> is wheels/x.whl; a navigation to the folder is index.html) come from
//   the cache when the entry is intact, else from the network; anything else goes to the
//   network untouched.
// - headers: a static host that cannot send headers serves the page without COOP/COEP (so no
//   SharedArrayBuffer: a runaway is stopped by tearing the engine down rather than by an
//   interrupt) and without the CSP header (index.html carries it as <meta>). From the second
//   visit on, this worker serves index.html with HEADERS (COOP, COEP, CSP) added where the
//   host left them out, and the page is cross-origin isolated.
// The page registers it once the engine is ready (service-worker.js, registerServiceWorker), so
// its downloads never compete with the first boot; without it the page works the same.
const BUILD = "dev";
const FILES = {};
const HEADERS = {};

const PREFIX = "pe-explainer-";
const CACHE = PREFIX + BUILD;
const BASE = new URL("./", self.location.href);
const HASHES = new Map(Object.entries(FILES).map(([f, h]) => [new URL(f, BASE).href, h]));
const INDEX = new URL("index.html", BASE).href;

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The cached response for `key` if its body still has the build's hash, else null (and the
// entry is gone).
async function intact(cache, key) {
  const hit = await cache.match(key);
  if (!hit) return null;
  const body = await hit.arrayBuffer();
  if ((await sha256(body)) === HASHES.get(key)) {
    return new Response(body, { status: hit.status, statusText: hit.statusText, headers: hit.headers });
  }
  await cache.delete(key);
  return null;
}

function withHeaders(response) {
  const missing = Object.entries(HEADERS).filter(([k]) => !response.headers.has(k));
  if (!missing.length || response.type === "opaqueredirect") return response;
  const headers = new Headers(response.headers);
  for (const [k, v] of missing) headers.set(k, v);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll([...HASHES.keys()].map((u) => new Request(u, { cache: "no-cache" })));
      for (const key of HASHES.keys()) {
        if (!(await intact(cache, key))) {
          await caches.delete(CACHE);
          throw new Error(`the server's ${key} is not the one build ${BUILD} was made with`);
        }
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

function cacheKey(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== BASE.origin) return null;
  const key = url.origin + url.pathname;
  if (request.mode === "navigate" && key === BASE.href) return INDEX;
  return HASHES.has(key) ? key : null;
}

self.addEventListener("fetch", (event) => {
  const key = cacheKey(event.request);
  if (key === null) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const response = (await intact(cache, key)) || (await fetch(event.request));
      return key === INDEX ? withHeaders(response) : response;
    })(),
  );
});

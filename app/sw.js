// Service worker: keeps one build of the page (Pyodide, numpy, the engine wheel, the app) in
// Cache Storage, so a repeat visit and a visit with the network cut load from disk without a
// single request. build.py writes dist/sw.js from this file, filling in BUILD (the build hash)
// and FILES (every file of the build, relative to this script); app/sw.js itself is not served.
//
// - install: caches FILES into "pe-explainer-<BUILD>" (revalidating, so files the HTTP cache
//   holds cost a 304), checks that the cached manifest.json is of this very build, and takes
//   over at once (skipWaiting): a rebuild reaches a returning visitor on the next visit.
// - activate: deletes the caches of other builds; claims the open pages.
// - fetch: GET requests for a file of the build (the query string ignored, so
//   wheels/x.whl?v=<hash> is wheels/x.whl; a navigation to the folder is index.html) come from
//   the cache, falling back to the network; anything else goes to the network untouched.
// The page registers it once the engine is ready (engine-client.js, registerServiceWorker), so
// its downloads never compete with the first boot; without it the page works the same.
const BUILD = "dev";
const FILES = [];

const PREFIX = "pe-explainer-";
const CACHE = PREFIX + BUILD;
const BASE = new URL("./", self.location.href);
const KEYS = new Set(FILES.map((f) => new URL(f, BASE).href));
const INDEX = new URL("index.html", BASE).href;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(FILES.map((f) => new Request(new URL(f, BASE), { cache: "no-cache" })));
    const manifest = await cache.match(new URL("manifest.json", BASE).href);
    const got = manifest ? (await manifest.json()).build_hash : null;
    if (got !== BUILD) {
      await caches.delete(CACHE);
      throw new Error(`the server has build ${got}, this service worker is for ${BUILD}`);
    }
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

function cacheKey(request) {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== BASE.origin) return null;
  const key = url.origin + url.pathname;
  if (request.mode === "navigate" && key === BASE.href) return INDEX;
  return KEYS.has(key) ? key : null;
}

self.addEventListener("fetch", (event) => {
  const key = cacheKey(event.request);
  if (key === null) return;
  event.respondWith((async () => {
    const hit = await caches.match(key, { cacheName: CACHE });
    return hit || fetch(event.request);
  })());
});

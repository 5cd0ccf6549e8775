// The service worker (dist/sw.js, written by build.py from app/sw.js) caches this build for
// repeat and offline visits. Register it once the engine is ready, so its downloads never
// compete with the first boot. Resolves to the registration, or null where service workers are
// unavailable or blocked (the page works the same without one).
export async function registerServiceWorker(url = new URL("../sw.js", import.meta.url)) {
  if (!globalThis.navigator?.serviceWorker || !globalThis.isSecureContext) return null;
  try {
    return await navigator.serviceWorker.register(url, { scope: new URL("./", url).href });
  } catch {
    return null;
  }
}

"""Browser contexts in which the page registers no service worker, so each test starts from the
network with an empty cache (the offline and publish tests allow one on purpose)."""

from __future__ import annotations

from typing import Any

# Playwright's own service_workers="block" adds an init script that reads navigator.serviceWorker
# in every frame; in the engine's sandboxed frame (no allow-same-origin) that read throws, and the
# harness's error lands in the page's error log as if the page had made it.
NO_SERVICE_WORKER = """
try {
  const sw = navigator.serviceWorker;
  if (sw) sw.register = async () => null;
} catch {}
"""


def new_context(browser: Any, **kwargs: Any) -> Any:
    """browser.new_context(**kwargs) with service worker registration turned off."""
    ctx = browser.new_context(service_workers="allow", **kwargs)
    ctx.add_init_script(NO_SERVICE_WORKER)
    return ctx

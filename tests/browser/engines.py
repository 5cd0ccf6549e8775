"""The three browser engines the page is tested in, behind one small interface.

Chromium and Firefox are driven by Playwright (Firefox over WebDriver BiDi: Playwright's own
Firefox build is a download this machine cannot reach, so Debian's `firefox-esr` is launched
with `channel="moz-firefox"`); WebKit by Selenium through Debian's `WebKitWebDriver`, which
drives `MiniBrowser` on a virtual X display (Xvfb). Each `Tab` is a page in a fresh profile:
no cache, no storage, no service worker left by another tab.

A test writes its JavaScript once as a function of one argument, `(arg) => ...` (it may return
a promise), and runs it in the page with `tab.run(fn, arg)` or in the engine's sandboxed frame
with `tab.run_in_frame(fn, arg)`, whichever engine drives the tab.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.browser.contexts import new_context

FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
XVFB = "/usr/bin/Xvfb"
ENGINES = ("chromium", "firefox", "webkit")
FRAME = "iframe[data-testid=engine-frame]"


def missing(engine: str) -> str | None:
    """Why `engine` cannot run on this machine, or None."""
    needs = {"chromium": [CHROMIUM], "firefox": [FIREFOX],
             "webkit": [WEBKIT_DRIVER, MINIBROWSER, XVFB]}[engine]
    absent = [p for p in needs if not os.path.exists(p)]
    if absent:
        return f"{', '.join(absent)} missing (test.sh installs it)"
    if engine == "webkit":
        try:
            import selenium  # noqa: F401
        except ImportError:
            return "selenium is not installed (pip install -e '.[test]')"
    return None


class Tab(Protocol):
    engine: str

    def goto(self, url: str) -> None: ...
    def run(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any: ...
    def run_in_frame(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any: ...
    def wait(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any: ...
    def close(self) -> None: ...


def _poll(tab: Tab, fn: str, arg: Any, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = tab.run(fn, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{tab.engine}: not true within {timeout_s} s: {fn}")
        time.sleep(0.1)


@dataclass
class PlaywrightTab:
    """A page of its own browser context (Chromium or Firefox)."""

    engine: str
    context: Any
    page: Any = None
    console: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def run(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any:
        self.page.set_default_timeout(timeout_s * 1000)
        return self.page.evaluate(fn, arg)

    def run_in_frame(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any:
        frame = self.page.query_selector(FRAME).content_frame()
        self.page.set_default_timeout(timeout_s * 1000)
        return frame.evaluate(fn, arg)

    def wait(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any:
        return _poll(self, fn, arg, timeout_s)

    def close(self) -> None:
        self.context.close()


# Selenium runs a script as a function body with its arguments, the last one the callback
# an asynchronous script must call: the test's function is called with the first.
_ASYNC = """const done = arguments[arguments.length - 1];
Promise.resolve().then(() => (%s)(arguments[0])).then(
  (v) => done({ok: true, value: v === undefined ? null : v}),
  (e) => done({ok: false, error: String(e && e.stack || e)}));"""


@dataclass
class WebKitTab:
    """A MiniBrowser of its own (one WebDriver session: a fresh, ephemeral profile)."""

    display: str
    engine: str = "webkit"
    driver: Any = None

    def __post_init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        options = Options()
        options.binary_location = MINIBROWSER
        options.add_argument("--automation")  # without it no session starts
        service = Service(WEBKIT_DRIVER, env={**os.environ, "DISPLAY": self.display})
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_window_size(1440, 900)

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def _run(self, fn: str, arg: Any, timeout_s: float) -> Any:
        self.driver.set_script_timeout(timeout_s)
        # through JSON both ways, as Playwright passes values: no WebElements, no undefined
        out = self.driver.execute_async_script(_ASYNC % fn, json.loads(json.dumps(arg)))
        if not out["ok"]:
            raise RuntimeError(f"webkit: {out['error']}")
        return out["value"]

    def run(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any:
        self.driver.switch_to.default_content()
        return self._run(fn, arg, timeout_s)

    def run_in_frame(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any:
        from selenium.webdriver.common.by import By

        self.driver.switch_to.default_content()
        self.driver.switch_to.frame(self.driver.find_element(By.CSS_SELECTOR, FRAME))
        try:
            return self._run(fn, arg, timeout_s)
        finally:
            self.driver.switch_to.default_content()

    def wait(self, fn: str, arg: Any = None, timeout_s: float = 60) -> Any:
        return _poll(self, fn, arg, timeout_s)

    def close(self) -> None:
        self.driver.quit()


@contextmanager
def virtual_display() -> Iterator[str]:
    """An Xvfb display of its own (WebKitGTK draws to X even when nobody looks)."""
    read, write = os.pipe()
    proc = subprocess.Popen([XVFB, "-displayfd", str(write), "-screen", "0", "1440x900x24",
                             "-nolisten", "tcp"], pass_fds=(write,), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()
    try:
        if not number:
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class Engines:
    """Opens tabs in any of the three engines, launching each browser once, when first asked."""

    def __init__(self, playwright: Any) -> None:
        self._playwright = playwright
        self._browsers: dict[str, Any] = {}
        self._display: Iterator[str] | None = None
        self._display_name = ""

    def _browser(self, engine: str) -> Any:
        if engine not in self._browsers:
            if engine == "chromium":
                b = self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                     args=CHROMIUM_ARGS)
            else:
                b = self._playwright.firefox.launch(channel="moz-firefox", headless=True,
                                                    executable_path=FIREFOX)
            self._browsers[engine] = b
        return self._browsers[engine]

    def tab(self, engine: str) -> Tab:
        reason = missing(engine)
        if reason:
            raise RuntimeError(f"{engine} cannot run here: {reason}")
        if engine == "webkit":
            if self._display is None:
                self._display = virtual_display()
                self._display_name = self._display.__enter__()
            return WebKitTab(self._display_name)
        context = new_context(self._browser(engine), viewport={"width": 1440, "height": 900})
        return PlaywrightTab(engine, context)

    def close(self) -> None:
        for b in self._browsers.values():
            b.close()
        if self._display is not None:
            self._display.__exit__(None, None, None)


def versions() -> dict[str, str]:
    """Each engine's browser and version, as its package reports it."""
    out = {}
    for engine, cmd in (("chromium", [CHROMIUM, "--version"]), ("firefox", [FIREFOX, "--version"])):
        if shutil.which(cmd[0]):
            out[engine] = subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    if os.path.exists(WEBKIT_DRIVER):
        got = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "webkit2gtk-driver"],
                             capture_output=True, text=True).stdout.strip()
        out["webkit"] = f"WebKitGTK {got}" if got else "WebKitGTK"
    return out

"""window.explainer's promises settle where no frame is drawn.

A tab in the background runs no animation frames (nor does a renderer starved of them), and an
embedding page's `await explainer.setMode(...)` must still resolve there. The page waits two
frames after an answer so that the promise means "painted", and falls back to a timer.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_api_calls_resolve_when_no_frame_comes(opened):
    # from here on, a frame never comes (the page looks up requestAnimationFrame on window)
    opened.evaluate("() => { window.requestAnimationFrame = () => 0; }")
    for call, arg, want in [("setMode", "jit", "jit"), ("setMode", "grad", "grad"),
                            ("loadExample", "checkpoint-dots", "checkpoint")]:
        got = opened.evaluate("""async ([call, arg]) => {
            const hung = new Promise((r) => setTimeout(() => r('hung'), 10000));
            const s = await Promise.race([window.explainer[call](arg), hung]);
            return s === 'hung' ? s : s.recordMode;
        }""", [call, arg])
        assert got == want, f"{call}({arg!r}) -> {got}"

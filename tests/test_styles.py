"""The page's style sheets: every text colour of the two themes is readable as small text
(WCAG AA, 4.5:1) on every background the page puts text on, and no generated content needs
an emoji font."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[1] / "static"
CSS = (STATIC / "style.css").read_text()
TOKENS = {name: (light, dark) for name, light, dark in re.findall(
    r"--([\w-]+):\s*light-dark\((#[0-9a-fA-F]{6}),\s*(#[0-9a-fA-F]{6})\)", CSS)}
TEXT = ["fg", "muted", "known", "unknown-text", "accent", "danger"]
# where text sits: the page, panels, a highlighted row (the current rule step, a lit
# variable, a hovered residual), the notice and error boxes
BACKGROUNDS = ["bg", "panel", "panel-2", "highlight", "warning-bg", "danger-bg"]


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_palette_is_read_whole():
    assert set(TEXT + BACKGROUNDS) <= set(TOKENS), sorted(set(TEXT + BACKGROUNDS) - set(TOKENS))


@pytest.mark.parametrize("theme", [0, 1], ids=["light", "dark"])
@pytest.mark.parametrize("text", TEXT)
def test_small_text_is_readable_on_every_background(theme, text):
    low = {bg: round(contrast(TOKENS[text][theme], TOKENS[bg][theme]), 2) for bg in BACKGROUNDS}
    assert all(ratio >= 4.5 for ratio in low.values()), low


# characters that render as emoji (Unicode's Emoji_Presentation), which a Linux desktop without
# an emoji font draws as a missing-glyph box: the hourglass the waiting notes once wore
EMOJI = [(0x231A, 0x231B), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3),
         (0x25FD, 0x25FE), (0x2614, 0x2615), (0x2B1B, 0x2B1C), (0x1F000, 0x1FAFF)]


@pytest.mark.parametrize("sheet", sorted(p.name for p in STATIC.glob("*.css")))
def test_generated_content_needs_no_emoji_font(sheet):
    contents = re.findall(r'content:\s*"([^"]*)"', (STATIC / sheet).read_text())
    emoji = [c for text in contents for c in text
             if any(lo <= ord(c) <= hi for lo, hi in EMOJI)]
    assert not emoji, emoji

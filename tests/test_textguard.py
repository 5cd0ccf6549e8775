"""The chain guard's shortcut: text it lets through without tokenizing is text the tokenizer
would have let through too."""
from __future__ import annotations

import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_engine.explain import textguard
from pe_engine.explain.limits import MAX_CHAIN_TOKENS

PIECES = ["x", " ", "+", "-", "**", ".", "(", ")", "[", "]", ",", ":", "=", "==", "not",
          "and", "await", "lambda", "is", "in", "is_x", "'a+b'", "# c.d\n", "\n", "\\\n", "!"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=MAX_CHAIN_TOKENS - 100,
                max_size=MAX_CHAIN_TOKENS + 400))
def test_the_shortcut_agrees_with_the_tokenizer(pieces: list[str]) -> None:
    text = "y = " + " ".join(pieces)
    tokenized = types.SimpleNamespace(findall=lambda _: range(MAX_CHAIN_TOKENS + 1))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(textguard, "_BOUND", tokenized)
        want = textguard._chains(text)
    assert textguard._chains(text) == want


def test_a_long_chain_is_still_refused() -> None:
    assert textguard.find_overflow("y = " + " + ".join(["x"] * (MAX_CHAIN_TOKENS + 2)))
    assert textguard.find_overflow("y = " + " ".join(["await x"] * (MAX_CHAIN_TOKENS + 1)))
    assert textguard.find_overflow("y = x + x") is None
    # keywords glued to numbers are tokens of their own, counted as the tokenizer counts them
    assert textguard.find_overflow("y = " + "1if 1else " * (MAX_CHAIN_TOKENS // 2 + 1) + "1")

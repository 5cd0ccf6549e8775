"""A guard against text that would overflow the parser's stack before Python can object.

In Pyodide the C parser's recursion runs on the browser's small wasm stack: a few
thousand nested brackets or chained unary operators crash the interpreter instead
of raising SyntaxError. Real code never comes close, so such text is refused first.
"""
from __future__ import annotations

import re

from .limits import MAX_BRACKET_DEPTH, MAX_TOKENS_PER_LINE

_TOKEN = re.compile(r"\w+|[^\s\w]")
_OPEN, _CLOSE = "([{", ")]}"


def find_overflow(text: str) -> tuple[int, str] | None:
    """(line, reason) for text nested or chained too deeply to parse safely, else None."""
    depth = 0
    for lineno, line in enumerate(text.split("\n"), 1):
        for ch in line:
            if ch in _OPEN:
                depth += 1
                if depth > MAX_BRACKET_DEPTH:
                    return lineno, f"brackets nested more than {MAX_BRACKET_DEPTH} deep"
            elif ch in _CLOSE:
                depth = max(0, depth - 1)
        if len(line) > MAX_TOKENS_PER_LINE and len(_TOKEN.findall(line)) > MAX_TOKENS_PER_LINE:
            return lineno, f"a line of more than {MAX_TOKENS_PER_LINE} tokens"
    return None

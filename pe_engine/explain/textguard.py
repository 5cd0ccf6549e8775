"""A guard against text that would overflow the parser's stack before Python can object.

In Pyodide the C parser and compiler recurse on the browser's small wasm stack: a few
thousand nested brackets, chained unary operators or attribute trailers crash the
interpreter instead of raising SyntaxError. Real code never comes close, so such text is
refused first. The count is per logical line (the tokenizer joins backslash continuations
and bracketed lines), so splitting a chain over many physical lines does not hide it.
"""
from __future__ import annotations

import io
import re
import tokenize

from .limits import MAX_BRACKET_DEPTH, MAX_CHAIN_TOKENS

_OPEN, _CLOSE = "([{", ")]}"
# Tokens the parser handles by recursion: every operator and trailer, and the keywords
# that chain. Commas, colons and closing brackets separate items and cost nothing.
_FREE_OPS = {",", ":", ";", ")", "]", "}", "=", "{"}
_CHAIN_KEYWORDS = {"not", "and", "or", "if", "else", "lambda", "is", "in", "await"}
_ROUGH_OP = re.compile(r"[-+*/%@&|^~<>=!.(\[]|\b(?:not|and|or|if|else|lambda|is|in)\b")
# At least one match for every token _chains counts (every operator it counts holds one of
# these characters), in strings and comments too: text with no more matches than a line may
# hold counted tokens needs no tokenizing, which costs more than the rest of a small check.
# The keywords are matched inside words too: the tokenizer reads `1if` as 1 and `if`.
_BOUND = re.compile(r"[-+*/%@&|^~<>=!.(\[]|" + "|".join(sorted(_CHAIN_KEYWORDS)))


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
    return _chains(text)


def _chains(text: str) -> tuple[int, str] | None:
    if len(_BOUND.findall(text)) <= MAX_CHAIN_TOKENS:
        return None
    count, start = 0, 1
    reason = f"more than {MAX_CHAIN_TOKENS} operators in one statement"
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    try:
        for tok in tokens:
            if tok.type == tokenize.NEWLINE:
                count, start = 0, tok.end[0] + 1
            elif (tok.type == tokenize.OP and tok.string not in _FREE_OPS) or (
                    tok.type == tokenize.NAME and tok.string in _CHAIN_KEYWORDS):
                count += 1
                if count > MAX_CHAIN_TOKENS:
                    return start, reason
    except (tokenize.TokenError, SyntaxError):
        # Python's parser will report the error; it must not meet a deep chain first.
        rest = "\n".join(text.split("\n")[start - 1:])
        if len(_ROUGH_OP.findall(rest)) > MAX_CHAIN_TOKENS:
            return start, reason
    return None

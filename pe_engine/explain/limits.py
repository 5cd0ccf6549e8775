"""Every limit the page puts on untrusted code, in one table.

The browser's side (time per call, message sizes) is app/limits.js; the two tables name
their entries differently so a search finds one definition of each.
"""
from __future__ import annotations

MAX_TRACED_EQNS = 2000  # equations in the user's traced program
MAX_ARRAY_ELEMENTS = 1 << 22  # elements in any one array the user's code makes (16 MB of f32)
MAX_STAGED_EQNS = 100_000  # equations staged while answering one request, re-traces included
MAX_VALUE_ELEMENTS = 1 << 16  # elements in an input value typed in the inputs panel
MAX_VALUE_TEXT = 200_000  # characters of an input value's text
MAX_BRACKET_DEPTH = 100  # nested brackets in source or value text (Pyodide's parser stack)
MAX_TOKENS_PER_LINE = 1000  # tokens on one line of source or value text

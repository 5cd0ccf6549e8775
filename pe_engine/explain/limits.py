"""Every limit the page puts on untrusted code, in one table.

User code arrives in links written by someone else, so each limit bounds what one request
can cost the reader's browser: memory, time spent in C where no interrupt lands, the
interpreter's stack, and the size of what crosses back to the page. The browser's side of
the table (time per call, message sizes it accepts, link size) is app/limits.js; the two
tables name their entries differently, so a search finds the one definition of each.
"""
from __future__ import annotations

# -- what the traced program may grow to
MAX_TRACED_EQNS = 2000  # equations in the user's traced program
MAX_ARRAY_ELEMENTS = 1 << 22  # elements in any one array user code makes (16 MB of f32)
MAX_STAGED_EQNS = 100_000  # equations staged while answering one request, re-traces included
MAX_MASK_INPUTS = 5  # inputs of a function the mask explorer splits every way (2**5 masks)

# -- input values typed in the inputs panel
MAX_VALUE_ELEMENTS = 1 << 16  # elements in one input value
MAX_VALUE_TEXT = 200_000  # characters of an input value's text

# -- source text, checked before Python parses it: Pyodide's parser and compiler recurse on
# the wasm stack, and a few thousand chained operators crash the interpreter (measured in
# Chromium: 1500 of any kind parse, 5000 crash), so the text is refused first.
MAX_SOURCE_CHARS = 100_000  # characters of source
MAX_BRACKET_DEPTH = 100  # nested brackets in source or value text
MAX_CHAIN_TOKENS = 500  # operators, trailers and chaining keywords in one logical line

# -- what user code may compute in one step, in C, where no interrupt lands
MAX_INT_BITS = 1 << 14  # bits of an integer literal or a result of `**`, `<<`, `*`
MAX_POW_MOD_COST = 1 << 33  # pow(a, e, m): bits of e times bits of m squared (0.1 s at 2048)
MAX_FACTORIAL_ARG = 2000  # math.factorial / comb / perm arguments
# bytes of any one value made in one C call: a str, list or tuple (repetition, `+`, join,
# replace, translate, a repr or a format), a numpy array of any dtype (what a complex128
# array of MAX_ARRAY_ELEMENTS takes)
MAX_ALLOC_BYTES = 1 << 26
# items of a range: the one sequence that costs no memory, so nothing else bounds how long
# C iterates over it (sum, max, sorted, `in`, unpacking)
MAX_RANGE_ITEMS = 1_000_000

# -- the interpreter's stack: user calls that go through C (map, max, sorted) recurse on
# the wasm stack, which overflows at 400-500 such levels in Chromium's workers
MAX_USER_CALL_DEPTH = 150  # nested calls of user-defined functions
MAX_PRINT_NESTING = 100  # nesting of containers passed to repr/str/print/format
MAX_FORMAT_WIDTH = 10_000  # widths and precisions in f-string specs and % formats

# -- what crosses back to the page
MAX_ERROR_CHARS = 2000  # characters of an error message
MAX_RECORD_CHARS = 8_000_000  # characters of one record's JSON

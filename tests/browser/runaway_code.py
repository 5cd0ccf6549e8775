"""Functions that run past the page's time limit, for the tests of how the page stops them."""

from __future__ import annotations


def c_loop(params: str = "x") -> str:
    """A loop in C that no interrupt reaches, so the page must tear the engine down. The
    sandbox bounds ranges, reducers and every allocation, but comparing a 50 MB string with
    each of a million references to another is still one C call: `in` over a list grown by
    `extend` (a hole the README's Security section names)."""
    return (f"def f({params}):\n    s = 'a' * 50000000\n    lst = [s]\n"
            "    for i in range(20):\n        lst.extend(lst)\n"
            "    return x * ((s[:-1] + 'b') in lst)\n")

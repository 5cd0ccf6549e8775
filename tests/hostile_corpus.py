"""Hostile sources: every way found to make a shared link harm its reader, as data.

Each case is a whole source a permalink could carry. An escape, had it worked, ends in a
marker (a file written, a name planted in `builtins` or `sys.modules`) that the harness
looks for; what must happen instead is a located error (`kind`, `line`) or, for the cases
that only try to leave state behind, nothing at all. tests/test_hostile.py runs every case
through the worker's own entry point in CPython; tests/browser/test_hostile_page.py runs a
sample in the real page. Add a case for every escape ever found.
"""
from __future__ import annotations

from dataclasses import dataclass, field

HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
FIRST = 5  # the first line after HEADER
MARK = "/tmp/pe-hostile-escaped"
# What an escaped payload would do with a real module: every route leaves a marker.
PAYLOAD = f"os.system('touch {MARK}')\nopen('{MARK}', 'w').write('x')"
# ... and with an object `m` an attribute walk reached, had it been `os`
PAYLOAD_M = f"m.system('touch {MARK}')"


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    source: str
    kind: frozenset[str] | None  # acceptable error types; None: must run without error
    line: int | None = None  # the line the error is located at
    words: tuple[str, ...] = ()
    args: tuple[str, ...] = ("1.0",)
    mode: str = "split"
    browser: bool = False  # also run in the real page (tests/browser)
    tags: frozenset[str] = field(default_factory=frozenset)


def fn(body: str, *, header: str = HEADER) -> str:
    """A source whose traced function `f(x)` runs `body` (indented lines) first."""
    lines = "".join(f"    {line}\n" for line in body.split("\n"))
    return f"{header}def f(x):\n{lines}    return x\n"


R = frozenset({"restricted"})
LIMIT = frozenset({"limit"})
RUNTIME = frozenset({"runtime", "trace"})
SYNTAX = frozenset({"syntax"})
ANY_ERROR = frozenset({"restricted", "limit", "runtime", "trace", "syntax", "memory"})
# A loop that steps in Python: it runs until the page's interrupt, which must land at once
# (the entry point answers KeyboardInterrupt at the user's line).
INTERRUPTED = frozenset({"KeyboardInterrupt"})

CASES: list[Case] = []


def add(*cases: Case) -> None:
    CASES.extend(cases)


# ------------------------------------------------------------------ imports, in every syntax

for i, (stmt, words) in enumerate([
    ("import os", "'os'"), ("import sys", "'sys'"), ("import js", "'js'"),
    ("import pyodide", "'pyodide'"), ("import pyodide.ffi", "'pyodide.ffi'"),
    ("import importlib", "'importlib'"), ("import builtins", "'builtins'"),
    ("import ctypes", "'ctypes'"), ("import subprocess", "'subprocess'"),
    ("import socket", "'socket'"), ("import pickle", "'pickle'"), ("import marshal", "'marshal'"),
    ("import operator", "'operator'"), ("import string", "'string'"), ("import gc", "'gc'"),
    ("import inspect", "'inspect'"), ("import types", "'types'"), ("import io", "'io'"),
    ("import numpy.random", "'numpy.random'"), ("import numpy.ctypeslib", "'numpy.ctypeslib'"),
    ("import numpy.lib.stride_tricks", "'numpy.lib.stride_tricks'"),
    ("import jax.core", "'jax.core'"), ("import jax._src", "'jax._src'"),
    ("import pe_engine", "'pe_engine'"), ("import pe_engine.explain", "'pe_engine.explain'"),
    ("import os as jnp2", "'os'"), ("import jax.numpy, os", "'os'"),
    ("from os import system", "'os'"), ("from sys import modules", "'sys'"),
    ("from importlib import import_module", "'importlib'"),
    ("from functools import wraps", "wraps"), ("from functools import update_wrapper",
                                               "update_wrapper"),
    ("from functools import singledispatch", "singledispatch"),
    ("from operator import attrgetter", "'operator'"), ("from numpy import ctypeslib",
                                                        "ctypeslib"),
    ("from numpy import lib", "'lib'"), ("from numpy.random import mtrand", "'numpy.random'"),
    ("from numpy.random import bit_generator", "'numpy.random'"),
    ("from jax import core", "'core'"), ("from jax._src import core", "'jax._src'"),
    ("from jax.numpy import _jnp", "_jnp"), ("from jax import *", "import *"),
    ("from . import sandbox", "'.'"), ("from .. import explain", "'..'"),
    ("from pe_engine.explain import sandbox", "'pe_engine.explain'"),
    ("from math import sys", "'sys'"),
]):
    add(Case(f"import-{i:02d}", "imports", f"{stmt}\n" + fn(PAYLOAD), R, 1, (words,),
             browser=i in (0, 2, 27)))
# an import inside the function is checked the same way
add(Case("import-in-def", "imports", fn(f"import os\n{PAYLOAD}"), R, FIRST + 1, ("'os'",)))
add(Case("import-in-lambda-default", "imports",
         HEADER + "g = lambda m=__import__('os'): m\n" + fn("pass"), R, FIRST, ("__import__",)))
add(Case("import-dunder-call", "imports", fn("__import__('os').system('true')"), R, FIRST + 1,
         ("__import__",)))
add(Case("import-via-builtins-dict", "imports", fn("__builtins__['__import__']('os')"), R,
         FIRST + 1, ("__builtins__",)))
add(Case("import-fullwidth-os", "unicode", "import \uff4f\uff53\n" + fn("pass"), R, 1, ("'os'",)))

# ------------------------------------------------------- attribute walks, from every object

WALK_ROOTS = {  # expression -> what it is
    "jax": "the jax facade", "jnp": "the jax.numpy facade", "lax": "the lax facade",
    "jax.nn": "jax.nn", "jax.tree_util": "jax.tree_util", "jax.ad_checkpoint":
    "jax.ad_checkpoint", "jax.checkpoint_policies": "the policies", "jax.config": "config",
    "np": "the numpy facade", "np.random": "numpy.random", "jnp.sin": "an engine function",
    "jax.grad": "a transformation", "jax.jit(jnp.sin)": "a jitted function",
    "x": "a tracer or a known array", "np.ones(3)": "a numpy array",
    "np.float32(1.0)": "a numpy scalar", "jnp.float32": "a dtype class",
    "x.dtype": "a dtype", "x.aval": "an aval", "jnp.ones(3)": "an engine array",
    "(lambda: 0)": "a user lambda", "f": "the user's function", "ValueError('e')":
    "an exception", "np.random.default_rng(0)": "a generator", "'abc'": "a string",
    "[1, 2]": "a list", "{'a': 1}": "a dict", "range(3)": "a range", "jax.make_jaxpr(jnp.sin)(x)":
    "a jaxpr", "np.finfo(np.float32)": "finfo",
}
WALK_ATTRS = ["np", "core", "sys", "os", "lax", "impl_rules", "explain", "sandbox", "mtrand",
              "ctypeslib", "lib", "testing", "func", "trace", "val", "main", "jaxpr", "eqns",
              "values", "update_wrapper", "wraps", "flags", "strides", "tobytes", "repeat",
              "resize", "setflags", "lookup", "fromhex", "to_bytes", "ljust", "with_traceback",
              "type", "fields", "bit_generator", "state", "policy", "keywords"]
_walk = 0
for r, root in enumerate(WALK_ROOTS):
    # every root meets the attributes that would matter most and a rotating share of the
    # rest (every pair would be over a thousand cases)
    for attr in ["np", "sys", "trace", "val", *(WALK_ATTRS[(5 * r + k) % len(WALK_ATTRS)]
                                                for k in range(3))]:
        # refused at the walk, or (a harmless method) at the payload's `.system`
        add(Case(f"walk-{_walk:03d}", "attribute walks", fn(f"m = {root}.{attr}\n{PAYLOAD_M}"),
                 ANY_ERROR, None, browser=_walk % 40 == 0))
        _walk += 1

for i, expr in enumerate([
    "x.__class__", "jnp.sin.__globals__", "jax.__dict__", "np.__loader__", "f.__code__",
    "(lambda: 0).__globals__", "x._trace", "jnp._jnp", "ValueError().__traceback__",
    "jax.grad.__wrapped__", "np.ones(3).__array_interface__", "'a'.__class__.__mro__",
    "jax.config.__dict__", "jnp.sin.__closure__",
]):
    add(Case(f"dunder-{i:02d}", "attribute walks", fn(f"m = {expr}"), R, FIRST + 1,
             ("private attribute",)))
add(Case("dunder-fullwidth-low-line", "unicode", fn("m = x.\uff3f\uff3fclass\uff3f\uff3f"),
         SYNTAX, FIRST + 1, ("invalid character",)))

for i, (expr, words) in enumerate([
    ("np.ones(3).ctypes", "ctypes"), ("np.ones(3).tofile('/tmp/a')", "tofile"),
    ("np.ones(3).view(np.uint8)", "view"), ("np.ones(3).base", "base"),
    ("np.ones(3).data", "data"), ("'{0.__class__}'.format(x)", "format"),
    ("'{x.__globals__}'.format_map({'x': jnp.sin})", "format_map"),
    ("np.ones(3).dump('/tmp/a')", "dump"), ("type.mro(int)", "mro"),
]):
    add(Case(f"attr-denied-{i}", "attribute walks", fn(f"m = {expr}"), R, FIRST + 1, (words,)))

add(
    Case("getattr-builtin", "attribute walks", fn("m = getattr(x, 'val')"), R, FIRST + 1,
         ("'getattr'",)),
    Case("vars-builtin", "attribute walks", fn("m = vars(jnp)"), R, FIRST + 1, ("'vars'",)),
    Case("type-builtin", "attribute walks", fn("m = type(x)"), R, FIRST + 1, ("'type'",)),
    Case("object-builtin", "attribute walks", fn("m = object.__subclasses__()"), R, FIRST + 1),
    Case("hasattr-builtin", "attribute walks", fn("m = hasattr(x, 'val')"), R, FIRST + 1,
         ("'hasattr'",)),
    Case("eval", "attribute walks", fn("eval('1')"), R, FIRST + 1, ("'eval'",)),
    Case("exec", "attribute walks", fn("exec('import os')"), R, FIRST + 1, ("'exec'",)),
    Case("compile", "attribute walks", fn("compile('1', 'a', 'eval')"), R, FIRST + 1),
    Case("globals", "attribute walks", fn("globals()['__builtins__']"), R, FIRST + 1),
    Case("open", "attribute walks", fn("open('/etc/passwd').read()"), R, FIRST + 1,
         ("'open'",)),
    Case("setattr", "attribute walks", fn("setattr(jnp, 'sin', jnp.cos)"), R, FIRST + 1),
    Case("partial-func", "attribute walks",
         "from functools import partial\n" + fn("p = partial(jnp.sin)\nm = p.func"),
         R, FIRST + 3, ("'func'",)),
    Case("exception-args-are-data", "attribute walks",
         fn("try:\n    jnp.sine(x)\nexcept AttributeError as e:\n    m = e.args[0]\n"
            "    n = m.upper()"), None),
    Case("exception-frame", "attribute walks",
         fn("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    t = e.with_traceback(None)"),
         R, FIRST + 4, ("with_traceback",)),
    Case("fullwidth-exec", "unicode", fn("\uff45\uff58\uff45\uff43('1')"), R, FIRST + 1,
         ("'exec'",)),
    Case("fullwidth-getattr", "unicode", fn("\uff47\uff45\uff54\uff41\uff54\uff54\uff52(x, 'a')"),
         R, FIRST + 1, ("'getattr'",)),
    Case("fullwidth-dunder-import", "unicode", fn("__\uff49mport__('os')"), R, FIRST + 1),
    Case("mathematical-italic-eval", "unicode", fn("\U0001d452val('1')"), R, FIRST + 1,
         ("'eval'",)),
    Case("fullwidth-object", "unicode", fn("m = \uff4f\uff42\uff4a\uff45\uff43\uff54"), R,
         FIRST + 1, ("'object'",)),
    Case("fullwidth-jnp-sin-works", "unicode", fn("y = jnp.\uff53\uff49\uff4e(x)"), None),
    Case("ligature-attr", "unicode", fn("m = np.\ufb01nfo(np.float32).eps"), None),
)

# ------------------------------------------------------------------ code run at load time

add(
    Case("def-time-call", "def time", HEADER + "def g():\n    return 1\ny = g()\n" + fn("pass"),
         R, FIRST + 2, ("calls `g`",)),
    Case("def-time-decorator", "def time", HEADER + "def d(h):\n    return h\n@d\n"
         "def f(x):\n    return x\n", R, FIRST + 2, ("decorator",)),
    Case("def-time-default", "def time",
         HEADER + "def g():\n    return 1\ndef f(x, n=g()):\n    return x\n", R, FIRST + 2,
         ("default",)),
    Case("def-time-while", "def time", HEADER + "while True:\n    pass\n" + fn("pass"), R,
         FIRST, ("While",)),
    Case("def-time-for", "def time", HEADER + "for i in range(10):\n    pass\n" + fn("pass"), R,
         FIRST, ("For",)),
    Case("def-time-if-main", "def time",
         HEADER + "if __name__ == '__main__':\n    pass\n" + fn("pass"), R, FIRST, ("If",)),
    Case("def-time-try", "def time", HEADER + "try:\n    import os\nexcept Exception:\n"
         "    pass\n" + fn("pass"), R, FIRST),
    Case("def-time-with", "def time",
         HEADER + "with jax.ensure_compile_time_eval():\n    y = 1\n" + fn("pass"), R, FIRST),
    Case("def-time-expr-call", "def time", HEADER + "print(jnp.ones(3))\n" + fn("pass"), R,
         FIRST, ("Expr",)),
    Case("def-time-comprehension", "def time",
         HEADER + "W = [jnp.ones(n) for n in range(3)]\n" + fn("pass"), R, FIRST,
         ("ListComp",)),
    Case("def-time-augassign", "def time", HEADER + "W = 1\nW += 2\n" + fn("pass"), R,
         FIRST + 1, ("AugAssign",)),
    Case("def-time-attr-assign", "def time", HEADER + "jnp.sin = jnp.cos\n" + fn("pass"), R,
         FIRST),
    Case("def-time-subscript-assign", "def time", HEADER + "jax.config.values['x'] = 1\n"
         + fn("pass"), R, FIRST),
    Case("def-time-class", "def time", HEADER + "class A:\n    pass\n" + fn("pass"), R, FIRST,
         ("ClassDef",)),
    Case("def-time-global", "def time", fn("global jnp\njnp = None"), R, FIRST + 1,
         ("Global",)),
    Case("def-time-del", "def time", HEADER + "del jnp\n" + fn("pass"), R, FIRST, ("Delete",)),
    Case("def-time-walrus", "def time", HEADER + "W = (m := jnp)\n" + fn("pass"), R, FIRST,
         ("NamedExpr",)),
    Case("def-time-lambda-ok", "def time", HEADER + "g = lambda v: v * 2.0\n"
         "def f(x):\n    return g(x)\n", None),
    Case("def-time-constants-ok", "def time", HEADER + "W = jnp.ones((2, 2)) * 0.5\n"
         "N = 3 ** 2\ndef f(x):\n    return x * W.sum() * N\n", None),
    Case("def-time-jit-decorator-ok", "def time",
         HEADER + "from functools import partial\n@partial(jax.jit, static_argnums=(1,))\n"
         "def g(x, n):\n    return x * n\ndef f(x):\n    return g(x, 3)\n", None),
    Case("def-time-generator", "def time", fn("g = (lambda: (yield))"), R, FIRST + 1,
         ("Yield",)),
    Case("def-time-async", "def time", HEADER + "async def g():\n    pass\n" + fn("pass"), R,
         FIRST, ("AsyncFunctionDef",)),
)

# ------------------------------------------------ persistence: no request changes the next

add(
    Case("persist-config-update", "persistence",
         fn("jax.config.update('eager_constant_folding', True)"), None),
    Case("persist-random-seed", "persistence", fn("np.random.seed(1234)"), None),
    Case("persist-random-draw", "persistence", fn("y = np.random.randn(100)"), None),
    Case("persist-facade-setattr", "persistence", fn("jnp.sin = jnp.cos"), R, FIRST + 1),
    Case("persist-facade-delattr", "persistence", fn("del jnp.sin"), R, FIRST + 1),
    Case("persist-policy-setattr", "persistence",
         fn("jax.checkpoint_policies.nothing_saveable = None"), R, FIRST + 1),
    Case("persist-config-values", "persistence", fn("jax.config.values['jax_enable_x64'] = 1"),
         R, FIRST + 1, ("values",)),
    Case("persist-x64", "persistence", fn("jax.config.update('jax_enable_x64', True)"), RUNTIME,
         FIRST + 1, ("x64",)),
    Case("persist-unknown-flag", "persistence", fn("jax.config.update('jax_debug_nans', True)"),
         RUNTIME, FIRST + 1),
    Case("persist-compile-time-eval", "persistence",
         fn("with jax.ensure_compile_time_eval():\n    raise ValueError('leave it on')"),
         RUNTIME, FIRST + 2, ("leave it on",)),
    Case("persist-dtype-table", "persistence", fn("jnp.float32.x = 1"), R, FIRST + 1),
    Case("persist-list-of-facade", "persistence", fn("d = dir(jnp)"), R, FIRST + 1),
    Case("persist-deep-call", "persistence",
         HEADER + "def g(n):\n    return g(n + 1)\n" + fn("g(0)"), RUNTIME, FIRST + 1),
    Case("persist-raise-mid-trace", "persistence", fn("y = jnp.sin(x)\nraise KeyError('k')"),
         RUNTIME, FIRST + 2),
    Case("persist-interrupt-swallow", "persistence",
         fn("try:\n    pass\nexcept:\n    pass"), R, FIRST + 3, ("bare",)),
    Case("persist-baseexception", "persistence",
         fn("try:\n    1 / 0\nexcept BaseException:\n    pass"), RUNTIME, FIRST + 3),
    Case("persist-builtins-shadow", "persistence", HEADER + "len = 5\n" + fn("pass"), None),
)

# ------------------------------------------------------------------ resource exhaustion

for i, (body, kind, words) in enumerate([
    ("y = 10 ** 10 ** 8", LIMIT, "bits"), ("y = pow(3, 10 ** 8)", LIMIT, "bits"),
    ("y = 2 << 10 ** 9", LIMIT, "bits"), ("y = 'a' * 10 ** 10", LIMIT, "items"),
    ("y = [0] * 10 ** 9", LIMIT, "items"), ("y = (1,) * 10 ** 9", LIMIT, "items"),
    ("y = 10 ** 4000\nz = y * y * y * y * y", LIMIT, "bits"),
    ("n = 10 ** 8\ny = 7 ** n", LIMIT, "bits"), ("y = 1\ny <<= 10 ** 9", LIMIT, "bits"),
    ("y = 'ab'\ny *= 10 ** 9", LIMIT, "items"),
    ("import math\ny = math.factorial(10 ** 6)", RUNTIME, "limit"),
    ("import math\ny = math.comb(10 ** 7, 5 * 10 ** 6)", RUNTIME, "limit"),
    ("y = round(5, -10 ** 8)", LIMIT, "ndigits"),
    ("y = np.zeros(10 ** 9)", RUNTIME, "elements"),
    ("y = np.ones((10 ** 5, 10 ** 5))", RUNTIME, "elements"),
    ("y = np.arange(10 ** 9)", RUNTIME, "elements"),
    ("y = np.linspace(0, 1, 10 ** 9)", RUNTIME, "elements"),
    ("y = np.eye(10 ** 5)", RUNTIME, "elements"),
    ("y = np.full((10 ** 5, 10 ** 5), 1.0)", RUNTIME, "elements"),
    ("y = np.random.randn(10 ** 5, 10 ** 5)", RUNTIME, "elements"),
    ("y = np.random.default_rng(0).normal(size=10 ** 9)", RUNTIME, "elements"),
    ("y = np.broadcast_to(1.0, (10 ** 5, 10 ** 5)) + 1", RUNTIME, "elements"),
    ("y = np.ones(10 ** 4)[:, None] * np.ones(10 ** 4)", RUNTIME, "elements"),
    ("y = np.add(np.ones((10 ** 4, 1)), np.ones(10 ** 4))", RUNTIME, "elements"),
    ("y = np.outer(np.ones(10 ** 6), np.ones(10 ** 6))", RUNTIME, "elements"),
    ("a = np.ones(10 ** 5)\ny = np.einsum('i,j->ij', a, a)", RUNTIME, "elements"),
    ("y = np.dot(np.ones((10 ** 5, 1)), np.ones((1, 10 ** 5)))", RUNTIME, "elements"),
    ("a = np.ones((10 ** 5, 1))\ny = a @ a.T", RUNTIME, "elements"),
    ("y = np.ones((10 ** 5, 1)).dot(np.ones((1, 10 ** 5)))", RUNTIME, "elements"),
    ("a = np.ones(10 ** 6)\ny = np.stack([a] * 1000)", RUNTIME, "elements"),
    ("a = np.ones(10 ** 6)\ny = np.concatenate([a] * 1000)", RUNTIME, "elements"),
    ("y = np.where(np.ones((10 ** 4, 1)) > 0, 1.0, np.ones(10 ** 4))", RUNTIME, "elements"),
    ("y = np.array([f] * 3)", RUNTIME, "dtype"), ("y = np.zeros(3, dtype=object)", R,
                                                   "'object'"),
    ("y = np.ndarray((10 ** 9,))", RUNTIME, "cannot be called"),
    ("y = jnp.array([f, jnp.sin])", RUNTIME, "dtypes"),
    ("y = jnp.zeros(3, dtype='object')", RUNTIME, "dtypes"),
    ("y = x.astype('U3')", RUNTIME, "dtypes"),
    ("y = jnp.zeros(10 ** 9)", frozenset({"limit"}), "elements"),
    ("y = x + jnp.ones((5000, 5000))", frozenset({"limit"}), "elements"),
    ("for i in range(10 ** 6):\n    x = jnp.sin(x)", frozenset({"limit"}), "equations"),
    ("y = '%1000000000d' % 5", LIMIT, "width"), ("y = f'{x:>{10 ** 9}}'", LIMIT, "width"),
    ("y = f'{1.0:.{10 ** 9}f}'", LIMIT, "width"), ("y = '%*d' % (10 ** 9, 5)", LIMIT, "%*d"),
    ("y = 'a'.ljust(10 ** 9)", R, "ljust"), ("y = 'a'.zfill(10 ** 9)", R, "zfill"),
    ("y = (5).to_bytes(10 ** 9, 'big')", R, "to_bytes"),
    ("y = int('9' * 100000)", RUNTIME, "digits"),
    ("raise ValueError('x' * 10 ** 6)", RUNTIME, "xxxx"),
]):
    add(Case(f"resource-{i:02d}", "resources", fn(body), kind, FIRST + body.count("\n") + 1,
             (words,), browser=i in (0, 3, 13, 38, 44)))

add(
    Case("resource-long-source", "resources", HEADER + "# " + "x" * 120_000 + "\n" + fn("pass"),
         LIMIT, FIRST, ("characters",)),
    Case("resource-py-recursion", "resources",
         HEADER + "def g(n):\n    return g(n + 1)\n" + fn("g(0)"), RUNTIME, FIRST + 1,
         ("recursion",)),
    Case("resource-c-recursion", "resources", HEADER + "def g(n):\n"
         "    return n if n > 5000 else max(map(g, [n + 1]))\n" + fn("g(0)"), RUNTIME,
         FIRST + 1, ("recursion",), browser=True),
    Case("resource-lambda-recursion", "resources",
         HEADER + "g = lambda n: g(n + 1)\n" + fn("g(0)"), RUNTIME, FIRST, ("recursion",)),
    Case("resource-nested-repr", "resources",
         fn("y = []\nfor i in range(10 ** 5):\n    y = [y]\ns = str(y)"), RUNTIME, FIRST + 4,
         ("nested",), browser=True),
    Case("resource-nested-fstring", "resources",
         fn("y = []\nfor i in range(10 ** 5):\n    y = [y]\ns = f'{y}'"), RUNTIME, FIRST + 4,
         ("nested",)),
    Case("resource-nested-percent", "resources",
         fn("y = []\nfor i in range(10 ** 5):\n    y = [y]\ns = '%s' % (y,)"), RUNTIME,
         FIRST + 4, ("nested",)),
    Case("resource-nested-print", "resources",
         fn("y = {}\nfor i in range(10 ** 5):\n    y = {'k': y}\nprint(y)"), RUNTIME, FIRST + 4,
         ("nested",)),
    Case("resource-unary-chain", "resources", fn("y = " + "-" * 5000 + "x"), SYNTAX,
         FIRST + 1, ("too deep",), browser=True),
    Case("resource-unary-lines", "resources", fn("y = (" + "-\n" * 2600 + "x)"), SYNTAX,
         FIRST + 1, ("too deep",)),
    Case("resource-backslash-chain", "resources",
         fn("y = x \\\n" + " \\\n".join([".T"] * 4500)), SYNTAX, FIRST + 1, ("too deep",)),
    Case("resource-call-chain", "resources", fn("y = abs" + "(1)" * 5000), SYNTAX, FIRST + 1),
    Case("resource-plus-chain", "resources", fn("y = (1" + "\n+ 1" * 5000 + ")"), SYNTAX,
         FIRST + 1),
    Case("resource-lambda-chain", "resources", fn("g = " + "lambda: " * 3000 + "1"), SYNTAX,
         FIRST + 1),
    Case("resource-ifelse-chain", "resources", fn("y = " + "1 if x else " * 3000 + "2"), SYNTAX,
         FIRST + 1),
    Case("resource-brackets", "resources", fn("y = " + "[" * 150 + "]" * 150), SYNTAX,
         FIRST + 1, ("nested",)),
    Case("resource-big-literal", "resources", fn("y = 1" + "0" * 5000), ANY_ERROR, FIRST + 1),
    Case("resource-flat-list-ok", "resources",
         fn("y = [" + ", ".join(["1.0"] * 3000) + "]"), None),
)

# ---------------- issue 42: loops in C, sizes in bytes, nesting wherever text is made
# Each would run in one C call for seconds (no interrupt lands), allocate a gigabyte, or
# overflow Pyodide's stack: refused first, or (a loop stepping in Python) interrupted.
DEEP = "d = []\nfor i in range(300):\n    d = [d]\n"  # prints in CPython, crashes wasm
ONE_MB = "s = 'x' * 10 ** 6\n"
PLAIN = "p = np.float64(1.0) + [[1.0]] * 15000\n"  # numpy's scalar and a list: an array
# one row in memory, 225M elements to numpy (`[r] * 15000` is refused at the repetition)
ROWS = "r = [1] * 15000\nm = []\nfor i in range(15000):\n    m.append(r)\n"
for i, (body, kind, words) in enumerate([
    # findings 4: loops in C
    ("y = any(iter(int, 1))", INTERRUPTED, ""),
    ("y = max(range(10 ** 15))", LIMIT, "range"),
    ("import functools\nimport math\ny = functools.reduce(math.gcd, range(10 ** 9))", LIMIT,
     "range"),
    ("m = (1 << 16000) - 1\ny = pow(3, m, m)", LIMIT, "modulus"),
    ("y = 0.5 in range(10 ** 15)", LIMIT, "range"), ("y = [*range(10 ** 9)]", LIMIT, "range"),
    ("y = max(filter(None, iter(int, 1)))", INTERRUPTED, ""),
    (ONE_MB + "y = max(map(s.count, ['y'] * 10 ** 6))", INTERRUPTED, ""),
    (ONE_MB + "y = sorted(['y'] * 10 ** 6, key=s.count)", INTERRUPTED, ""),
    (ONE_MB + "y = ['y'] * 10 ** 6\ny.sort(key=s.count)", INTERRUPTED, ""),
    ("import functools\nimport math\ny = functools.reduce(math.gcd, iter(int, 1))",
     INTERRUPTED, ""),
    ("y = sum([[0] * 10 ** 6] * 1000, [])", LIMIT, "bytes"),
    # finding 5: sizes in bytes
    ("y = np.float64([1.0] * 15000)[:, None] * np.float64([1.0] * 15000)", RUNTIME,
     "elements"),
    (PLAIN + "y = p * (np.float64(1.0) + [[1.0] * 15000])", RUNTIME, "elements"),
    (PLAIN + "y = p < (np.float64(1.0) - [[1.0] * 15000])", RUNTIME, "elements"),
    (PLAIN + "y = divmod(p, np.float64(1.0) / [[1.0] * 15000])", RUNTIME, "elements"),
    (ROWS + "y = np.float64(1.0) == m", RUNTIME, "elements"),
    (ROWS + "y = np.array(m)", RUNTIME, "elements"),
    ("m = np.ones((1, 1))\ni = np.zeros(15000, dtype=int)\ny = m[i[:, None], i[None, :]]",
     RUNTIME, "elements"),
    (ROWS + "y = np.ones(3)[m]", RUNTIME, "elements"),
    ("y = np.zeros(600).astype('U1000000')", RUNTIME, "dtype"),
    ("y = np.zeros(3).astype('O')", RUNTIME, "dtype"),
    (ONE_MB + "y = ''.join([s] * 1000)", LIMIT, "bytes"),
    (ONE_MB + "y = s.replace('x', 'y' * 1000)", LIMIT, "bytes"),
    (ONE_MB + "y = s.translate({120: 'y' * 1000})", LIMIT, "bytes"),
    ("s = 'x'\nfor i in range(31):\n    s = s + s", LIMIT, "bytes"),
    ("s = 'x'\nfor i in range(31):\n    s += s", LIMIT, "bytes"),
    ("y = [0] * 10 ** 6\nfor i in range(31):\n    y = y + y", LIMIT, "bytes"),
    ("y = [0] * 10 ** 6\nfor i in range(31):\n    y.extend(y)", LIMIT, "bytes"),
    (ONE_MB + "y = f'" + "{s}" * 100 + "'", LIMIT, "bytes"),
    (ONE_MB + "y = '%s' * 100 % ((s,) * 100)", LIMIT, "bytes"),
    (ONE_MB + "y = str([s] * 100)", LIMIT, "bytes"),
    ("y = ('a,' * 10 ** 7).split(',')", LIMIT, "bytes"),
    # finding 6: nesting wherever user values become text
    (DEEP + "s = str(slice(d, 1))", RUNTIME, "nested"),
    (DEEP + "s = repr({1: d}.values())", RUNTIME, "nested"),
    (DEEP + "s = repr({1: d}.items())", RUNTIME, "nested"),
    (DEEP + "s = repr(ValueError(d))", RUNTIME, "nested"),
    (DEEP + "s = f'{KeyError(d)}'", RUNTIME, "nested"),
    (DEEP + "raise ValueError(d)", RUNTIME, "nested"),
    (DEEP + "try:\n    raise ValueError(d)\nexcept ValueError:\n    raise KeyError(1)",
     RUNTIME, "KeyError"),
    (DEEP + "x = jax.ad_checkpoint.checkpoint_name(x, d)", RUNTIME, "nested"),
    (DEEP + "import functools\ns = str(functools.partial(abs, d))", RUNTIME, "nested"),
    (DEEP + "y = jnp.sin(d)", RUNTIME, "[...]"),
    (ROWS + "y = 0 < np.float64(1.0) < m", RUNTIME, "elements"),
    (ROWS + "y = m in np.ones(3)", RUNTIME, "elements"),
    ("y = [[0.0] * 15000] * 15000", LIMIT, "bytes"),
    (ONE_MB + "y = s[:-1] + 'y' in [s] * 10 ** 6", LIMIT, "bytes"),
]):
    add(Case(f"issue42-{i:02d}", "resources", fn(body), kind, FIRST + body.count("\n") + 1,
             (words,) if words else (), browser=i in (0, 1, 3, 12, 22, 34)))

# ... and ordinary programs through the same guards run as before
add(Case("issue42-ordinary", "resources", fn(
    "xs = [1]\nys = xs\nxs += range(3)\nassert ys == [1, 0, 1, 2]\n"
    "a = np.ones(3)\na *= 2\na += 1\nassert a.sum() == 9.0\n"
    "w = np.float32(2.0) * 3\nassert isinstance(w, np.float32) and w.dtype == np.float32\n"
    "r = np.int64(2) * [1.0]\nassert r == [1.0, 1.0] and (np.float64(1.0) + [1.0])[0] == 2\n"
    "v = np.float32([1, 2])\nassert v.shape == (2,) and v[[0, 1, 1]].sum() == 5\n"
    "z = jnp.zeros(2, np.float32) + np.ones(2).astype(np.float32)\n"
    "t = f'{1.5:>8.3f} {[1, 2]!r}' + '%d-%s' % (3, 'a') + ','.join(map(str, range(3)))\n"
    "u = sorted([3, 1, 2], key=abs) + list(filter(None, [0, 1])) + [max([1, 5], key=abs)]\n"
    "assert sum([[1], [2]], []) == [1, 2] and t.split(',')[-1] == '2'\n"
    "assert sum(iter([1, 2, 3].pop, 1)) == 5\n"
    "v = np.float64(1.0)\nassert v is v and 1 < 2 < v + 2 and 3 > v not in [2.0, 3.0]"), None))

# ------------------------------------------------- format strings and pattern matching

add(
    Case("format-method", "format and patterns", fn("s = '{0.__class__}'.format(x)"), R,
         FIRST + 1),
    Case("format-map", "format and patterns", fn("s = '{a.__globals__}'.format_map({'a': f})"),
         R, FIRST + 1),
    Case("format-str-method-ref", "format and patterns", fn("m = str.format"), R, FIRST + 1),
    Case("format-fstring-dunder", "format and patterns", fn("s = f'{x.__class__}'"), R,
         FIRST + 1),
    Case("format-fstring-ok", "format and patterns", fn("s = f'{1.5:>8.3f} {[1, 2]!r}'"), None),
    Case("format-percent-mapping", "format and patterns",
         fn("s = '%(__class__)s' % {'__class__': 1}"), None),
    Case("format-builtin", "format and patterns", fn("s = format(x, '')"), R, FIRST + 1,
         ("'format'",)),
    Case("match-class-kw", "format and patterns",
         fn("match x:\n    case float(__class__=c):\n        pass"), R, FIRST + 2),
    Case("match-class-globals", "format and patterns",
         fn("match jnp.sin:\n    case object(__globals__=g):\n        pass"), R, FIRST + 2),
    Case("match-class-traceback", "format and patterns",
         fn("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    match e:\n"
            "        case ZeroDivisionError(__traceback__=tb):\n            pass"), R, FIRST + 5),
    Case("match-class-plain-attr", "format and patterns",
         fn("match np.ones(3):\n    case np.ndarray(ctypes=c):\n        pass"), R, FIRST + 2),
    Case("match-class-positional", "format and patterns",
         fn("match 1.0:\n    case float(v):\n        pass"), R, FIRST + 2),
    Case("match-value-attr", "format and patterns",
         fn("match 1:\n    case np.ctypeslib:\n        pass"), R, FIRST + 2),
    Case("match-mapping-ok", "format and patterns",
         fn("match {'a': 1}:\n    case {'a': v, **rest}:\n        y = v"), None),
    Case("match-sequence-ok", "format and patterns",
         fn("match [1, 2]:\n    case [a, *others]:\n        y = a"), None),
    Case("match-star-dunder", "format and patterns",
         fn("match [1]:\n    case [*__rest]:\n        pass"), R, FIRST + 2),
)

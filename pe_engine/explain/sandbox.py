"""Loading user code: parse, check, insert the guards, run with `jax` bound to facades.

The page runs whatever a permalink carries, so this is a security boundary as well as a
source of friendly errors. Its layers, each tested on its own:
- the language is an allowlist (checker.py), and every value-dependent question (which
  attribute, how big a power, how deep a recursion) is asked at run time by guards the
  rewrite inserts (rewrite.py, guards.py);
- imports give read-only facades of exactly the engine's public API (facades.py), numpy's
  with the same element limits as jnp (numpy_facade.py), never a real module;
- every request starts from the same state: guard counters, numpy's random generator and
  `jax.config` are reset around each request (modes.run), and nothing user code can reach
  is mutable.
The browser is the outer wall: the worker runs in an opaque-origin sandbox with no network,
storage or DOM (app/engine-client.js); this module only keeps a link from doing harm there.
"""
from __future__ import annotations

import ast
import builtins
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import Any

import pe_engine

from .. import ad_checkpoint, lax, nn, scipy, tree, tree_util
from .. import numpy as jnp
from . import guards, numpy_facade
from .checker import USER_FILENAME, UserCodeError, check, parse
from .facades import ConfigView, Facade, engine_facade, functools_facade, math_facade
from .rewrite import insert_guards

__all__ = ["USER_FILENAME", "UserCodeError", "check_source", "facades", "load_function",
           "user_lineno"]


@functools.cache
def facades() -> dict[str, Facade]:
    """What each allowed `import` gives user code, by the name imported."""
    subs = {"numpy": engine_facade(jnp, "jax.numpy"), "lax": engine_facade(lax, "jax.lax"),
            "nn": engine_facade(nn, "jax.nn"),
            "ad_checkpoint": engine_facade(ad_checkpoint, "jax.ad_checkpoint"),
            "scipy": engine_facade(scipy, "jax.scipy"),
            "scipy.special": engine_facade(scipy.special, "jax.scipy.special"),
            "tree": engine_facade(tree, "jax.tree"),
            "tree_util": engine_facade(tree_util, "jax.tree_util")}
    jax = engine_facade(pe_engine, "jax", {**subs, "config": ConfigView()})
    return {"jax": jax, **{f"jax.{n}": f for n, f in subs.items()},
            "numpy": numpy_facade.numpy_facade(), "math": math_facade(),
            "functools": functools_facade()}


_SAFE_BUILTINS = (
    "abs all any bool dict enumerate float int len list max min range reversed sorted sum "
    "tuple zip map filter isinstance slice divmod callable iter next set frozenset chr ord "
    "hex bin oct complex round Exception ValueError TypeError NotImplementedError "
    "AssertionError ZeroDivisionError IndexError KeyError RuntimeError ArithmeticError "
    "OverflowError LookupError AttributeError StopIteration True False None"
).split()


def _restricted_import(name: str, globals: Any = None, locals: Any = None,
                       fromlist: Any = (), level: int = 0) -> Any:
    mods = facades()
    if name not in mods:
        # User code can only import the facades (the checker refuses other names and the
        # name __import__); any other name comes from a library's C code looking up a
        # module it already loaded (numpy's ndarray.sum imports numpy._core._methods).
        if level == 0 and name in sys.modules:
            return builtins.__import__(name, globals, locals, fromlist, level)
        raise ImportError(f"import of '{name}' is not allowed")
    mod = mods[name]
    if fromlist:
        for n in fromlist:
            if not mod.has(n) and f"{name}.{n}" not in mods:
                raise ImportError(f"cannot import name '{n}' from '{name}': "
                                  + mod.missing(n))
        return mod
    return mods[name.split(".")[0]]


def _round(number: Any, ndigits: Any = None) -> Any:
    # round(5, -10**8) computes 10**(10**8) in C before answering 0
    if isinstance(ndigits, int) and abs(ndigits) > 400:
        raise guards.LimitError(f"round: ndigits={ndigits} is over the page's limit of 400")
    return round(number, ndigits)


def _builtins() -> dict[str, Any]:
    safe = {k: getattr(builtins, k) for k in _SAFE_BUILTINS}
    safe.update({"__import__": _restricted_import, "pow": guards.guarded_pow,
                 "repr": guards.guarded_repr, "str": guards.guarded_str,
                 "print": guards.guarded_print, "round": _round})
    return safe


def check_source(source: str) -> ast.Module:
    """Parse and check the restricted language; raise UserCodeError naming what and where."""
    tree = parse(source)
    check(tree, facades())
    return tree


@dataclass
class LoadedFunction:
    fn: Callable[..., Any]
    name: str
    params: list[str]
    lineno: int


@functools.lru_cache(maxsize=16)
def _compiled(source: str, name: str | None) -> tuple[CodeType, str, tuple[str, ...], int]:
    """The user's definitions checked, guarded and compiled, and the traced function's name,
    parameters and line. Kept for the next requests: a toggle, a value or a mode asks again
    with the same source, and parsing and compiling are the slowest steps of a request under
    Pyodide (about half of a grad answer). Failures are not kept: they raise again."""
    tree = check_source(source)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not defs:
        raise UserCodeError("Define a function, e.g. `def f(x, y): return jnp.sin(x) * y`",
                            1, "restricted")
    target = next((d for d in defs if d.name == name), None) if name else defs[-1]
    if target is None:
        raise UserCodeError(f"No function named '{name}' is defined", 1, "restricted")
    args = target.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise UserCodeError("The traced function must take plain positional parameters",
                            target.lineno, "restricted")
    params = tuple(a.arg for a in args.posonlyargs + args.args)
    code = compile(insert_guards(tree), USER_FILENAME, "exec")
    return code, target.name, params, target.lineno


def load_function(source: str, name: str | None = None) -> LoadedFunction:
    """Run the user's definitions; return the named function, or the last one defined."""
    code, fname, params, lineno = _compiled(source, name)
    namespace: dict[str, Any] = {"__builtins__": _builtins(), "__name__": "user",
                                 **guards.GUARDS}
    try:
        exec(code, namespace)  # noqa: S102 - checked and guarded above
    except Exception as e:  # noqa: BLE001 - reported at the user's line
        raise UserCodeError(f"{type(e).__name__}: {e}", user_lineno(e), error_kind(e)) from None
    return LoadedFunction(namespace[fname], fname, list(params), lineno)


def error_kind(exc: BaseException, default: str = "runtime") -> str:
    """The record's error type for an exception raised while user code ran."""
    if isinstance(exc, guards.SandboxAttributeError):
        return "restricted"
    if isinstance(exc, guards.LimitError):
        return "limit"
    return default


def user_lineno(exc: BaseException) -> int | None:
    """The innermost line of the user's code in an exception's traceback."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == USER_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def reset() -> None:
    """Per-request state back to where every request starts."""
    guards.reset()
    numpy_facade.reset()

"""Loading user code: parse, check the restricted language, run with `jax` bound to the engine.

The page runs whatever a permalink carries, so code is checked before it runs:
function definitions and imports of a few modules only, no dunder attributes, no
dynamic evaluation, no file or module escape hatches. The check is a guard rail
on top of the browser's own sandbox (a Web Worker with no DOM and a CSP that
forbids outbound connections), not the only wall.
"""
from __future__ import annotations

import ast
import builtins
import difflib
import functools
import math
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import pe_engine

from .. import lax as _lax
from .. import numpy as _jnp
from .textguard import find_overflow


class UserCodeError(Exception):
    """A problem in the user's code, located at a line of it."""

    def __init__(self, message: str, lineno: int | None = None, kind: str = "error"):
        super().__init__(message)
        self.message = message
        self.lineno = lineno
        self.kind = kind

    def to_json(self) -> dict:
        return {"type": self.kind, "message": self.message, "lineno": self.lineno}


# Helpers the facades hold for the engine's own use: not worth suggesting to the user.
_NOT_SUGGESTED = {
    "get_aval", "promote_args", "canonicalize_dtype", "broadcasting_shape", "bind", "stage",
    "to_numpy", "is_literalable", "array_copy", "broadcast_shapes", "result_type",
}


def _supported(facade: types.ModuleType) -> list[str]:
    return sorted(n for n, v in vars(facade).items()
                  if not n.startswith("_") and n not in _NOT_SUGGESTED
                  and (n[:1].islower() or isinstance(v, types.ModuleType)))


def _missing_attribute(facade: types.ModuleType) -> Callable[[str], Any]:
    """The facade's module `__getattr__`: `jnp.sinh` and the like are parts of JAX the engine
    does not implement; the AttributeError says so and lists what the module does have."""
    def __getattr__(name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"module '{facade.__name__}' has no attribute '{name}'")
        raise AttributeError(f"module '{facade.__name__}' has no attribute '{name}': "
                             + _only_part(facade, name))
    return __getattr__


def _only_part(facade: types.ModuleType, name: str) -> str:
    have = _supported(facade)
    near = difflib.get_close_matches(name, have, n=3, cutoff=0.7)
    hint = f" Did you mean: {', '.join(near)}?" if near else ""
    return (f"this page's engine implements only part of {facade.__name__}.{hint} "
            f"Supported: {', '.join(have)}")


def _public(module: Any, names: Any, public_name: str | None = None) -> types.ModuleType:
    """A stand-in module holding only the listed attributes: user code reaches nothing else
    (no `np` inside `jax.core`, no `sandbox` inside `jax`). A missing attribute's error
    names the module as the user imported it and lists what it does have."""
    facade = types.ModuleType(public_name or module.__name__)
    for n in names:
        if hasattr(module, n):
            v = getattr(module, n)
            if isinstance(v, types.FunctionType) and "<locals>" in v.__qualname__:
                v.__qualname__ = v.__name__  # "sin() takes 1 positional argument", as in JAX
            setattr(facade, n, v)
    facade.__getattr__ = _missing_attribute(facade)  # type: ignore[attr-defined]
    return facade


def _defined_in(module: Any) -> list[str]:
    return [n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
            and getattr(v, "__module__", "").startswith("pe_engine")]


_NUMPY_NAMES = (
    "float32 float16 int32 int8 uint8 bool_ float64 int64 dtype ndarray array asarray zeros ones "
    "zeros_like ones_like full full_like arange linspace eye identity pi e inf nan sin cos tan "
    "exp log sqrt tanh abs sign maximum minimum power where sum max min mean dot matmul einsum "
    "reshape transpose broadcast_to expand_dims squeeze stack concatenate outer prod allclose "
    "isclose shape ndim size square cumsum clip round floor ceil random newaxis").split()


@functools.cache
def _modules() -> dict[str, Any]:
    """What `import X` gives the user's code. `jax` is the engine itself, behind facades."""
    jnp = _public(_jnp, [*_defined_in(_jnp), "ndarray", "float32", "int32", "bool_"],
                  "jax.numpy")
    lax = _public(_lax, _defined_in(_lax), "jax.lax")
    subs = {
        "numpy": jnp, "lax": lax,
        "ad_checkpoint": _public(pe_engine.ad_checkpoint, [
            "checkpoint", "checkpoint_name", "checkpoint_policies", "remat",
            "print_saved_residuals", "saved_residuals"], "jax.ad_checkpoint"),
        "tree_util": _public(pe_engine.tree_util, _defined_in(pe_engine.tree_util),
                             "jax.tree_util"),
        "nn": _public(pe_engine.nn, _defined_in(pe_engine.nn), "jax.nn"),
    }
    jax = _public(pe_engine, [n for n in pe_engine.__all__ if n not in subs], "jax")
    for name, facade in subs.items():
        setattr(jax, name, facade)
    return {"jax": jax, **{f"jax.{n}": m for n, m in subs.items()},
            "numpy": _public(np, _NUMPY_NAMES, "numpy"), "math": math,
            "functools": functools}


_BANNED_NAMES = {
    "eval", "exec", "compile", "open", "__import__", "globals", "locals", "vars", "getattr",
    "setattr", "delattr", "input", "breakpoint", "exit", "quit", "help", "memoryview",
    "js", "pyodide", "sys", "os", "object", "type", "super", "classmethod", "staticmethod",
}
# Attributes that lead out of the engine's values: raw memory, files, frames.
_BANNED_ATTRS = {
    "ctypes", "tofile", "dump", "dumps", "load", "save", "savez", "fromfile", "memmap",
    "f_globals", "f_locals", "f_back", "f_builtins", "gi_frame", "gi_code", "cr_frame",
    "ag_frame", "tb_frame", "tb_next", "format", "format_map", "mro", "modules",
}
_ALLOWED_TOP = (ast.FunctionDef, ast.Import, ast.ImportFrom, ast.Expr, ast.Assign)
_SAFE_BUILTINS = (
    "abs", "all", "any", "bool", "dict", "enumerate", "float", "int", "len", "list", "max",
    "min", "print", "range", "reversed", "round", "sorted", "sum", "tuple", "zip", "map",
    "filter", "isinstance", "ValueError", "TypeError", "Exception", "True", "False", "None",
    "slice", "pow", "divmod", "str", "repr", "hasattr", "callable", "iter", "next", "set",
    "frozenset", "NotImplementedError", "AssertionError", "ZeroDivisionError", "IndexError",
    "KeyError", "complex",
)

USER_FILENAME = "<user>"


def check_source(source: str) -> ast.Module:
    """Parse and check the restricted language; raise UserCodeError naming what and where."""
    overflow = find_overflow(source)
    if overflow is not None:
        raise UserCodeError(f"SyntaxError: too deep to parse: {overflow[1]}", overflow[0],
                            "syntax")
    try:
        tree = ast.parse(source, filename=USER_FILENAME)
    except SyntaxError as e:
        line = e.lineno
        if line is None and "\0" in source:  # "source code string cannot contain null bytes"
            line = source.count("\n", 0, source.index("\0")) + 1
        raise UserCodeError(f"SyntaxError: {e.msg}", line, "syntax") from None
    except UnicodeEncodeError as e:  # a lone surrogate, e.g. from a damaged link
        raise UserCodeError(f"SyntaxError: the code holds a character that is not text "
                            f"(U+{ord(source[e.start]):04X})", source.count("\n", 0, e.start) + 1,
                            "syntax") from None
    except (MemoryError, RecursionError):  # nesting too deep for the parser
        raise UserCodeError("SyntaxError: the code is nested too deeply to parse", None,
                            "syntax") from None
    for node in tree.body:
        if not isinstance(node, _ALLOWED_TOP):
            raise UserCodeError(
                f"Only function definitions, imports and simple assignments are allowed at "
                f"the top level, not {type(node).__name__}", node.lineno, "restricted")
    allowed = _modules()
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in allowed:
                    raise UserCodeError(f"import of '{alias.name}' is not allowed; allowed: "
                                        + ", ".join(sorted(allowed)), line, "restricted")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            for alias in node.names:
                full = f"{mod}.{alias.name}"
                if mod not in allowed and full not in allowed:
                    raise UserCodeError(f"import from '{mod}' is not allowed; allowed: "
                                        + ", ".join(sorted(allowed)), line, "restricted")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise UserCodeError(f"access to the private attribute '{node.attr}' is not "
                                "allowed", line, "restricted")
        elif isinstance(node, ast.Attribute) and node.attr in _BANNED_ATTRS:
            raise UserCodeError(f"the attribute '{node.attr}' is not allowed here", line,
                                "restricted")
        elif isinstance(node, ast.Name) and (node.id in _BANNED_NAMES or node.id.startswith("__")):
            raise UserCodeError(f"'{node.id}' is not allowed here", line, "restricted")
        elif isinstance(node, (ast.Global, ast.Nonlocal, ast.ClassDef, ast.AsyncFunctionDef,
                               ast.Await, ast.Yield, ast.YieldFrom)):
            raise UserCodeError(f"{type(node).__name__} is not allowed", line, "restricted")
    return tree


def _restricted_import(name: str, globals: Any = None, locals: Any = None,
                       fromlist: Any = (), level: int = 0) -> Any:
    mods = _modules()
    if name not in mods:
        raise ImportError(f"import of '{name}' is not allowed")
    if fromlist:
        mod = mods[name]
        for n in fromlist:
            if isinstance(mod, types.ModuleType) and "__getattr__" in vars(mod) \
                    and n not in vars(mod) and f"{name}.{n}" not in mods:
                raise ImportError(f"cannot import name '{n}' from '{name}': "
                                  + _only_part(mod, n))
        return mod
    return mods[name.split(".")[0]]


@dataclass
class LoadedFunction:
    fn: Callable[..., Any]
    name: str
    params: list[str]
    lineno: int


def load_function(source: str, name: str | None = None) -> LoadedFunction:
    """Run the user's definitions; return the named function, or the last one defined."""
    tree = check_source(source)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not defs:
        raise UserCodeError("Define a function, e.g. `def f(x, y): return jnp.sin(x) * y`",
                            1, "restricted")
    target = next((d for d in defs if d.name == name), None) if name else defs[-1]
    if target is None:
        raise UserCodeError(f"No function named '{name}' is defined", 1, "restricted")
    safe = {k: getattr(builtins, k) for k in _SAFE_BUILTINS if hasattr(builtins, k)}
    safe["__import__"] = _restricted_import
    namespace: dict[str, Any] = {"__builtins__": safe, "__name__": "user"}
    try:
        exec(compile(tree, USER_FILENAME, "exec"), namespace)  # noqa: S102 - checked above
    except Exception as e:  # noqa: BLE001 - reported at the user's line
        raise UserCodeError(f"{type(e).__name__}: {e}", user_lineno(e), "runtime") from None
    args = target.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise UserCodeError("The traced function must take plain positional parameters",
                            target.lineno, "restricted")
    params = [a.arg for a in args.posonlyargs + args.args]
    return LoadedFunction(namespace[target.name], target.name, params, target.lineno)


def user_lineno(exc: BaseException) -> int | None:
    """The innermost line of the user's code in an exception's traceback."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == USER_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

"""The restricted language, checked on the syntax tree before any of it runs.

User code arrives in links written by someone else. What it may say is an allowlist:
- at the top level, imports, function definitions and assignments of static expressions
  (constants, calls of imported functions, arithmetic), so nothing runs at definition time
  but what a JAX module really does there (`W = jnp.ones((3, 3))`, `@jax.jit`);
- no name, attribute, keyword or pattern keyword that starts with an underscore (a single
  `_` as a name is fine: names resolve only in the user's own namespace, never through an
  object, and `for _ in range(n)` is everyday code);
- no attribute stores or deletes (so no facade or engine object can be changed), no classes,
  generators, async code, `global`/`nonlocal`, or bare `except:` (it would swallow the
  interrupt that stops a runaway);
- integer literals of a bounded size.
Everything that needs a value to decide (which attribute of which object, how big a power)
is checked at run time by the guards the rewrite inserts (guards.py, rewrite.py).
"""
from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from .limits import MAX_INT_BITS, MAX_SOURCE_CHARS
from .textguard import find_overflow


class UserCodeError(Exception):
    """A problem in the user's code, located at a line of it."""

    def __init__(self, message: str, lineno: int | None = None, kind: str = "error"):
        super().__init__(message)
        self.message = message
        self.lineno = lineno
        self.kind = kind

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "message": self.message, "lineno": self.lineno}


USER_FILENAME = "<user>"

# Builtins that would reach outside the language; named here only for a clear message at
# the line (they are absent from the user's builtins in any case).
FORBIDDEN_NAMES = frozenset({
    "eval", "exec", "compile", "open", "globals", "locals", "vars", "getattr", "setattr",
    "delattr", "hasattr", "input", "breakpoint", "exit", "quit", "help", "memoryview", "js",
    "pyodide", "sys", "os", "object", "type", "super", "classmethod", "staticmethod",
    "property", "dir", "format", "issubclass", "bytearray", "bytes", "id",
})
# Attributes with a dedicated message: ways out of an array or a string to memory, files
# or attribute walks. The runtime guard refuses every attribute not on its allowlist.
FORBIDDEN_ATTRS = frozenset({
    "ctypes", "tofile", "dump", "dumps", "load", "save", "savez", "fromfile", "memmap",
    "format", "format_map", "mro", "modules", "f_globals", "f_locals", "f_back", "gi_frame",
    "gi_code", "cr_frame", "tb_frame", "tb_next", "view", "base", "data",
})
_FORBIDDEN_NODES = (ast.Global, ast.Nonlocal, ast.ClassDef, ast.AsyncFunctionDef, ast.Await,
                    ast.Yield, ast.YieldFrom, ast.AsyncFor, ast.AsyncWith, ast.TryStar)
# Static expressions: what a top-level assignment, a decorator or a default may hold.
_STATIC_NODES = (ast.Constant, ast.Name, ast.Attribute, ast.Call, ast.Tuple, ast.List,
                 ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare,
                 ast.Subscript, ast.Slice, ast.IfExp, ast.keyword, ast.Load, ast.expr_context,
                 ast.operator, ast.unaryop, ast.boolop, ast.cmpop)

_LITERAL_NODES = (ast.Constant, ast.UnaryOp, ast.BinOp, ast.operator, ast.unaryop)


def _fail(message: str, node: ast.AST | None) -> UserCodeError:
    return UserCodeError(message, getattr(node, "lineno", None), "restricted")


def parse(source: str) -> ast.Module:
    """Parse the user's source, refusing text that would crash the parser first."""
    if len(source) > MAX_SOURCE_CHARS:
        raise UserCodeError(f"the code has {len(source)} characters, over the page's limit of "
                            f"{MAX_SOURCE_CHARS}", source.count("\n", 0, MAX_SOURCE_CHARS) + 1,
                            "limit")
    overflow = find_overflow(source)
    if overflow is not None:
        raise UserCodeError(f"SyntaxError: too deep to parse: {overflow[1]}", overflow[0],
                            "syntax")
    try:
        return ast.parse(source, filename=USER_FILENAME)
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


def check(tree: ast.Module, importable: Mapping[str, Any]) -> None:
    """Raise UserCodeError at the first construct outside the restricted language.
    `importable` maps each allowed module name to its facade (for `from X import Y`)."""
    imported = _imported_names(tree)
    for node in tree.body:
        _check_top_level(node, imported)
    for sub in ast.walk(tree):
        _check_node(sub, importable)


def _imported_names(tree: ast.Module) -> frozenset[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return frozenset(names)


def _check_top_level(node: ast.stmt, imported: frozenset[str]) -> None:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return
    if isinstance(node, ast.FunctionDef):
        for expr in node.decorator_list:  # a decorator is called when the code loads
            _check_static(expr, "a decorator", imported, called=True)
        for expr in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            _check_static(expr, "a default argument", imported)
        return
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
            and isinstance(node.value.value, str):
        return  # a docstring
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
            and isinstance(node.value.func, ast.Attribute) \
            and node.value.func.attr in _RULE_METHODS:
        _check_static(node.value, "a top-level call", imported)
        return
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            names = t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
            if not all(isinstance(n, ast.Name) for n in names):
                raise _fail("a top-level assignment may only bind names", node)
        if node.value is not None:
            _check_static(node.value, "a top-level assignment", imported)
        return
    raise _fail(f"Only function definitions, imports and simple assignments are allowed at "
                f"the top level, not {type(node).__name__}", node)


# Builtins a static expression may call: they make values and run no user code.
_STATIC_CALLS = frozenset({"float", "int", "bool", "complex", "tuple", "list", "dict", "set",
                           "frozenset", "range", "slice", "len", "abs", "min", "max", "round"})


def _callee_root(expr: ast.expr) -> ast.expr:
    while isinstance(expr, (ast.Attribute, ast.Call, ast.Subscript)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr


# A custom_jvp's or custom_vjp's rule given at the top level, as JAX's docs give it
# (`f.defvjp(f_fwd, f_bwd)`, `@f.defjvp`): the call stores functions and runs none.
_RULE_METHODS = frozenset({"defjvp", "defjvps", "defvjp"})


def _check_callee(func: ast.expr, where: str, imported: frozenset[str]) -> None:
    root = _callee_root(func)
    if isinstance(root, ast.Name) and (root.id in imported or (
            root is func and root.id in _STATIC_CALLS)):
        return
    if isinstance(func, ast.Attribute) and func.attr in _RULE_METHODS \
            and isinstance(func.value, ast.Name):
        return
    raise _fail(f"{where} calls `{ast.unparse(func)[:60]}` when the code loads: only "
                "functions of imported modules may run then; call your own functions inside "
                "the traced function", func)


def _check_static(expr: ast.expr, where: str, imported: frozenset[str],
                  called: bool = False) -> None:
    """Top-level code runs when the code loads: constants, names, lambdas (defined, not
    run) and calls of imported functions only."""
    if called:
        _check_callee(expr, where, imported)
    stack: list[ast.AST] = [expr]
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Lambda):
            # its defaults are evaluated now; its body runs when it is called
            stack.extend([*sub.args.defaults, *(d for d in sub.args.kw_defaults if d)])
            continue
        if not isinstance(sub, _STATIC_NODES):
            raise _fail(f"{where} holds {type(sub).__name__}: only constants, names, lambdas "
                        "and calls of imported functions run when the code is loaded; put the "
                        "rest inside a function", sub)
        if isinstance(sub, ast.Call):
            _check_callee(sub.func, where, imported)
        stack.extend(ast.iter_child_nodes(sub))


def _check_node(node: ast.AST, importable: Mapping[str, Any]) -> None:
    if isinstance(node, _FORBIDDEN_NODES):
        raise _fail(f"{type(node).__name__} is not allowed", node)
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in importable:
                raise _fail(f"import of '{alias.name}' is not allowed; allowed: "
                            + ", ".join(sorted(importable)), node)
    elif isinstance(node, ast.ImportFrom):
        mod = node.module or ""
        if node.level or mod not in importable:
            raise _fail(f"import from '{'.' * node.level}{mod}' is not allowed; allowed: "
                        + ", ".join(sorted(importable)), node)
        facade = importable[mod]
        for alias in node.names:
            if alias.name == "*" or alias.name.startswith("_"):
                raise _fail(f"'from {mod} import {alias.name}' is not allowed", node)
            if not facade.has(alias.name) and f"{mod}.{alias.name}" not in importable:
                raise _fail(f"cannot import name '{alias.name}' from '{mod}': "
                            + facade.missing(alias.name), node)
    elif isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise _fail(f"access to the private attribute '{node.attr}' is not allowed", node)
        if node.attr in FORBIDDEN_ATTRS:
            raise _fail(f"the attribute '{node.attr}' is not allowed here", node)
        if not isinstance(node.ctx, ast.Load):
            raise _fail(f"assigning or deleting the attribute '{node.attr}' is not allowed: "
                        "modules and arrays are read-only here", node)
    elif isinstance(node, ast.Name):
        if node.id.startswith("__") or node.id in FORBIDDEN_NAMES:
            raise _fail(f"'{node.id}' is not allowed here", node)
    elif isinstance(node, ast.arg):
        if node.arg.startswith("__"):
            raise _fail(f"the parameter name '{node.arg}' is not allowed", node)
    elif isinstance(node, ast.FunctionDef):
        if node.name.startswith("__"):
            raise _fail(f"the function name '{node.name}' is not allowed", node)
    elif isinstance(node, ast.keyword):
        if node.arg is not None and node.arg.startswith("_"):
            raise _fail(f"the keyword argument '{node.arg}' is not allowed", node)
    elif isinstance(node, ast.MatchClass):
        # a class pattern reads attributes of the subject (its keywords, __match_args__)
        # where no run-time guard can see them
        bad = [kw for kw in node.kwd_attrs if kw.startswith("_")]
        raise _fail(f"the pattern keyword '{bad[0]}' is not allowed" if bad else
                    "class patterns (`case C(...)`) are not supported: test with "
                    "isinstance in a guard (`case x if isinstance(x, float)`)", node)
    elif isinstance(node, ast.MatchValue) and not all(isinstance(n, _LITERAL_NODES)
                                                      for n in ast.walk(node.value)):
        raise _fail("a `case` may compare with literals only: write `case x if x == value`",
                    node)
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
        if node.name is not None and node.name.startswith("__"):
            raise _fail(f"the name '{node.name}' is not allowed", node)
    elif isinstance(node, ast.MatchMapping):
        if node.rest is not None and node.rest.startswith("__"):
            raise _fail(f"the name '{node.rest}' is not allowed", node)
    elif isinstance(node, ast.ExceptHandler):
        if node.type is None:
            raise _fail("a bare `except:` is not allowed (it would catch the interrupt that "
                        "stops a runaway): write `except Exception:`", node)
        if node.name is not None and node.name.startswith("__"):
            raise _fail(f"the name '{node.name}' is not allowed", node)
    elif isinstance(node, ast.Constant):
        if type(node.value) is int and node.value.bit_length() > MAX_INT_BITS:
            raise _fail(f"an integer literal of {node.value.bit_length()} bits is over the "
                        f"page's limit of {MAX_INT_BITS}", node)

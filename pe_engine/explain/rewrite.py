"""The rewrite that puts a run-time guard wherever a value decides what is safe.

Applied to the checked tree before it is compiled; each guard is a name the user cannot
write (it starts with `__`, which the checker refuses), bound in the user's namespace:
- every attribute read `a.b` becomes `__pe_getattr__(a, 'b')` (guards.guarded_getattr: an
  allowlist per type), so no attribute walk reaches past what the page exposes;
- every binary operator (and its augmented form) and every comparison of one operator go
  through guards (operators.py) that bound what its C step makes: big integers, sequences
  repeated or joined, printf-style formats, numpy arrays made from lists;
- every user function and lambda is wrapped by `__pe_fn__`, which bounds how deeply user
  functions nest: recursion through C (`max(map(g, ...))`) overflows the wasm stack long
  before Python's recursion limit;
- every f-string field is formatted by `__pe_fmt__`, which refuses containers nested deeper
  than the C formatting code can recurse, and widths that would allocate without limit; the
  pieces are joined by `__pe_fstr__`, which bounds the total;
- what a set or dict display or comprehension, a subscript or `in` hashes is checked
  first by `__pe_key__` (hashguard.py: hashing recurses in C without a check);
- every `finally` block and `except` handler starts with `__pe_tick__()`, which raises the
  page's interrupt again once the request's time limit expired (interrupts.py), so that no
  `finally: continue` or `except` stops it.
The walk is iterative: the tree of a long expression is deeper than Python's own recursion.
"""
from __future__ import annotations

import ast

from .checker import UserCodeError

GETATTR, FN, FMT, FSTR = "__pe_getattr__", "__pe_fn__", "__pe_fmt__", "__pe_fstr__"
TICK, KEY, KEYS = "__pe_tick__", "__pe_key__", "__pe_keys__"
BINOP_GUARDS = {ast.Pow: "__pe_pow__", ast.LShift: "__pe_lshift__", ast.Mult: "__pe_mul__",
                ast.Mod: "__pe_mod__", ast.Add: "__pe_add__", ast.Sub: "__pe_sub__",
                ast.Div: "__pe_truediv__", ast.FloorDiv: "__pe_floordiv__",
                ast.MatMult: "__pe_matmul__", ast.BitAnd: "__pe_and__", ast.BitOr: "__pe_or__",
                ast.BitXor: "__pe_xor__", ast.RShift: "__pe_rshift__"}
COMPARE_GUARDS = {ast.Eq: "__pe_eq__", ast.NotEq: "__pe_ne__", ast.Lt: "__pe_lt__",
                  ast.LtE: "__pe_le__", ast.Gt: "__pe_gt__", ast.GtE: "__pe_ge__",
                  ast.In: "__pe_in__", ast.NotIn: "__pe_notin__", ast.Is: "__pe_is__",
                  ast.IsNot: "__pe_isnot__"}
CHAIN = "__pe_chain__"


_NO_ARGS = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])


def _call(name: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    """`name(*args)` where `like` is (every new node is placed at once, where
    ast.fix_missing_locations would place it, so no walk of the whole tree is needed)."""
    return ast.copy_location(ast.Call(ast.copy_location(ast.Name(name, ast.Load()), like),
                                      args, []), like)


def _constant(value: str | int, like: ast.AST) -> ast.Constant:
    return ast.copy_location(ast.Constant(value), like)


def _simple(expr: ast.expr) -> bool:
    """An expression that can be evaluated twice without a difference (an AugAssign's
    subscript target is read, then written)."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.Load, ast.Slice, ast.Tuple,
                              ast.UnaryOp, ast.unaryop, ast.BinOp, ast.operator))
               for n in ast.walk(expr))


def _key(expr: ast.expr) -> ast.expr:
    """`expr` checked before it is hashed; a starred part, each of its items."""
    if isinstance(expr, ast.Starred):
        expr.value = _call(KEYS, [expr.value], expr.value)
        return expr
    return _call(KEY, [expr], expr)


def _index(expr: ast.expr) -> ast.expr:
    """A subscript's index checked part by part (a slice's bounds, a tuple's items: a
    slice cannot be wrapped in a call)."""
    if isinstance(expr, ast.Slice):
        for field in ("lower", "upper", "step"):
            part = getattr(expr, field)
            if part is not None:
                setattr(expr, field, _key(part))
        return expr
    if isinstance(expr, ast.Tuple):
        expr.elts = [_index(e) for e in expr.elts]
        return expr
    return _key(expr)


def _hashed(node: ast.AST) -> None:
    """Put the hashing guard around what a display, comprehension, subscript or `in`
    hashes (hashguard.py)."""
    if isinstance(node, ast.Set):
        node.elts = [_key(e) for e in node.elts]
    elif isinstance(node, ast.Dict):
        node.keys = [k if k is None else _key(k) for k in node.keys]
    elif isinstance(node, ast.SetComp):
        node.elt = _key(node.elt)
    elif isinstance(node, ast.DictComp):
        node.key = _key(node.key)
    elif isinstance(node, ast.Subscript):
        node.slice = _index(node.slice)
    elif isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            if isinstance(op, (ast.In, ast.NotIn)):
                operands[i] = _key(operands[i])
        node.left, node.comparators = operands[0], operands[1:]


_HASHING = (ast.Set, ast.Dict, ast.SetComp, ast.DictComp, ast.Subscript, ast.Compare)


def _replace(node: ast.AST, wrapped: set[int]) -> ast.AST:
    if isinstance(node, _HASHING):
        _hashed(node)  # in place: the node may have a guard of its own below
    if isinstance(node, ast.Attribute):
        return _call(GETATTR, [node.value, _constant(node.attr, node)], node)
    if isinstance(node, ast.BinOp) and type(node.op) in BINOP_GUARDS:
        return _call(BINOP_GUARDS[type(node.op)], [node.left, node.right], node)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _call(COMPARE_GUARDS[type(node.ops[0])], [node.left, node.comparators[0]], node)
    if isinstance(node, ast.Compare):
        # a chain: each operand after the first is a thunk, so that it is evaluated once and
        # only if the comparisons before it held, as in Python
        ops: list[ast.expr] = [_constant(COMPARE_GUARDS[type(op)], node) for op in node.ops]
        thunks = [ast.copy_location(ast.Lambda(_NO_ARGS, c), c) for c in node.comparators]
        return _call(CHAIN, [ast.copy_location(ast.Tuple(ops, ast.Load()), node), node.left,
                             *thunks], node)
    if isinstance(node, ast.AugAssign) and type(node.op) in BINOP_GUARDS:
        target = node.target
        if isinstance(target, ast.Subscript):
            if not (_simple(target.value) and _simple(target.slice)):
                raise UserCodeError("write `a[i] = a[i] * b` instead of `a[i] *= b` when the "
                                    "index is computed", node.lineno, "restricted")
            read: ast.expr = ast.Subscript(target.value, target.slice, ast.Load())
        elif isinstance(target, ast.Name):
            read = ast.Name(target.id, ast.Load())
        else:  # an attribute: the checker lets none be assigned to
            raise UserCodeError("augmented assignment to an attribute", node.lineno, "restricted")
        inplace = BINOP_GUARDS[type(node.op)].replace("__pe_", "__pe_i", 1)
        value = _call(inplace, [ast.copy_location(read, node), node.value], node)
        return ast.copy_location(ast.Assign([target], value), node)
    if isinstance(node, ast.FunctionDef):
        # innermost decorator: the guard wraps the user's own function, then `@jax.jit`
        # and the like wrap the guard (their names and signatures follow __wrapped__)
        node.decorator_list.append(ast.copy_location(ast.Name(FN, ast.Load()), node))
        return node
    if isinstance(node, ast.Lambda) and id(node) not in wrapped:
        wrapped.add(id(node))
        return _call(FN, [node], node)
    if isinstance(node, ast.JoinedStr):
        # each field is formatted by its guard (conversion and spec included), after the
        # value's nesting, its text's size and the spec's widths are checked; the pieces are
        # joined by another, which checks the total's size
        parts: list[ast.expr] = [_formatted(v) if isinstance(v, ast.FormattedValue) else v
                                 for v in node.values]
        return _call(FSTR, [ast.copy_location(ast.Tuple(parts, ast.Load()), node)], node)
    if isinstance(node, ast.ExceptHandler) or (isinstance(node, ast.Try) and node.finalbody):
        # where an exception can be stopped: the interrupt is raised again there, once the
        # request's time limit expired (interrupts.py)
        body = node.body if isinstance(node, ast.ExceptHandler) else node.finalbody
        body.insert(0, ast.copy_location(ast.Expr(_call(TICK, [], body[0])), body[0]))
        return node
    return node


def _formatted(node: ast.FormattedValue) -> ast.Call:
    spec = node.format_spec if node.format_spec is not None else _constant("", node.value)
    return _call(FMT, [node.value, _constant(node.conversion, node.value), spec], node.value)


def insert_guards(tree: ast.Module) -> ast.Module:
    """The tree with its guards in place (the checker ran first: no attribute is stored)."""
    wrapped: set[int] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                new = [_replace(v, wrapped) if isinstance(v, ast.AST) else v for v in value]
                setattr(node, field, new)
                stack.extend(v for v in new if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                new_node = _replace(value, wrapped)
                setattr(node, field, new_node)
                stack.append(new_node)
    return tree

"""The engine's modules import one another without a circle: each module's module-level
imports (read from its AST) point only to modules that do not, in turn, need it. The public
facades (`pe_engine.lax`, `pe_engine.numpy`, ...) only re-export; the modules that define
primitives never import a facade."""
from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "pe_engine"
# The modules that only re-export what definitions modules define (jax/lax/__init__.py's job).
FACADES = {"pe_engine.lax", "pe_engine.numpy", "pe_engine.tree_util"}
# Modules built over the facades, as user code is: the `jax` package itself, the page's host
# layer, and jax.tree (short names over jax.tree_util).
OVER_FACADES = {"pe_engine", "pe_engine.tree"}
HOST = "pe_engine.explain."
# jax.nn is still definitions and facade at once (nn.py re-exports nn_activations.py, which
# builds on nn.py, over the numpy facade); it is left as it is while dot_product_attention is
# added to it: circles among, and facade imports from, pe_engine.nn* modules are let pass.
PENDING = "pe_engine.nn"


def _pending(module: str) -> bool:
    return module.startswith(PENDING)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (`from . import x` names `pkg.x`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".")[: None if is_package else -1]
        package = package[: len(package) - node.level + 1]
        base = ".".join(package + ([node.module] if node.module else []))
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports run as the module loads: not those inside a function (run when called)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in ENGINE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges = set()
        for node in _module_level_imports(tree):
            for target in _targets(module, path.name == "__init__.py", node):
                # a module's own packages are loaded before it, never because of it
                if target in paths and not (module + ".").startswith(target + "."):
                    edges.add(target)
        graph[module] = edges
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_graph_is_read():
    graph = import_graph()
    assert "pe_engine.core" in graph["pe_engine.staging"]
    assert "pe_engine.explain.modes" in graph


def test_no_import_circle():
    circles = [c for c in strongly_connected(import_graph()) if not all(map(_pending, c))]
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_definitions_never_import_a_facade():
    graph = import_graph()
    for module, edges in graph.items():
        if module in FACADES | OVER_FACADES or module.startswith(HOST) or _pending(module):
            continue
        assert not edges & FACADES, f"{module} imports the facade {sorted(edges & FACADES)}"


# What a facade may do besides importing: list its names, answer a missing one, and (numpy)
# hand an array's operators the functions they call.
_FACADE_BINDINGS = {"__all__", "__getattr__", "ArrayOps._jnp"}


def test_facades_only_reexport():
    for module in FACADES:
        path = ENGINE.parent.joinpath(*module.split(".")).with_suffix(".py")
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # the docstring
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AugAssign) else [])
            names = {ast.unparse(t) for t in targets}
            assert names and names <= _FACADE_BINDINGS, (
                f"{module} line {node.lineno} defines something: {ast.unparse(node)[:80]}")


# ----------------------------------------------------------------------------- where rules live
# A primitive's rules (impl, abstract eval, printing, folding, JVP, transpose, batching, partial
# evaluation, DCE, typecheck) are registered by the module that defines it. Two companions:
# lax_base.py's primitives have their transformation rules in lax_base_rules.py (for size), and
# the call primitives (jit's, remat's) their batching rules in batching_calls.py (it batches
# through api.py, which imports pjit.py).
RULE_COMPANIONS = {"pe_engine.lax_base_rules": {"pe_engine.lax_base"},
                   "pe_engine.batching_calls": {"pe_engine.pjit", "pe_engine.ad_checkpoint"}}


def _engine_modules() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text(encoding="utf-8"))
            for p in ENGINE.rglob("*.py") if "explain" not in p.parts}


def _primitive_definitions(modules: dict[str, ast.Module]) -> dict[str, str]:
    """{name of a module-level `x_p = ...` binding: the module that binds it}."""
    found = {}
    for module, tree in modules.items():
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.endswith("_p"):
                        found[target.id] = module
    return found


def _registered(tree: ast.Module) -> list[tuple[str, int]]:
    """(primitive name, line) of each rule registration: `table[x_p] = ...`, `table.update({x_p:
    ...})`, `defjvp(x_p, ...)` and the like, also through `for p in (x_p, y_p): defjvp(p)`."""
    def name(node: ast.AST) -> str | None:
        return (node.attr if isinstance(node, ast.Attribute)
                else node.id if isinstance(node, ast.Name) else None)

    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            out.append((name(node.slice), node.lineno))
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            fn = name(node.func)
            if fn == "update" and node.args and isinstance(node.args[0], ast.Dict):
                out.extend((name(k), node.lineno) for k in node.args[0].keys if k is not None)
            elif fn and fn.startswith("def") and node.args:
                out.append((name(node.args[0]), node.lineno))
        elif isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List)):
            out.extend((name(e), node.lineno) for e in node.iter.elts)
    return [(n, line) for n, line in out if n and n.endswith("_p")]


def test_a_primitive_s_rules_live_where_it_is_defined():
    modules = _engine_modules()
    defined = _primitive_definitions(modules)
    assert len(defined) > 100
    stray = []
    for module, tree in modules.items():
        for prim, line in _registered(tree):
            home = defined.get(prim)
            if home and home != module and home not in RULE_COMPANIONS.get(module, ()):
                stray.append(f"{module}:{line} registers a rule for {home}.{prim}")
    assert not stray, "\n".join(stray)

"""The engine's coverage of JAX's public API, measured: writes docs/api-coverage.md.

For each JAX namespace below, every public callable of the installed JAX (0.10.2) is listed,
and a name counts as supported when the engine's namespace exports it (its `__all__`, what
the page's `import jax` gives user code) AND a differential test case names it
(tests/api_cases/*_cases.py, run against JAX by tests/test_api_cases_vs_jax.py).

    python tools/api_coverage.py          # rewrite docs/api-coverage.md
    python tools/api_coverage.py --check  # exit 1 if the doc is out of date
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import types
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "tests" / "api_cases"
if str(ROOT) not in sys.path[:1]:  # this checkout's engine, not an installed one
    sys.path.insert(0, str(ROOT))
DOC = ROOT / "docs" / "api-coverage.md"

# The function transforms a user's pasted code calls: the table's "jax (transforms)" row.
# custom_jvp and custom_vjp are classes in JAX, so they are named here, not found by type.
TRANSFORMS = (
    "checkpoint", "custom_jvp", "custom_vjp", "ensure_compile_time_eval", "eval_shape", "grad",
    "hessian", "jacfwd", "jacobian", "jacrev", "jit", "jvp", "linearize", "make_jaxpr", "remat",
    "value_and_grad", "vjp", "vmap",
)


@dataclass(frozen=True)
class Namespace:
    jax_name: str      # as JAX spells it, the prefix of a case's key
    engine_name: str   # the engine's module standing in for it
    title: str
    target: float | None  # the share of names to support, checked by tests/test_api_coverage
    names: tuple[str, ...] | None = None  # a fixed list, where the namespace is not a module's


NAMESPACES = (
    Namespace("jax", "pe_engine", "jax (transforms)", 1.0, TRANSFORMS),
    Namespace("jax.nn", "pe_engine.nn", "jax.nn", 1.0),
    Namespace("jax.tree", "pe_engine.tree", "jax.tree", 1.0),
    Namespace("jax.scipy.special", "pe_engine.scipy.special", "jax.scipy.special", None),
    Namespace("jax.numpy", "pe_engine.numpy", "jax.numpy", 0.85),
    Namespace("jax.lax", "pe_engine.lax", "jax.lax", None),
    Namespace("jax.tree_util", "pe_engine.tree_util", "jax.tree_util", None),
)

# Public callables not counted, with the reason (listed in the doc).
_BLOCK_SCALED = ("block-scaled low-precision matmul: its operands are fp8/fp4 dtypes, which the "
                 "engine (bool, int32, float32) does not have")
EXCLUDED = {
    "jax.nn": {"get_scaled_dot_general_config": _BLOCK_SCALED, "scaled_dot_general": _BLOCK_SCALED,
               "scaled_matmul": _BLOCK_SCALED},
    "jax.tree": {"static": "a dataclass field for register_dataclass: the page's language "
                           "has no classes"},
}

# The scipy.special functions issue 45 asks for by name.
REQUIRED_SPECIAL = ("erf", "expit", "gammaln", "logit", "logsumexp", "xlogy")
# The jax.tree_util names users reach for (the rest is keyed paths and registration).
REQUIRED_TREE_UTIL = ("tree_flatten", "tree_leaves", "tree_map", "tree_structure",
                      "tree_unflatten")


def _module(dotted: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(dotted)
    except ImportError:
        return None


def public_callables(ns: Namespace) -> list[str]:
    """JAX's public callables in `ns`: functions and callable objects (jnp's ufuncs), not
    classes (dtypes, NamedTuples) and not submodules (jax.nn.initializers, jnp.linalg: a
    submodule is a namespace of its own)."""
    if ns.names is not None:
        return sorted(ns.names)
    mod = importlib.import_module(ns.jax_name)
    return sorted(n for n in dir(mod) if not n.startswith("_")
                  and n not in EXCLUDED.get(ns.jax_name, {})
                  and callable(v := getattr(mod, n))
                  and not isinstance(v, (type, types.ModuleType)))


def engine_names(ns: Namespace) -> set[str]:
    mod = _module(ns.engine_name)
    return set(getattr(mod, "__all__", ())) if mod is not None else set()


def load_cases() -> dict[str, tuple]:
    """Every case of every tests/api_cases/*_cases.py, by key ("jax.numpy.take/axis1")."""
    if str(CASES_DIR.parent) not in sys.path:  # a case module may import the test helpers
        sys.path.insert(0, str(CASES_DIR.parent))
    cases: dict[str, tuple] = {}
    for path in sorted(CASES_DIR.glob("*_cases.py")):
        spec = importlib.util.spec_from_file_location(f"api_cases.{path.stem}", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        clash = set(cases) & set(mod.CASES)
        assert not clash, f"{path.name} repeats cases of another module: {sorted(clash)}"
        cases.update(mod.CASES)
    return cases


def case_name(key: str) -> str:
    """The public JAX name a case key names: "jax.numpy.take/axis1" -> "jax.numpy.take"."""
    return key.split("/", 1)[0]


def resolves_in_jax(name: str) -> bool:
    import jax  # noqa: F401 - the root of every name
    obj: object = sys.modules["jax"]
    for part in name.split(".")[1:]:
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return name.startswith("jax.") and callable(obj)


@dataclass
class Row:
    ns: Namespace
    names: list[str]
    supported: list[str]

    @property
    def share(self) -> float:
        return len(self.supported) / len(self.names) if self.names else 1.0


def coverage(cases: dict[str, tuple] | None = None) -> list[Row]:
    cases = load_cases() if cases is None else cases
    named = {case_name(k) for k in cases}
    rows = []
    for ns in NAMESPACES:
        names = public_callables(ns)
        has = engine_names(ns)
        rows.append(Row(ns, names, [n for n in names
                                    if n in has and f"{ns.jax_name}.{n}" in named]))
    return rows


def render(rows: list[Row]) -> str:
    import jax
    out = [
        "# JAX API coverage",
        "",
        f"Generated by `python tools/api_coverage.py` from JAX {jax.__version__}'s namespaces; "
        "`tests/test_api_coverage.py` checks it is current. A name is supported when the "
        "engine's namespace exports it and a differential test case names it "
        "(`tests/api_cases/*_cases.py`: make_jaxpr text, values, gradients, the JVP program "
        "and the splits over masks, each against JAX). A name that is not supported fails in "
        "the page with one line, e.g. `jnp.fft is not in this engine`.",
        "",
        "What counts: each namespace's public callables (functions and callable objects such "
        "as jnp's ufuncs), not its classes (dtypes, NamedTuples) or submodules "
        "(`jax.nn.initializers`, `jnp.linalg` and `jnp.fft` are namespaces of their own; "
        "the initializers need `jax.random`'s keys, which the engine does not have). "
        "`jax (transforms)` is the function transforms listed in `tools/api_coverage.py`; "
        "the rest of `jax`'s top level (devices, sharding, PRNG, configuration) is not "
        "counted.",
        "",
        "| namespace | supported | public callables | share | target |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        target = f"{r.ns.target:.0%}" if r.ns.target is not None else "-"
        out.append(f"| `{r.ns.title}` | {len(r.supported)} | {len(r.names)} | "
                   f"{r.share:.0%} | {target} |")
    for r in rows:
        missing = [n for n in r.names if n not in r.supported]
        out += ["", f"## {r.ns.title}", "",
                f"Supported ({len(r.supported)} of {len(r.names)}): "
                + (", ".join(f"`{n}`" for n in r.supported) or "none"), "",
                f"Missing ({len(missing)}): " + (", ".join(f"`{n}`" for n in missing) or "none")]
        out += [f"\nNot counted: `{n}`, {why}." for n, why in
                sorted(EXCLUDED.get(r.ns.jax_name, {}).items())]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the doc is stale")
    args = parser.parse_args(argv)
    rows = coverage()
    text = render(rows)
    if args.check:
        current = DOC.read_text() if DOC.exists() else ""
        if current != text:
            print(f"{DOC.relative_to(ROOT)} is out of date: run python tools/api_coverage.py")
            return 1
        return 0
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(text)
    for r in rows:
        print(f"{r.ns.title}: {len(r.supported)}/{len(r.names)} ({r.share:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

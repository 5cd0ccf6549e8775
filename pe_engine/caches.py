"""The engine's memo tables, in one registry, so that a host can empty them all at once.

Each table is there for speed while programs are traced and transformed: a function jitted
twice traces once, a jaxpr transformed twice gives the same object (which is also why JAX
prints it once), an aval or a dtype's name met again is looked up. What they remember comes
from the code being traced, so a host that runs one untrusted program after another (the
page's engine, pe_engine.explain.entry) calls `forget()` after each: no program then reads
what an earlier one traced, or keeps its values alive.
"""
from __future__ import annotations

from typing import Any, Protocol, TypeVar


class Table(Protocol):
    def clear(self) -> None: ...

    def __len__(self) -> int: ...


T = TypeVar("T", bound=Table)
_TABLES: dict[str, Table] = {}


def memo_table(name: str, table: T) -> T:
    """`table`, registered under `name` (module.variable) to be emptied by `forget()`."""
    if name in _TABLES:
        raise ValueError(f"a memo table named {name!r} is registered already")
    _TABLES[name] = table
    return table


def forget() -> None:
    """Empty every memo table."""
    for table in _TABLES.values():
        table.clear()


def sizes() -> dict[str, int]:
    """How many entries each memo table holds, by name."""
    return {name: len(table) for name, table in _TABLES.items()}


def tables() -> dict[str, Any]:
    """The registered tables, by name (read-only use: tests and audits)."""
    return dict(_TABLES)

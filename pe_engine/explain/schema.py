"""JSON Schema (draft 2020-12) and JSDoc typedefs from the record contract's TypedDicts.

A small translation for the types the contract uses: str, int, bool, None, Literal,
list[...], unions with `|`, nested TypedDicts (by reference) and NotRequired keys."""
from __future__ import annotations

import types
import typing
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from . import record

_PRIMITIVES = {str: "string", int: "integer", bool: "boolean", type(None): "null",
               float: "number"}


def _is_typeddict(t: Any) -> bool:
    return isinstance(t, type) and typing.is_typeddict(t)


def _fields(td: type) -> list[tuple[str, Any, bool]]:
    """(key, type, required) in declaration order."""
    hints = get_type_hints(td, include_extras=True)
    out = []
    for key, t in hints.items():
        required = key in td.__required_keys__ and get_origin(t) is not NotRequired
        if get_origin(t) is NotRequired:
            t = get_args(t)[0]
        out.append((key, t, required))
    return out


def _union_args(t: Any) -> tuple | None:
    if get_origin(t) in (Union, types.UnionType):
        return get_args(t)
    return None


def json_type(t: Any, defs: dict[str, dict]) -> dict:
    if t in _PRIMITIVES:
        return {"type": _PRIMITIVES[t]}
    if _is_typeddict(t):
        if t.__name__ not in defs:
            defs[t.__name__] = {}  # placeholder against recursion
            defs[t.__name__] = object_schema(t, defs)
        return {"$ref": f"#/$defs/{t.__name__}"}
    origin = get_origin(t)
    if origin is Literal:
        return {"enum": list(get_args(t))}
    if origin is list:
        return {"type": "array", "items": json_type(get_args(t)[0], defs)}
    members = _union_args(t)
    if members is not None:
        return {"anyOf": [json_type(m, defs) for m in members]}
    raise TypeError(f"the record contract has a type JSON cannot carry: {t!r}")


def object_schema(td: type, defs: dict[str, dict]) -> dict:
    fields = _fields(td)
    schema = {"type": "object",
              "properties": {k: json_type(t, defs) for k, t, _ in fields},
              "required": [k for k, _, req in fields if req],
              "additionalProperties": False}
    if td.__doc__ and td.__doc__ != dict.__doc__ and not td.__doc__.startswith(td.__name__ + "("):
        schema["description"] = " ".join(td.__doc__.split())
    return schema


def record_schema() -> dict:
    """The schema of every answer `pe_engine.explain.run` gives: a record of one of the
    modes, or an error. `answer_definition` names the one an answer must match. Its $defs
    also hold PolicyAnswer, what `pe_engine.explain.checkpoint_policy` gives (or an error)."""
    defs: dict[str, dict] = {}
    refs = [json_type(td, defs) for td in [*record.RECORDS.values(), record.ErrorRecord]]
    json_type(record.PolicyAnswer, defs)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "An answer of pe_engine.explain.run",
            "anyOf": refs, "$defs": dict(sorted(defs.items()))}


def answer_definition(answer: dict) -> str:
    """The $defs entry an answer must match: ErrorRecord, or its mode's record (the page's
    validator, app/contract/validate.js, chooses the same way)."""
    if "error" in answer:
        return record.ErrorRecord.__name__
    td = record.RECORDS.get(answer.get("mode"))
    return td.__name__ if td else record.ErrorRecord.__name__


def js_type(t: Any) -> str:
    if t in _PRIMITIVES:
        return {"string": "string", "integer": "number", "boolean": "boolean", "null": "null",
                "number": "number"}[_PRIMITIVES[t]]
    if _is_typeddict(t):
        return t.__name__
    origin = get_origin(t)
    if origin is Literal:
        return " | ".join(f'"{v}"' for v in get_args(t))
    if origin is list:
        inner = js_type(get_args(t)[0])
        return f"Array<{inner}>"
    members = _union_args(t)
    if members is not None:
        return "(" + " | ".join(js_type(m) for m in members) + ")"
    raise TypeError(f"no JSDoc for {t!r}")


def jsdoc_typedefs() -> str:
    """`@typedef` blocks for every TypedDict of the contract, in dependency order."""
    seen: dict[str, type] = {}

    def visit(t: Any) -> None:
        if _is_typeddict(t):
            if t.__name__ in seen:
                return
            seen[t.__name__] = t
            for _, ft, _ in _fields(t):
                visit(ft)
        for a in get_args(t):
            visit(a)

    for td in [*record.RECORDS.values(), record.ErrorRecord, record.PolicyAnswer]:
        visit(td)
    blocks = []
    for name, td in seen.items():
        lines = ["/**"]
        if td.__doc__ and not td.__doc__.startswith(name + "("):
            lines.append(f" * {' '.join(td.__doc__.split())}")
        lines.append(f" * @typedef {{object}} {name}")
        for key, t, req in _fields(td):
            lines.append(f" * @property {{{js_type(t)}}} {key if req else f'[{key}]'}")
        lines.append(" */")
        blocks.append("\n".join(lines))
    union = " | ".join(td.__name__ for td in record.RECORDS.values())
    blocks.append(f"/** @typedef {{{union}}} EngineRecord */")
    blocks.append("/** @typedef {EngineRecord | ErrorRecord} EngineAnswer */")
    return "\n\n".join(blocks)

"""JSON Schema (draft 2020-12) and JSDoc typedefs from the contract's TypedDicts: the
records the engine answers with (record.py) and the requests it is asked (request_contract.py),
and the check of a value against such a schema that the engine runs on every request.

A small translation for the types the contract uses: str, int, bool, None, Literal,
list[...], unions with `|`, nested TypedDicts (by reference) and NotRequired keys."""
from __future__ import annotations

import json
import textwrap
import types
import typing
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from . import record, request_contract

_PRIMITIVES = {str: "string", int: "integer", bool: "boolean", type(None): "null",
               float: "number"}


def _is_typeddict(t: Any) -> bool:
    return isinstance(t, type) and typing.is_typeddict(t)


def _fields(td: type) -> list[tuple[str, Any, bool]]:
    """(key, type, required) in declaration order."""
    hints = get_type_hints(td, include_extras=True)
    out = []
    for key, t in hints.items():
        # a TypedDict class's own attribute, which mypy does not know on a `type`
        required_keys: frozenset[str] = td.__required_keys__  # type: ignore[attr-defined]
        required = key in required_keys and get_origin(t) is not NotRequired
        if get_origin(t) is NotRequired:
            t = get_args(t)[0]
        out.append((key, t, required))
    return out


def _union_args(t: Any) -> tuple[Any, ...] | None:
    if get_origin(t) in (Union, types.UnionType):
        return get_args(t)
    return None


def json_type(t: Any, defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
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


def object_schema(td: type, defs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    # no "description": the docstrings are in the typedefs, and the schema stays data whose
    # every line is short
    fields = _fields(td)
    return {"type": "object",
            "properties": {k: json_type(t, defs) for k, t, _ in fields},
            "required": [k for k, _, req in fields if req],
            "additionalProperties": False}


def record_schema() -> dict[str, Any]:
    """The schema of every answer `pe_engine.explain.run` gives: a record of one of the
    modes, or an error. `answer_definition` names the one an answer must match. Its $defs
    also hold PolicyAnswer, what `pe_engine.explain.checkpoint_policy` gives, and
    SignatureAnswer, what `pe_engine.explain.signature` gives (or an error)."""
    defs: dict[str, dict[str, Any]] = {}
    refs = [json_type(td, defs) for td in [*record.RECORDS.values(), record.ErrorRecord]]
    json_type(record.PolicyAnswer, defs)
    json_type(record.SignatureAnswer, defs)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "An answer of pe_engine.explain.run",
            "anyOf": refs, "$defs": dict(sorted(defs.items()))}


def request_schema() -> dict[str, Any]:
    """The schema of every request: $defs holds each mode's (REQUEST_DEFINITIONS names which),
    PolicyRequest and SignatureRequest, what `pe_engine.explain.checkpoint_policy` and
    `pe_engine.explain.signature` are asked."""
    defs: dict[str, dict[str, Any]] = {}
    for td in [*request_contract.REQUESTS.values(), request_contract.PolicyRequest,
               request_contract.SignatureRequest]:
        json_type(td, defs)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "A request of pe_engine.explain.run or checkpoint_policy",
            "$defs": dict(sorted(defs.items()))}


def answer_definition(answer: dict[str, Any]) -> str:
    """The $defs entry an answer must match: ErrorRecord, or its mode's record (the page's
    validator, app/contract/validate.js, chooses the same way)."""
    if "error" in answer:
        return record.ErrorRecord.__name__
    mode = answer.get("mode")
    td = record.RECORDS.get(mode) if isinstance(mode, str) else None
    return td.__name__ if td else record.ErrorRecord.__name__


def js_type(t: Any) -> str:
    if t in _PRIMITIVES:
        return {"string": "string", "integer": "number", "boolean": "boolean", "null": "null",
                "number": "number"}[_PRIMITIVES[t]]
    if _is_typeddict(t):
        name: str = t.__name__
        return name
    origin = get_origin(t)
    if origin is Literal:
        return " | ".join(json.dumps(v) for v in get_args(t))
    if origin is list:
        inner = js_type(get_args(t)[0])
        return f"Array<{inner}>"
    members = _union_args(t)
    if members is not None:
        return "(" + " | ".join(js_type(m) for m in members) + ")"
    raise TypeError(f"no JSDoc for {t!r}")


def jsdoc_typedefs(roots: list[type]) -> list[str]:
    """`@typedef` blocks for the TypedDicts of the contract reached from `roots`, in
    dependency order, each line within 100 characters."""
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

    for td in roots:
        visit(td)
    blocks = []
    for name, td in seen.items():
        lines = ["/**"]
        if td.__doc__ and not td.__doc__.startswith(name + "("):
            lines += [f" * {line}" for line in textwrap.wrap(" ".join(td.__doc__.split()), 96)]
        lines.append(f" * @typedef {{object}} {name}")
        for key, t, req in _fields(td):
            prop = f" * @property {{{js_type(t)}}} {key if req else f'[{key}]'}"
            lines += _wrapped_type(prop)
        lines.append(" */")
        blocks.append("\n".join(lines))
    return blocks


def _wrapped_type(line: str, width: int = 100) -> list[str]:
    """A JSDoc line whose type is a long union, broken before a `|` (tsc reads a type over
    several comment lines)."""
    if len(line) <= width:
        return [line]
    out, cur = [], ""
    for i, part in enumerate(line.split(" | ")):
        piece = part if i == 0 else " | " + part
        if cur and len(cur) + len(piece) > width:
            out.append(cur)
            cur = " *  " + piece.lstrip()
        else:
            cur += piece
    return [*out, cur]


def problems(schema: dict[str, Any], name: str, value: Any, limit: int = 5) -> list[str]:
    """What is wrong with `value` against the definition `name` of `schema` ("path: what",
    at most `limit`; [] when it keeps it). The keywords the generator writes, as the page's
    validator (app/contract/validate.js) reads them; a tuple is an array, as JSON writes it."""
    out: list[str] = []
    _check(schema["$defs"], schema["$defs"][name], value, "request", out, limit)
    return out


_PY_TYPES = {"null": lambda v: v is None, "boolean": lambda v: isinstance(v, bool),
             "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
             "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
             "string": lambda v: isinstance(v, str),
             "array": lambda v: isinstance(v, list | tuple),
             "object": lambda v: isinstance(v, dict)}


def _check(defs: dict[str, Any], s: dict[str, Any], v: Any, path: str, out: list[str],
           limit: int) -> None:
    if len(out) >= limit:
        return
    if "$ref" in s:
        _check(defs, defs[s["$ref"].removeprefix("#/$defs/")], v, path, out, limit)
    elif "anyOf" in s:
        if any(not _sub(defs, m, v, path) for m in s["anyOf"]):
            return
        # one shape of the right type (a list, or null): what is wrong inside it
        fits = [m for m in s["anyOf"] if "type" not in m or _PY_TYPES[m["type"]](v)]
        if len(fits) == 1:
            _check(defs, fits[0], v, path, out, limit)
        else:
            out.append(f"{path}: matches none of the allowed shapes")
    elif "enum" in s and v not in s["enum"]:
        out.append(f"{path}: {v!r} is not one of {', '.join(map(str, s['enum']))}")
    elif "type" in s and not _PY_TYPES[s["type"]](v):
        out.append(f"{path}: expected {s['type']}")
    elif s.get("type") == "array":
        for i, item in enumerate(v):
            _check(defs, s["items"], item, f"{path}[{i}]", out, limit)
    elif s.get("type") == "object":
        out.extend(f"{path}: missing {k}" for k in s.get("required", []) if k not in v)
        for k, item in v.items():
            if k in s["properties"]:
                _check(defs, s["properties"][k], item, f"{path}.{k}", out, limit)
            elif s.get("additionalProperties") is False:
                out.append(f"{path}: unexpected {k}")


def _sub(defs: dict[str, Any], s: dict[str, Any], v: Any, path: str) -> list[str]:
    sub: list[str] = []
    _check(defs, s, v, path, sub, 1)
    return sub

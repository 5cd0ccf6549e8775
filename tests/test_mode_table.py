"""The page's modes are one table (app/modes.js), as the engine's are (modes.MODES,
jax_snippet.BODIES, request_contract.REQUESTS): the table is checked against that contract, and
no page module compares a mode to a string literal (a new mode is one entry per side)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pe_engine.explain import jax_snippet
from pe_engine.explain.modes import MODES
from pe_engine.explain.record import RECORDS
from tests.node_script import node_json

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"
TABLE = APP / "modes.js"
NAMES = "|".join(sorted(MODES))
# a mode compared to a literal, either way round; a literal list of modes searched; a switch on
# a mode (its case labels are such comparisons)
LITERAL_USES = [
    re.compile(rf"""\bmode\b\s*[!=]==?\s*["'`]({NAMES})["'`]"""),
    re.compile(rf"""["'`]({NAMES})["'`]\s*[!=]==?\s*[\w.?]*\bmode\b"""),
    re.compile(rf"""\[\s*["'`]({NAMES})["'`]\s*(,\s*["'`]\w+["'`]\s*)*\]\s*\.includes\(\s*[\w.?]*\bmode\b"""),
    re.compile(r"""\bswitch\s*\(\s*[\w.?]*\bmode\s*\)"""),
]


def _literal_uses(text: str) -> list[str]:
    return [m.group(0) for rx in LITERAL_USES for m in rx.finditer(text)]


def test_the_check_finds_each_kind_of_literal_use():
    for src in ['if (s.doc.mode === "jit") x();', "rec?.mode !== 'grad'",
                '"checkpoint" === record.mode', '["grad", "checkpoint"].includes(mode)',
                'switch (rec.mode) {']:
        assert _literal_uses(src), src
    for src in ['if (request.mode === "navigate") x();', 'e.decision === "split"', 'case "masks":']:
        assert not _literal_uses(src), src


def test_no_page_module_compares_a_mode_to_a_literal():
    found = []
    for path in sorted(APP.rglob("*.js")):
        if "vendor" in path.parts or "contract" in path.parts or path == TABLE:
            continue
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{lineno}: {u}" for u in _literal_uses(line)]
    assert not found, "look the mode up in app/modes.js instead:\n" + "\n".join(found)


@pytest.fixture(scope="module")
def table() -> list[dict]:
    return node_json("modes_table.mjs")


def test_every_page_mode_is_an_engine_mode_with_a_record_and_a_snippet(table):
    for m in table:
        assert m["name"] in MODES and m["name"] in RECORDS and m["name"] in jax_snippet.BODIES, m


def test_each_modes_request_fields_are_in_its_request_contract(table):
    schema = json.loads((APP / "contract" / "request-schema.json").read_text())
    defs = schema.get("definitions") or schema["$defs"]
    requests = json.loads((APP / "contract" / "values.js").read_text().split(
        "export const REQUEST_DEFINITIONS = ")[1].split(";")[0])
    masks_as = defs["MasksRequest"]["properties"]["as_mode"]["enum"]
    for m in table:
        fields = defs[requests[m["name"]]]["properties"]
        for key in m["kwargs"] + (m["first"] or []):
            assert key in fields, (m["name"], key)
        assert m["masks"] is None or m["masks"] in masks_as, m
        assert m["mask"] in ("known", "argnums", "none"), m
        # the prose and the embed's caption name a transform's JAX functions from the table
        assert bool(m["jax"]) == (m["mask"] != "known"), m
        assert all(name.startswith("jax.") for name in m["jax"]), m
        # a mode with a policy option sends it; a first request that leaves parts out says so
        assert (m["option"] == "policy") == ("policy" in m["kwargs"]), m
        record = RECORDS[m["name"]].__annotations__
        for field in m["later"]:
            assert field in record, (m["name"], field)

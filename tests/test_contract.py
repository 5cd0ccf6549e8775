"""The record contract (pe_engine/explain/record.py): the JSON Schema generated from it holds
for every record and error the engine writes, in Python (jsonschema) and in the page's own
validator (app/contract/validate.js, in Node), which also refuses records that break it."""
from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from pe_engine import explain
from pe_engine.explain import record, request_contract, schema
from pe_engine.explain.modes import MODES as ENGINE_MODES
from tests.fixtures.make_records import make_records
from tests.node_script import node_json_lines, run_node
from tools import page_code, write_contract

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
MODES = list(ENGINE_MODES)
BAD_SOURCE = "def f(x):\n    return x +\n"
# Python reads a held value: the masks that leave p unknown fail (the cells carry the error)
BRANCH_SOURCE = "def f(p, x):\n    if p > 0:\n        return x * 2.0\n    return x\n"


def _answer(mode: str, source: str, args: list[dict], **kw) -> dict:
    return json.loads(json.dumps(explain.as_json(explain.run(mode, source=source, args=args,
                                                             **kw))))


def _example_args(ex: dict) -> list[dict]:
    import ast
    fn = [n for n in ast.parse(ex["code"]).body if isinstance(n, ast.FunctionDef)][-1]
    return [{"known": ex.get("known", {}).get(a.arg, True),
             "value": ex.get("values", {}).get(a.arg, "1.0")} for a in fn.args.args]


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    """Every mode on every example, the stage's fixtures, and the engine's kinds of error."""
    out = {}
    for ex in EXAMPLES:
        for mode in MODES:
            kw = {"policy": ex["policy"]} if mode == "checkpoint" and "policy" in ex else {}
            out[f"{ex['id']}/{mode}"] = _answer(mode, ex["code"], _example_args(ex), **kw)
    for name, rec in json.loads(json.dumps(make_records())).items():
        del rec["_fixture"]  # the dev harness's note of where the record came from
        out[f"fixture/{name}"] = rec
    one = [{"known": True, "value": "1.0"}]
    out["error/syntax"] = _answer("split", BAD_SOURCE, one)
    out["error/value"] = _answer("split", "def f(x):\n    return x\n", [{"value": "[1,"}])
    out["error/grad-int"] = _answer("grad", "def f(x):\n    return x\n", [{"value": "1"}])
    out["error/mode"] = json.loads(json.dumps(explain.run("nope")))
    out["error/arity"] = _answer("jit", "def f(x, y):\n    return x\n", one)
    two = [{"known": True, "value": "1.0"}, {"known": False, "value": "2.0"}]
    out["split/instantiate"] = _answer("split", "def f(x, y):\n    return x * 2.0, x * y\n",
                                       two, instantiate=[True, False])
    out["error/instantiate"] = _answer("split", "def f(x, y):\n    return x\n", two,
                                       instantiate=[True, True])
    out["masks/failed-cells"] = _answer("masks", BRANCH_SOURCE, two)
    ckpt = next(ex for ex in EXAMPLES if ex["mode"] == "checkpoint")
    out["checkpoint/only-selected"] = _answer("checkpoint", ckpt["code"], _example_args(ckpt),
                                              only_selected=True)
    out["error/masks-inputs"] = _answer("masks", "def f(a, b, c, d, e, g):\n    return a\n",
                                        one * 6)
    return out


def _validator(answer: dict) -> jsonschema.Draft202012Validator:
    s = schema.record_schema()
    s.pop("anyOf")
    s["$ref"] = f"#/$defs/{schema.answer_definition(answer)}"
    return jsonschema.Draft202012Validator(s)


def test_page_contract_file_is_current():
    assert write_contract.main(["--check"]) == 0, "run: python3 tools/write_contract.py"


def test_schema_is_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(schema.record_schema())


def test_every_answer_keeps_the_contract(answers):
    modes = {a["mode"] for a in answers.values() if "mode" in a}
    assert modes == set(MODES)  # each mode's record was checked, not only errors
    for name, answer in answers.items():
        problems = [f"{list(e.absolute_path)}: {e.message[:200]}"
                    for e in _validator(answer).iter_errors(answer)]
        assert not problems, (name, problems[:5])


def test_errors_say_which_input_is_at_fault(answers):
    assert answers["error/value"]["error"]["input"] == "x"
    assert answers["error/grad-int"]["error"]["input"] == "x"
    assert answers["error/syntax"]["error"]["lineno"] == 2
    assert "input" not in answers["error/syntax"]["error"]


def test_panes_name_their_role_and_what_flows_through(answers):
    rec = answers["fixture/forwarded"]
    known, unknown = rec["panes"]
    assert (known["role"], unknown["role"]) == ("known", "unknown")
    res = rec["residuals"]
    assert [o["name"] for o in known["outputs"] if o["residual"] is not None] == \
        [r["known_name"] for r in res]
    assert [i["name"] for i in unknown["inputs"] if i["residual"] is not None] == \
        [r["unknown_name"] for r in res]
    assert [i["arg"] for i in unknown["inputs"] if i["arg"]] == \
        [a["name"] for a in rec["args"] if not a["known"]]
    grad = answers["fixture/grad"]
    tangents = [i["arg"] for i in grad["panes"][1]["inputs"] if i["arg"]]
    assert tangents == [a["name"] + record.TANGENT_MARK for a in grad["args"]]


def test_spans_point_at_each_variable_in_the_text(answers):
    for name, answer in answers.items():
        for key in ("program", "known", "unknown"):
            prog = answer.get(key)
            if not prog:
                continue
            if prog["invars"] or prog["constvars"]:
                assert prog["spans"], (name, key)
            for sp in prog["spans"]:
                assert prog["text"][sp["start"]:sp["end"]] == sp["name"], (name, key, sp)
            binders = {v["name"] for v in prog["invars"] + prog["constvars"]}
            assert binders <= {sp["name"] for sp in prog["spans"]}


def _broken(answer: dict) -> list[dict]:
    """Records that break the contract in one place each."""
    out = []
    a = copy.deepcopy(answer)
    del a["panes"][0]["role"]
    out.append(a)
    a = copy.deepcopy(answer)
    a["residuals"][0]["bytes"] = "4"
    out.append(a)
    a = copy.deepcopy(answer)
    a["events"][0]["side"] = "sideways"
    out.append(a)
    a = copy.deepcopy(answer)
    a["program"]["invars"] = ["a"]
    out.append(a)
    a = copy.deepcopy(answer)
    a["surprise"] = True
    out.append(a)
    a = copy.deepcopy(answer)
    a["mode"] = "teleport"
    out.append(a)
    return out


def _page_problems(answers: list[dict], *argv: str) -> list[list[str]]:
    """The page's validator's problems with each answer (tests/js/contract_problems.mjs)."""
    return node_json_lines("contract_problems.mjs", answers, *argv)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_policy_answers_keep_the_contract_and_the_page_checks_them(answers):
    first = answers["checkpoint/only-selected"]
    assert first["pending_policies"] and len(first["policies"]) == 1
    ckpt = next(ex for ex in EXAMPLES if ex["mode"] == "checkpoint")
    good = [json.loads(json.dumps(explain.checkpoint_policy(
        source=ckpt["code"], args=_example_args(ckpt), policy=p)))
        for p in first["pending_policies"][:2]]
    good.append(json.loads(json.dumps(explain.checkpoint_policy(
        source=BAD_SOURCE, args=[{"known": False, "value": "1.0"}]))))
    assert "error" in good[-1]
    s = schema.record_schema()
    for answer in good:
        name = "ErrorRecord" if "error" in answer else "PolicyAnswer"
        v = jsonschema.Draft202012Validator({"$defs": s["$defs"], "$ref": f"#/$defs/{name}"})
        assert not list(v.iter_errors(answer)), name
    no_memory = copy.deepcopy(good[0])
    del no_memory["memory"]
    bad_bytes = copy.deepcopy(good[0])
    bad_bytes["policy"]["residual_bytes"] = "4"
    bad = [no_memory, bad_bytes, first]  # a record is no policy answer
    results = _page_problems(good + bad, "policy")
    assert results[:len(good)] == [[]] * len(good)
    assert all(results[len(good):]), "a broken policy answer passed the page's validator"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_validator_agrees(answers):
    good = list(answers.values())
    bad = _broken(answers["fixture/sin_cos"])
    results = _page_problems(good + bad)
    assert len(results) == len(good) + len(bad)
    for name, problems in zip(answers, results):
        assert problems == [], (name, problems)
    for problems in results[len(good):]:
        assert problems, "a broken record passed the page's validator"
    # and Python's agrees on the broken ones
    for a in bad:
        if a.get("mode") in record.RECORDS:
            assert list(_validator(a).iter_errors(a))


# ---------------------------------------------------------------------------------------
# the request contract (pe_engine/explain/request_contract.py)

def _request_validator(definition: str) -> jsonschema.Draft202012Validator:
    s = schema.request_schema()
    return jsonschema.Draft202012Validator({"$defs": s["$defs"], "$ref": f"#/$defs/{definition}"})


def _definition(mode: str) -> str:
    return "PolicyRequest" if mode == "policy" else request_contract.REQUESTS[mode].__name__


def test_every_mode_declares_its_request_and_its_record():
    assert set(request_contract.REQUESTS) == set(explain.MODES) == set(record.RECORDS)
    jsonschema.Draft202012Validator.check_schema(schema.request_schema())


@pytest.fixture(scope="module")
def built_requests() -> list[dict]:
    """Every kind of request the page's code builds (tests/js/built_requests.mjs), from the
    engine's signatures of the sources the page opens with, as the build hands them over."""
    sigs = json.dumps({"signatures": page_code.signatures(page_code.opening_sources())})
    return [json.loads(line) for line in run_node("built_requests.mjs", stdin=sigs).splitlines()]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_builds_requests_that_keep_the_contract(built_requests):
    kinds = {r["where"].split("/")[-1].split("[")[0] for r in built_requests}
    assert {"first", "whole", "instantiate", "masks", "ahead", "opening"} <= kinds | {"opening"}
    assert {r["mode"] for r in built_requests} == {*explain.MODES, "policy"}
    assert all(r["kwargs"]["args"] for r in built_requests)  # each function's inputs, read
    for r in built_requests:
        problems = [e.message for e in _request_validator(_definition(r["mode"])).iter_errors(
            r["kwargs"])]
        assert not problems, (r["where"], problems)
        # the engine's own check agrees, and the page's validator too (below)
        assert schema.problems(schema.request_schema(), _definition(r["mode"]), r["kwargs"]) == []
    assert _page_problems(built_requests, "request") == [[]] * len(built_requests)


def _broken_requests(req: dict) -> list[tuple[str, dict]]:
    """(the field at fault, a request that breaks the contract there), one each."""
    out = []
    for path, change in [("args[0].known", lambda k: k["args"][0].update(known="yes")),
                         ("args[0].value", lambda k: k["args"][0].update(value=2.0)),
                         ("args", lambda k: k.update(args={"x": {}})),
                         ("source", lambda k: k.pop("source")),
                         ("open_call", lambda k: k.update(open_call=False)),
                         ("instantiate[0]", lambda k: k.update(instantiate=[1]))]:
        kwargs = copy.deepcopy(req)
        change(kwargs)
        out.append((path, kwargs))
    return out


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_request_that_breaks_the_contract_is_refused_naming_the_field():
    ex = EXAMPLES[0]
    good = {"source": ex["code"], "args": _example_args(ex)}
    broken = _broken_requests(good)
    page = _page_problems([{"mode": "split", "kwargs": k} for _, k in broken], "request")
    for (field, kwargs), page_problems in zip(broken, page):
        assert list(_request_validator("SplitRequest").iter_errors(kwargs)), field
        answer = explain.run("split", **kwargs)
        assert answer["error"]["type"] == "request", (field, answer)
        assert field in answer["error"]["message"], (field, answer["error"]["message"])
        assert page_problems and field in page_problems[0], (field, page_problems)
    bad_policy = explain.checkpoint_policy(**good, policy="sometimes_saveable")
    assert bad_policy["error"]["type"] == "request"
    assert "request.policy" in bad_policy["error"]["message"]
    assert "error" not in explain.run("split", **good)


# ---------------------------------------------------------------------------------------
# the signature: the engine reads the function a source's requests trace (the page parses
# no Python)

SIGNATURE_CASES = {
    "last def": ("def g(a):\n    return a\n\ndef f(x, y=(1, 2)):  # see (a)\n    return x\n",
                 {"name": "f", "params": ["x", "y"], "lineno": 4}),
    "positional-only": ("def f(a, /, b):\n    return a\n", {"name": "f", "params": ["a", "b"],
                                                            "lineno": 1}),
    "comment in the list": ("def f(x,  # the input\n      y):\n    return x\n",
                            {"name": "f", "params": ["x", "y"], "lineno": 1}),
}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_signature_answers_keep_the_contract_and_the_page_checks_them():
    good = [explain.signature(source=src) for src, _ in SIGNATURE_CASES.values()]
    assert good == [want for _, want in SIGNATURE_CASES.values()]
    errors = [explain.signature(source=BAD_SOURCE), explain.signature(source="x = 1\n"),
              explain.signature(source="def f(*xs):\n    return xs\n"),
              explain.signature(source="import os\ndef f(x):\n    return x\n")]
    assert [e["error"]["lineno"] for e in errors] == [2, 1, 1, 1]
    assert explain.signature(source=1)["error"]["type"] == "request"
    s = schema.record_schema()
    for answer in good + errors:
        name = "ErrorRecord" if "error" in answer else "SignatureAnswer"
        v = jsonschema.Draft202012Validator({"$defs": s["$defs"], "$ref": f"#/$defs/{name}"})
        assert not list(v.iter_errors(answer)), answer
    bad = [{**good[0], "params": "x, y"}, {**good[0], "lineno": None}, {"name": "f"}]
    results = _page_problems(good + errors + bad, "signature")
    assert results[:len(good) + len(errors)] == [[]] * (len(good) + len(errors))
    assert all(results[len(good) + len(errors):]), "a broken signature passed the page's check"


def test_the_page_parses_no_python():
    """No page module reads a `def` (the engine's signature is the one reading of it)."""
    for path in (ROOT / "app").rglob("*.js"):
        if "vendor" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        assert "parseSignature" not in text and "def\\s" not in text, path.relative_to(ROOT)

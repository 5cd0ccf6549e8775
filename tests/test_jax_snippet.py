""""Copy as JAX" prints the page's programs: every example of the page's menu, in every mode,
answered as the page asks (tools/precompute.page_requests builds the request with the page's
own code); the record's `jax_snippet` is run by real JAX in a subprocess and each program it
prints after `# pane: <id>` must be that pane's text, exactly."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pe_engine import explain
from pe_engine.explain.jaxcheck import missing_panes, printed_panes
from pe_engine.explain.page_state import PAGE_MODES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from precompute import page_requests  # noqa: E402 - the page's request, built by the page's code

pytest.importorskip("jax")

EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
MODES = PAGE_MODES  # every tab of the page

# Panes JAX cannot make (README "Differences from JAX"): (example id, mode) -> pane ids. The
# backward pane of a scan whose ys include a carry is the engine's transpose: JAX's scan
# transpose cannot turn that linear program around. The snippet does not crash there: it
# prints the panes JAX makes and says why in a `# no pane:` line.
GAPS = {("grad-scan", "grad"): {"backward"}}
# Panes that differ from JAX's, not documented yet: (example id, mode) -> reason (strict xfail).
DIFFERS = {
    ("grad-scan", "checkpoint"): "under nothing_saveable JAX's forward pane computes the scan's "
                                 "output in a closed_call and its linear pane drops the carry "
                                 "outputs; the engine's forward is empty and its remat returns "
                                 "both (open: the engine's checkpointed scan)",
}

# Runs every snippet in one JAX process (importing JAX once), each in a namespace of its
# own, and answers {case: {"out": stdout, "error": str | None}} as JSON.
RUNNER = """
import contextlib, io, json, sys, traceback
cases = json.load(sys.stdin)
out = {}
for name, code in cases.items():
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(code, name, "exec"), {"__name__": "__main__"})
        out[name] = {"out": buf.getvalue(), "error": None}
    except Exception:
        out[name] = {"out": buf.getvalue(), "error": traceback.format_exc(limit=3)[-1500:]}
print(json.dumps(out))
"""


def _states() -> list[tuple[str, dict]]:
    return [(f"{ex['id']}/{mode}", {**ex, "mode": mode}) for ex in EXAMPLES for mode in MODES]


@pytest.fixture(scope="module")
def answers() -> dict[str, tuple[dict, dict]]:
    """case -> (record, what the snippet printed or raised under real JAX)."""
    names, states = zip(*_states())
    records = {}
    for name, req in zip(names, page_requests(list(states))):
        rec = explain.run(req["mode"], **req["kwargs"])
        assert "error" not in rec, (name, rec.get("error"))
        records[name] = rec
    ran = _run_in_jax({n: r["jax_snippet"] for n, r in records.items()})
    return {n: (records[n], ran[n]) for n in names}


def _run_in_jax(snippets: dict[str, str]) -> dict[str, dict]:
    proc = subprocess.run([sys.executable, "-c", RUNNER], cwd="/tmp", capture_output=True,
                          text=True, timeout=600, input=json.dumps(snippets))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _case(name: str) -> object:
    reason = DIFFERS.get(tuple(name.split("/")))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", [_case(n) for n, _ in _states()])
def test_snippet_prints_the_pages_programs(answers, name):
    rec, ran = answers[name]
    assert ran["error"] is None, ran["error"]
    gaps = GAPS.get(tuple(name.split("/")), set())
    shown = {p["id"]: p["program"]["text"] for p in rec["panes"] if p["id"] not in gaps}
    assert printed_panes(ran["out"]) == shown
    missing = missing_panes(ran["out"])
    assert set(missing) == gaps and all(why.strip() for why in missing.values()), missing


def test_snippet_imports_once(answers):
    for rec, _ in answers.values():
        lines = rec["jax_snippet"].splitlines()
        imports = [ln for ln in lines if ln.startswith(("import ", "from "))]
        assert len(imports) == len(set(imports)), imports
        body = lines[len(imports):]
        assert not any(ln.startswith(("import ", "from ")) for ln in body), body


def test_masks_and_instantiate_snippets_print_what_the_page_shows():
    """The Masks view's snippet prints each mask's counts as its cells show them; a split with
    every output instantiated prints its panes."""
    splits = [(ex["id"], req["kwargs"]) for ex, req in zip(EXAMPLES, page_requests(
        [{**ex, "mode": "split"} for ex in EXAMPLES]))]
    records, snippets = {}, {}
    for ex_id, kwargs in splits:
        masks = explain.run("masks", **kwargs)
        assert "error" not in masks, (ex_id, masks.get("error"))
        outputs = len(explain.run("split", **kwargs)["instantiate"])
        forced = explain.run("split", **kwargs, instantiate=[True] * outputs)
        assert "error" not in forced, (ex_id, forced.get("error"))
        for case, rec in ((f"{ex_id}/masks", masks), (f"{ex_id}/instantiate", forced)):
            records[case], snippets[case] = rec, rec["jax_snippet"]
    for case, ran in _run_in_jax(snippets).items():
        rec = records[case]
        assert ran["error"] is None, (case, ran["error"])
        if case.endswith("/masks"):
            rows = [line.split() for line in ran["out"].splitlines()[1:]]
            cells = [[c["mask"], *map(str, (c["known_eqns"], c["unknown_eqns"], c["residuals"],
                                            c["residual_bytes"]))] for c in rec["masks"]]
            assert rows == cells, case
        else:
            shown = {p["id"]: p["program"]["text"] for p in rec["panes"]}
            assert printed_panes(ran["out"]) == shown, case


def test_the_users_own_names_win():
    """User code that binds `np` to jax.numpy still runs as written: the snippet's imports
    come first, the user's after them."""
    source = "import jax\nimport jax.numpy as np\n\ndef f(x, y):\n    return np.sin(x) * y\n"
    args = [{"value": "[1.0, 2.0]", "known": True}, {"value": "[0.5, 0.25]", "known": False}]
    for mode in MODES:
        rec = explain.run(mode, source=source, args=args)
        proc = subprocess.run([sys.executable, "-c", rec["jax_snippet"]], cwd="/tmp",
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert printed_panes(proc.stdout) == {p["id"]: p["program"]["text"] for p in rec["panes"]}


def test_masks_snippets_asked_as_grad_or_checkpoint_print_those_cells():
    """Asked as grad or checkpoint, the Masks view's snippet linearizes each mask in JAX and
    prints its counts as the cells show them (a mask that differentiates nothing says so)."""
    ex, = [ex for ex in EXAMPLES if ex["id"] == "split-mlp-known-weights"]
    kwargs = page_requests([{**ex, "mode": "split"}])[0]["kwargs"]
    records, snippets = {}, {}
    for as_mode, extra in (("grad", {}), ("checkpoint", {"policy": "dots_saveable"}),
                           ("checkpoint", {"policy": "save_only_these_names"})):
        case = f"{as_mode}/{extra.get('policy')}"
        rec = explain.run("masks", **kwargs, as_mode=as_mode, **extra)
        assert "error" not in rec, (case, rec.get("error"))
        records[case], snippets[case] = rec, rec["jax_snippet"]
    for case, ran in _run_in_jax(snippets).items():
        assert ran["error"] is None, (case, ran["error"])
        rows = [line.split() for line in ran["out"].splitlines()[1:]]
        cells = [[c["mask"], *map(str, (c["known_eqns"], c["unknown_eqns"], c["residuals"],
                                        c["residual_bytes"]))] if c["error"] is None
                 else [c["mask"], "error:", "nothing", "to", "differentiate"]
                 for c in records[case]["masks"]]
        assert rows == cells, case

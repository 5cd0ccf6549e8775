"""The command line (`python -m pe_engine split|link FILE.py ...`, pe_engine/explain/cli.py):
for every example of the page's menu, `split` prints the record the page is answered for that
state (the command line builds its request in Python, page_state.py: it is the request the
page's own code builds, run in Node by tools/page_code.py) and `--json` keeps the record
contract; a `link` opens the page in that state (decoded by the page's own decoder, in Node);
bad files and options get one line of message and a non-zero exit."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from pe_engine.explain import as_json, cli, run, schema, signature
from pe_engine.explain.page_state import PAGE_MODES, page_request
from pe_engine.explain.record import DEFAULT_POLICY
from tools.page_code import page_requests

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _options(ex: dict) -> list[str]:
    """The command line that describes an example's page state."""
    known = ",".join(p for p, k in ex.get("known", {}).items() if k)
    opts = ["--known", known, "--mode", ex["mode"]]
    opts += [f"--value={p}={v}" for p, v in ex.get("values", {}).items()]
    if "policy" in ex:
        opts += ["--policy", ex["policy"]]
    if ex.get("folding"):
        opts.append("--folding")
    return opts


def _page_record(ex: dict) -> dict:
    """What the page is answered for the example (its request built by the page's code)."""
    req, = page_requests([{**ex, "known": {p: bool(k) for p, k in ex.get("known", {}).items()}}])
    return as_json(run(req["mode"], **req["kwargs"]))


@pytest.fixture(scope="module")
def example_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("examples")
    out = {}
    for ex in EXAMPLES:
        out[ex["id"]] = folder / f"{ex['id']}.py"
        out[ex["id"]].write_text(ex["code"], encoding="utf-8")
    return out


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_split_prints_the_panes_and_residuals_the_page_shows(ex, example_files, capsys):
    code, out, err = _cli(capsys, "split", str(example_files[ex["id"]]), *_options(ex))
    assert (code, err) == (0, "")
    rec = _page_record(ex)
    for pane in rec["panes"]:
        assert f"{pane['title']}\n{pane['program']['text']}\n" in out
    for r in rec.get("residuals", []):
        assert f"r{r['k']}  {r['known_name']} → {r['unknown_name']}" in out
    for r in rec.get("saved_residuals", []):
        assert f"  {r['aval']} {r['description']}\n" in out


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_json_is_the_page_record_and_keeps_the_contract(ex, example_files, capsys):
    code, out, _ = _cli(capsys, "split", str(example_files[ex["id"]]), *_options(ex), "--json")
    assert code == 0
    rec = json.loads(out)
    assert rec == json.loads(json.dumps(_page_record(ex)))
    s = schema.record_schema()
    s.pop("anyOf")
    s["$ref"] = f"#/$defs/{schema.answer_definition(rec)}"
    assert rec["mode"] == ex["mode"]
    jsonschema.Draft202012Validator(s).validate(rec)


def _decode(hashes: list[str]) -> list[dict]:
    """The page's own decoder (app/state.js decodePermalink, in Node)."""
    lines = "".join(json.dumps({"op": "decode", "hash": h}) + "\n" for h in hashes)
    proc = subprocess.run(["node", str(ROOT / "tools" / "permalink_decode.mjs")], input=lines,
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_links_open_the_page_in_each_examples_state(example_files, capsys):
    urls = []
    for ex in EXAMPLES:
        code, out, err = _cli(capsys, "link", str(example_files[ex["id"]]), *_options(ex))
        assert (code, err) == (0, "")
        assert out.startswith("http://127.0.0.1:8000/#v1.") and out.endswith("\n")
        urls.append(out.strip())
    for ex, answer in zip(EXAMPLES, _decode([u.split("#", 1)[1] for u in urls])):
        assert answer["ok"], answer
        params = list(ex.get("values", {}))
        assert answer["state"] == {
            "code": ex["code"], "mode": ex["mode"],
            "known": {p: bool(ex.get("known", {}).get(p, False)) for p in params},
            "values": ex.get("values", {}), "policy": ex.get("policy", DEFAULT_POLICY),
            "folding": bool(ex.get("folding")), "step": None, "instantiate": []}, ex["id"]


def test_link_keeps_every_option_and_takes_a_base_url(example_files, capsys):
    file = str(example_files["split-sin"])
    code, out, _ = _cli(capsys, "link", file, "--known", "y", "--mode", "grad", "--policy",
                        "dots_saveable", "--folding", "--value", "x=[0.5, 1.0]",
                        "--base-url", "https://example.org/pe/#old")
    assert code == 0 and out.startswith("https://example.org/pe/#v1.")
    answer, = _decode([out.strip().split("#", 1)[1]])
    state = answer["state"]
    assert (state["known"], state["values"]) == ({"x": False, "y": True}, {"x": "[0.5, 1.0]"})
    assert (state["mode"], state["policy"], state["folding"]) == ("grad", "dots_saveable", True)


def test_python_dash_m_runs_it(example_files, tmp_path):
    """The package's entry point, as a user runs it: this checkout's engine, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "pe_engine", "split",
                           str(example_files["split-sin"]), "--known", "x"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("f, split: x known, y unknown\n\nKnown program\n{ lambda")


def test_the_command_lines_requests_are_the_pages():
    """page_state.page_request (Python, from the contract) and the page's requestFor (its own
    code, in Node) build the same request, key and all, for each example in each mode, with
    outputs forced and inputs the state does not name."""
    states = []
    for ex in EXAMPLES:
        base = {"code": ex["code"], "known": dict(ex.get("known", {})),
                "values": dict(ex.get("values", {})), "policy": ex.get("policy", DEFAULT_POLICY),
                "folding": bool(ex.get("folding"))}
        states += [{**base, "mode": mode} for mode in PAGE_MODES]
        states.append({**base, "mode": "split", "known": {}, "values": {}, "instantiate": [True]})
    for state, page in zip(states, page_requests(states)):
        params = signature(source=state["code"])["params"]
        mode, kwargs = page_request(state, params)
        assert (mode, kwargs) == (page["mode"], page["kwargs"]), state
        key = json.dumps([mode, kwargs], ensure_ascii=False, separators=(",", ":"))
        assert key == page["key"]


def test_the_engine_needs_no_node_and_reads_nothing_of_the_page(example_files, tmp_path):
    """`python -m pe_engine` builds its requests and links in Python (page_state.py): no node
    on the PATH, and the package alone, copied away from the page's files."""
    shutil.copytree(ROOT / "pe_engine", tmp_path / "pkg" / "pe_engine")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "pkg"), "PATH": str(tmp_path)}
    for command in (["split", "--known", "x"], ["link"]):
        proc = subprocess.run([sys.executable, "-m", "pe_engine", command[0],
                               str(example_files["split-sin"]), *command[1:]], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "pe_engine/__init__.py" not in proc.stderr
    assert proc.stdout.startswith("http://127.0.0.1:8000/#v1.")
    for path in (ROOT / "pe_engine").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "subprocess" not in text and '"app"' not in text, path.relative_to(ROOT)


SIN = "import jax.numpy as jnp\n\n\ndef f(x, y):\n    return jnp.sin(x) * y\n"


@pytest.mark.parametrize("files,argv,message", [
    ({}, ["split", "missing.py"], "cannot read missing.py: No such file or directory"),
    ({"bin.py": b"\xff\xfe"}, ["split", "bin.py"], "bin.py is not UTF-8 text"),
    ({"nodef.py": "x = 1\n"}, ["link", "nodef.py"],
     "nodef.py defines no function (the page traces the last top-level def)"),
    ({"f.py": SIN}, ["split", "f.py", "--known", "x,z"],
     "--known: f has no input 'z' (its inputs: x, y)"),
    ({"f.py": SIN}, ["split", "f.py", "--value", "y"],
     "--value wants NAME=VALUE (e.g. x=[0.5,1.0]), got 'y'"),
    ({"f.py": SIN}, ["split", "f.py", "--value", "w=2.0"],
     "--value: f has no input 'w' (its inputs: x, y)"),
    ({"f.py": SIN}, ["split", "f.py", "--value", "x=1.0", "--value", "x=2.0"],
     "--value gives x twice"),
    ({"f.py": SIN}, ["split", "f.py", "--mode", "interpreters"],
     "argument --mode: invalid choice: 'interpreters' (choose from "
     + ", ".join(repr(m) for m in PAGE_MODES) + ")"),
    ({"f.py": SIN}, ["split", "f.py", "--json", "--check-jax"],
     "argument --check-jax: not allowed with argument --json"),
    ({"f.py": SIN}, ["link", "f.py", "--json"], "unrecognized arguments: --json"),
    ({"f.py": SIN}, ["splat", "f.py"],
     "argument command: invalid choice: 'splat' (choose from 'split', 'link')"),
    ({"f.py": "def f(x):\n    return x\n#" + "x" * 20_000}, ["link", "f.py"],
     "the page would not open this state: the code in the link is over 20000 characters"),
])
def test_bad_files_and_options_get_one_line_and_status_2(files, argv, message, tmp_path,
                                                         monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name, content in files.items():
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out, err = _cli(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == f"python -m pe_engine: error: {message}\n"


@pytest.mark.parametrize("source,argv,message", [
    ("def f(x):\n    return x +\n", [], "f.py:2: SyntaxError: invalid syntax"),
    (SIN, ["--value", "y=[1,"], "f.py: input y: cannot parse '[1,': '[' was never closed"),
    ("import jax.numpy as jnp\n\ndef f(p, x):\n    if p > 0:\n        return x\n    return -x\n",
     ["--known", "x"], "f.py:4: TracerBoolConversionError: Attempted boolean conversion of "
     "traced array with shape bool[]."),
])
def test_the_engines_errors_are_located_in_the_file_status_1(source, argv, message, tmp_path,
                                                            monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.py").write_text(source)
    code, out, err = _cli(capsys, "split", "f.py", *argv)
    assert (code, out) == (1, "")
    assert err.startswith(message + ("\n" if "Tracer" not in message else ""))
    code, out, _ = _cli(capsys, "split", "f.py", *argv, "--json")
    assert code == 1 and "error" in json.loads(out)


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_check_jax_agrees_on_every_example(ex, example_files, capsys):
    pytest.importorskip("jax")
    code, out, err = _cli(capsys, "split", str(example_files[ex["id"]]), *_options(ex),
                          "--check-jax")
    assert (code, err) == (0, ""), out
    assert out.splitlines()[-1].startswith("agrees: every program JAX ")
    titles = [p["title"] for p in _page_record(ex)["panes"]]
    said = [line.split(":")[0] for line in out.splitlines()[:-1]]
    assert said == titles
    if ex["id"] == "grad-scan":  # README, "Differences from JAX": JAX cannot transpose it
        assert "Backward (transposed): JAX makes no such program (ValueError: " in out
    else:
        assert all(line.endswith(": same as JAX") for line in out.splitlines()[:-1])


def test_check_jax_shows_a_difference_and_exits_1(tmp_path, monkeypatch, capsys):
    pytest.importorskip("jax")
    from pe_engine.explain import jaxcheck

    (tmp_path / "f.py").write_text(SIN)
    real = jaxcheck.printed_panes  # JAX, made to print another unknown program
    monkeypatch.setattr(jaxcheck, "printed_panes",
                        lambda out: {**real(out), "unknown": "{ other }"})
    code, out, err = _cli(capsys, "split", str(tmp_path / "f.py"), "--known", "x",
                          "--check-jax")
    assert (code, err) == (1, "")
    assert "Known program: same as JAX\nUnknown program: differs from JAX\n" in out
    assert "  -{ other }\n" in out and out.splitlines()[-1].startswith("DIFFERS: ")


def test_check_jax_where_jax_makes_no_program_is_no_agreement(tmp_path, capsys):
    pytest.importorskip("jax")
    (tmp_path / "f.py").write_text("def f(p, x):\n    if p > 0:\n        return x * 2.0\n"
                                   "    return x\n")
    code, out, _ = _cli(capsys, "split", str(tmp_path / "f.py"), "--known", "p",
                        "--check-jax")
    assert code == 1
    assert "Known program: JAX makes no such program (TracerBoolConversionError: " in out
    assert out.splitlines()[-1].startswith("no comparison: JAX ")


def test_check_jax_without_jax_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "jax", None)  # import jax raises ImportError
    (tmp_path / "f.py").write_text(SIN)
    code, out, err = _cli(capsys, "split", str(tmp_path / "f.py"), "--check-jax")
    assert (code, out) == (1, "")
    assert err.startswith("python -m pe_engine: --check-jax needs JAX (pip install "
                          "'jax==0.10.2'): ")
    assert err.count("\n") == 1

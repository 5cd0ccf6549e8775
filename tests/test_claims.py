"""Every claim the explainer's sections (index.html, app/sections/) make about JAX's behaviour,
checked against the engine and, where it is installed, against real JAX. The demos' own
functions are read from the page's requests (tools/page_requests.mjs), never copied here."""
from __future__ import annotations

import html
import inspect
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import precompute  # noqa: E402

from pe_engine import explain  # noqa: E402
from pe_engine import numpy as pjnp  # noqa: E402
from pe_engine.api import make_jaxpr  # noqa: E402
from pe_engine.core import ShapedArray, Var  # noqa: E402
from pe_engine.staging import const_fold_rules  # noqa: E402

INDEX = (ROOT / "index.html").read_text()
SECTIONS = ROOT / "app" / "sections"
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())

RULE_COMMENT = (
    "# By default, if all the input tracers are known, then bind the primitive\n"
    "# and consider all outputs known. Otherwise, stage the application into the\n"
    "# jaxpr and consider all outputs unknown.")


def page_text() -> str:
    """The sections' prose as text (tags dropped, entities decoded, spaces collapsed)."""
    start = INDEX.index('<article class="explainer"')
    body = INDEX[start:INDEX.index("</article>", start)]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", body)))


def run(mode: str, **kw) -> dict:
    rec = explain.as_json(explain.run(mode, **kw))
    assert "error" not in rec, rec.get("error")
    return rec


def arg(value: str, known: bool = True) -> dict:
    return {"known": known, "value": value}


# --------------------------------------------------------------------------- demo functions


def _params(code: str) -> list[str]:
    import ast
    fn = [n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)][-1]
    return [a.arg for a in fn.args.args]


def _opening(mode: str) -> dict:
    """The kwargs of the page's opening request of `mode` for a demo's own function."""
    main = precompute.opening_requests()[0]["kwargs"]["source"]
    return next(r["kwargs"] for r in precompute.opening_requests()
                if r["mode"] == mode and r["kwargs"]["source"] != main)


CKPT = _opening("checkpoint")
CKPT_CODE = CKPT["source"]
FOLD_CODE = _opening("jit")["source"]


# --------------------------------------------------------------------------- 1 the rule


def test_rule_comment_is_quoted_verbatim_and_is_the_engines():
    m = re.search(r'data-testid="rule-quote".*?<pre>(.*?)</pre>', INDEX, re.S)
    assert m and html.unescape(m.group(1)) == RULE_COMMENT
    src = (ROOT / "pe_engine" / "partial_eval.py").read_text()
    quoted = "\n".join("        " + line for line in RULE_COMMENT.splitlines())
    assert quoted in src  # the engine's default_process_primitive carries the same comment
    assert ("cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/jax/_src/interpreters/partial_eval.py"
            "#L178-L189") in INDEX


def test_rule_comment_in_jax():
    pytest.importorskip("jax")
    from jax._src.interpreters import partial_eval as pe
    src = inspect.getsource(pe.JaxprTrace.default_process_primitive)
    assert "\n".join("    " + line for line in RULE_COMMENT.splitlines()) in src


SPLIT_SRC = ("import jax.numpy as jnp\n\ndef f(x, y):\n    a = jnp.sin(x)\n    b = a * y\n"
             "    return jnp.cos(b) + a\n")


def test_rule_known_runs_now_unknown_spreads():
    rec = run("split", source=SPLIT_SRC, args=[arg("1.0"), arg("2.0", False)])
    sides = [e["side"] for e in rec["events"]]
    assert sides == ["known", "unknown", "unknown", "unknown"]
    assert rec["events"][0]["value"] == ["0.8415"]  # executed during the trace
    assert rec["known"]["eqns"] == ["b:f32[] = sin a"]


def test_rule_in_jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.interpreters import partial_eval as pe

    def f(x, y):
        a = jnp.sin(x)
        b = a * y
        return jnp.cos(b) + a
    closed = jax.make_jaxpr(f)(1.0, 2.0)
    known, unknown, out_uk, res = pe.partial_eval_jaxpr_nounits(closed, [False, True], False)
    assert [e.primitive.name for e in known.jaxpr.eqns] == ["sin"]
    assert [e.primitive.name for e in unknown.jaxpr.eqns] == ["mul", "cos", "add"]
    assert out_uk == [True]


# --------------------------------------------------------------------------- 2 residuals


DOC_SRC = "import jax.numpy as jnp\n\ndef f(a, b):\n    return jnp.cos(a), -jnp.sin(a) * b\n"


def test_residuals_after_known_outputs_and_leading_unknown_inputs_engine():
    rec = run("split", source=DOC_SRC, args=[arg("1.0"), arg("2.0", False)])
    assert rec["known"]["text"].endswith("in (b, d) }")  # cos a, then the residual
    assert rec["unknown"]["text"] == "{ lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b in (c,) }"
    (r,) = rec["residuals"]
    assert (r["known_name"], r["unknown_name"]) == ("d", "a")


def test_residuals_convention_in_jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.interpreters import partial_eval as pe
    closed = jax.make_jaxpr(lambda a, b: (jnp.cos(a), -jnp.sin(a) * b))(1.0, 2.0)
    known, unknown, out_uk, res = pe.partial_eval_jaxpr_nounits(closed, [False, True], False)
    assert len(res) == 1 and out_uk == [False, True]
    assert str(unknown.jaxpr) == "{ lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b in (c,) }"
    assert [str(v) for v in known.jaxpr.outvars] == ["b", "d"] or len(known.jaxpr.outvars) == 2
    assert known.jaxpr.outvars[-1] is known.jaxpr.eqns[-1].outvars[0]  # residual last


INPUT_RES_SRC = "import jax.numpy as jnp\n\ndef f(a, b):\n    return jnp.sin(a) * b, a * b\n"


def test_known_input_read_by_unknown_side_is_a_residual():
    rec = run("split", source=INPUT_RES_SRC, args=[arg("1.0"), arg("2.0", False)])
    assert [r["from_input"] for r in rec["residuals"]] == [None, "a"]
    assert rec["known"]["text"] == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b, a) }"
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.interpreters import partial_eval as pe
    closed = jax.make_jaxpr(lambda a, b: (jnp.sin(a) * b, a * b))(1.0, 2.0)
    known, unknown, _, res = pe.partial_eval_jaxpr_nounits(closed, [False, True], False)
    assert str(known.jaxpr) == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b, a) }"
    assert len(unknown.jaxpr.invars) == 3  # two residuals, then b


MLP = next(e for e in EXAMPLES["examples"] if e["id"] == "grad-mlp")


def _mlp_args(scale: int = 1):
    """Every input differentiated (grad's argnums are the inputs marked unknown)."""
    shapes = {"W1": (4, 3), "W2": (2, 4), "x": (3,)}
    return [arg(MLP["values"][p] if scale == 1
                else f"full({tuple(d * scale for d in shapes[p])}, 0.5)", known=False)
            for p in ("W1", "W2", "x")]


def test_grad_residuals_are_the_saved_activations_and_grow_with_shape():
    small = run("grad", source=MLP["code"], args=_mlp_args())
    big = run("grad", source=MLP["code"], args=_mlp_args(4))
    assert small["residual_bytes"] == small["saved_bytes"] == 132
    assert big["residual_bytes"] > small["residual_bytes"] * 10
    assert len(big["residuals"]) == len(small["residuals"])
    assert {r["from_input"] for r in small["residuals"]} >= {"W1", "W2", "x"}


def test_grad_saved_residuals_match_jax():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.ad_checkpoint import saved_residuals

    def loss(W1, W2, x):
        h = jnp.tanh(jnp.dot(W1, x))
        y = jnp.dot(W2, h)
        return jnp.sum(y * y)
    vals = [np.asarray(json.loads(MLP["values"][p]), np.float32) for p in ("W1", "W2", "x")]
    theirs = sorted(a.str_short(short_dtypes=True) for a, _ in saved_residuals(loss, *vals))
    rec = run("grad", source=MLP["code"], args=_mlp_args())
    ours = sorted(r["aval"] for r in rec["saved_residuals"])
    assert ours == theirs


# --------------------------------------------------------------------------- 3 checkpoint


def _ckpt_record() -> dict:
    return run("checkpoint", **CKPT)


def test_checkpoint_policies_trade_bytes_for_recomputation_engine():
    pols = {p["name"]: p for p in _ckpt_record()["policies"]}
    assert pols["everything_saveable"]["residual_bytes"] == pols["no checkpoint"]["residual_bytes"]
    assert pols["everything_saveable"]["recomputed"] == 0
    nothing = pols["nothing_saveable"]
    assert all(s["description"].startswith("from the argument") for s in nothing["saved_residuals"])
    assert nothing["recomputed"] > pols["dots_saveable"]["recomputed"] > 0
    assert all("dot_general" in s["description"] or s["description"].startswith("from the argument")
               for s in pols["dots_saveable"]["saved_residuals"])
    named = pols["save_only_these_names"]["saved_residuals"]
    assert any("named 'h'" in s["description"] for s in named)
    b = {k: p["residual_bytes"] for k, p in pols.items()}
    assert b["nothing_saveable"] < b["dots_saveable"] < b["everything_saveable"]


def test_checkpoint_policies_match_jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.ad_checkpoint import saved_residuals
    from jax.ad_checkpoint import checkpoint_name

    def loss(W1, W2, x):
        h = checkpoint_name(jnp.tanh(W1 @ x), "h")
        y = W2 @ h
        return jnp.sum(jnp.sin(y) * y)
    shapes = {"W1": ((32, 16), 0.1), "W2": ((8, 32), 0.1), "x": ((16, 64), 0.5)}
    vals = [np.full(s, v, np.float32) for s, v in shapes.values()]
    cp = jax.checkpoint_policies
    pols = {"nothing_saveable": cp.nothing_saveable,
            "everything_saveable": cp.everything_saveable,
            "dots_saveable": cp.dots_saveable,
            "save_only_these_names": cp.save_only_these_names("h")}
    ours = {p["name"]: p for p in _ckpt_record()["policies"]}
    for name, pol in pols.items():
        theirs = saved_residuals(jax.checkpoint(loss, policy=pol), *vals)
        assert sorted(a.str_short(short_dtypes=True) for a, _ in theirs) == \
            sorted(s["aval"] for s in ours[name]["saved_residuals"]), name
    # no policy means nothing_saveable
    default = saved_residuals(jax.checkpoint(loss), *vals)
    assert len(default) == ours["nothing_saveable"]["residual_count"]


# --------------------------------------------------------------------------- 4 constant folding


SIN_JAXPR = "{ lambda ; a:f32[]. let b:f32[] = sin 1.0:f32[]; c:f32[] = add a b in (c,) }"
FOLDED_JAXPR = "{ lambda a:f32[]; b:f32[]. let c:f32[] = add b a in (c,) }"


def test_sin_literal_stays_an_equation_engine():
    rec = run("jit", source=FOLD_CODE, args=[arg("2.0", False)])
    assert rec["program"]["text"] == SIN_JAXPR
    assert "sin 1.0:f32[]" in page_text()
    folded = run("jit", source=FOLD_CODE, args=[arg("2.0", False)], eager_constant_folding=True)
    assert folded["program"]["text"] == FOLDED_JAXPR
    assert folded["consts"] == ["0.8415"]


def test_const_fold_rules_has_exactly_three_entries():
    names = sorted(p.name for p in const_fold_rules)
    assert names == ["convert_element_type", "device_put", "stage"]
    rows = re.findall(r'<tr><th scope="row"><code>(\w+)</code>', INDEX)
    assert sorted(rows) == names
    pytest.importorskip("jax")
    from jax._src.interpreters import partial_eval as pe
    assert sorted(p.name for p in pe.const_fold_rules) == names


def test_the_folding_section_names_omnistaging():
    """The seed's name for why jit stages an operation on constants, in the section that
    shows it happen."""
    section = re.search(r'<section[^>]*id="constant-folding".*?</section>', INDEX, re.S).group(0)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", section)).split())
    assert "omnistaging, the 2020 design change that made every operation inside jit stage" in text


def test_sin_literal_in_jax_and_eager_folding():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    f = lambda x: x + jnp.sin(1.0)  # noqa: E731
    assert str(jax.make_jaxpr(f)(2.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = sin 1.0:f32[]; c:f32[] = add a b in (c,) }"
    assert "eager_constant_folding" in jax.config.values
    assert "jax_eager_constant_folding" not in jax.config.values
    assert jax.config.values["eager_constant_folding"] is False

    def g(x):
        with jax.ensure_compile_time_eval():
            c = jnp.sin(1.0)
        return x + c
    assert str(jax.make_jaxpr(g)(2.0)) == FOLDED_JAXPR


def test_xla_folds_sin_when_compiling():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    hlo = jax.jit(lambda x: x + jnp.sin(1.0)).lower(2.0).compile().as_text()
    assert "sine" not in hlo


def test_convert_element_type_rule_folds_scalar_to_literal():
    from pe_engine import lax_base as plax
    closed = make_jaxpr(lambda x: x + plax.convert_element_type_p.bind(
        2, new_dtype=np.dtype("float32"), weak_type=False, sharding=None))(1.0)
    assert "add a 2.0:f32[]" in str(closed) or "2.0:f32[]" in str(closed)


def test_partial_eval_computes_sin_now_and_carries_it():
    rec = run("interpreters", source=FOLD_CODE, args=[arg("2.0", False)])
    jt = rec["jaxpr_trace"]
    assert [v["name"] for v in jt["program"]["constvars"]] == ["a"]
    assert jt["residuals"] == ["0.8415"]
    assert jt["program"]["text"] == "{ lambda a:f32[]; b:f32[]. let c:f32[] = add b a in (c,) }"
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.interpreters import partial_eval as pe
    closed = jax.make_jaxpr(lambda x: x + jnp.sin(1.0))(2.0)
    known, unknown, _, res = pe.partial_eval_jaxpr_nounits(closed, [True], False)
    assert [e.primitive.name for e in known.jaxpr.eqns] == ["sin"] and len(res) == 1
    assert [e.primitive.name for e in unknown.jaxpr.eqns] == ["add"]


# --------------------------------------------------------------------------- 5 variables


def test_var_repr_has_no_name():
    v = Var(ShapedArray((3,), np.dtype("float32")))
    assert re.fullmatch(r"Var\(id=\d+\):float32\[3\]", repr(v))
    assert "name" not in getattr(Var, "__slots__", ())
    pytest.importorskip("jax")
    from jax._src import core as jcore
    jv = jcore.Var(jcore.ShapedArray((3,), np.float32))
    assert re.fullmatch(r"Var\(id=\d+\):float32\[3\]", repr(jv))
    assert not any("name" in s for s in jcore.Var.__slots__)


def _chain(sin, n=30):
    def f(x):
        for _ in range(n - 1):
            x = sin(x)
        return x
    return f


def test_printer_names_go_a_to_z_then_ba():
    text = str(make_jaxpr(_chain(pjnp.sin))(1.0))
    names = re.findall(r"(\w+):f32\[\] =", text)
    assert names[24:29] == ["z", "ba", "bb", "bc", "bd"] and "aa" not in names
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    assert re.findall(r"(\w+):f32\[\] =", str(jax.make_jaxpr(_chain(jnp.sin))(1.0))) == names


def test_variable_origins_engine():
    src = ("import numpy as np\nimport jax.numpy as jnp\n\ndef f(x, y):\n"
           "    a = jnp.sin(x) * y\n    unused = jnp.cos(y)\n    return a * 2.0 + jnp.ones(3)\n")
    rec = run("interpreters", source=src, args=[arg("1.0"), arg("[1.0, 2.0, 3.0]", False)])
    origins = {v["origin"] for v in rec["jaxpr_trace"]["variables"]}
    assert {"ConstVar", "LambdaBinding", "equation", "Literal"} <= origins
    lit = [v for v in rec["jaxpr_trace"]["variables"] if v["origin"] == "Literal"]
    assert lit and all(v["name"] is None for v in lit)  # a Literal is no variable
    dyn = rec["dynamic_trace"]["variables"]
    assert any(v["origin"] == "DropVar" and v["name"] == "_" for v in dyn)


def test_literal_inlined_array_carried():
    scalar = str(make_jaxpr(lambda x: x * 2.0)(1.0))
    assert scalar == "{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }"
    arr = np.ones(3, np.float32)
    carried = str(make_jaxpr(lambda x: x + arr + arr)(np.zeros(3, np.float32)))
    assert carried.startswith("{ lambda a:f32[3]; b:f32[3].")  # one constvar: deduplicated by id
    jax = pytest.importorskip("jax")
    assert str(jax.make_jaxpr(lambda x: x * 2.0)(1.0)) == scalar
    assert str(jax.make_jaxpr(lambda x: x + arr + arr)(np.zeros(3, np.float32))).startswith(
        "{ lambda a:f32[3]; b:f32[3].")


def test_freevar_env_vars_are_prepended_in_jax():
    pytest.importorskip("jax")
    from jax._src.interpreters import partial_eval as pe
    src = inspect.getsource(pe.tracers_to_jaxpr)
    assert "invars = [*env_vars, *map(get_atom, in_tracers)]" in src
    src = (ROOT / "pe_engine" / "partial_eval.py").read_text()
    assert "FreeVar" in src


# --------------------------------------------------------------------------- 6 two interpreters


UNUSED_SRC = ("import jax.numpy as jnp\n\ndef f(x, y):\n    unused = jnp.cos(y)\n"
              "    return jnp.sin(x) * y\n")


def test_dynamic_trace_keeps_unused_eqn_auto_dce_collects_it():
    rec = run("interpreters", source=UNUSED_SRC, args=[arg("1.0"), arg("2.0", False)])
    dt = rec["dynamic_trace"]
    assert [f["collected"] for f in dt["frame"]] == [True, False, False]
    assert "_:f32[] = cos" in dt["program"]["text"]
    assert "cos" not in dt["auto_dce_program"]["text"]
    assert "cos" not in rec["jaxpr_trace"]["program"]["text"]  # never reached from the outputs
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.interpreters import partial_eval as pe
    staged = jax.make_jaxpr(lambda x, y: (jnp.cos(y), jnp.sin(x) * y)[1])(1.0, 2.0)
    assert "_:f32[] = cos" in str(staged)
    assert inspect.signature(pe.DynamicJaxprTrace.__init__).parameters["auto_dce"].default is False
    assert "ref(eqn)" in inspect.getsource(pe.JaxprStackFrame.add_eqn)


def test_jaxpr_trace_executes_known_work():
    rec = run("interpreters", source=SPLIT_SRC, args=[arg("1.0"), arg("2.0", False)])
    jt = rec["jaxpr_trace"]
    assert "sin" not in jt["program"]["text"]  # sin x ran; its value is a residual
    assert "0.8415" in jt["residuals"]
    assert all(e["decision"] != "executed" or e["primitive"] == "sin" for e in jt["log"])


# --------------------------------------------------------------------------- 7 built on the rule


def test_linearize_residuals_lead_the_tangent_program_in_jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    _, f_lin = jax.linearize(lambda x: jnp.sin(x) * x, 2.0)
    text = str(jax.make_jaxpr(f_lin)(1.0))
    assert text.startswith("{ lambda a:f32[] b:f32[]; c:f32[]. let")  # residuals, then the tangent
    from jax._src.interpreters import ad
    assert hasattr(ad, "LinearizeTrace") and hasattr(ad, "linearize_from_jvp")
    # the engine: grad's linear program takes the residuals first
    rec = run("grad", source="import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) * x\n",
              args=[arg("2.0", known=False)])
    n = len(rec["residuals"])
    names = lambda vs: [v["name"] for v in vs]  # noqa: E731
    assert names(rec["unknown"]["invars"][:n]) == [r["unknown_name"] for r in rec["residuals"]]
    assert names(rec["known"]["outvars"][-n:]) == [r["known_name"] for r in rec["residuals"]]


def test_examples_behind_the_buttons_exist_and_run():
    ids = re.findall(r'data-example="([\w-]+)"', INDEX)
    assert sorted(ids) == sorted(["grad-mlp", "checkpoint-dots", "grad-scan", "grad-jit-inside"])
    for ex in EXAMPLES["examples"]:
        if ex["id"] not in ids:
            continue
        kw = {"source": ex["code"],
              "args": [arg(ex["values"].get(p, "1.0"), ex["known"].get(p, True))
                       for p in _params(ex["code"])]}
        if ex["mode"] == "checkpoint":
            kw["policy"] = ex["policy"]
        run(ex["mode"], **kw)


def test_jit_inside_grad_splits_into_known_and_unknown_jit_residuals_last():
    src = ("import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef inner(a, b):\n"
           "    return jnp.sin(a) * b\n\ndef f(x, y):\n    return inner(x, y)\n")
    rec = run("split", source=src, args=[arg("1.0"), arg("2.0", False)])
    assert "jit[" in rec["known"]["text"] and "jit[" in rec["unknown"]["text"]
    # the staged jit equation: the unknown input first, the residual last
    assert rec["unknown"]["text"].startswith("{ lambda ; a:f32[] b:f32[]. let")
    assert "] b a\n" in rec["unknown"]["text"]
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax._src.interpreters import partial_eval as pe

    @jax.jit
    def inner(a, b):
        return jnp.sin(a) * b
    closed = jax.make_jaxpr(lambda x, y: inner(x, y))(1.0, 2.0)
    known, unknown, _, res = pe.partial_eval_jaxpr_nounits(closed, [False, True], False)
    (eqn,) = unknown.jaxpr.eqns
    assert eqn.primitive.name == "jit"
    assert eqn.invars[-1] is unknown.jaxpr.invars[0]  # residual: leading invar, last operand


def test_scan_carries_reach_a_fixpoint():
    src = ("from jax import lax\n\ndef f(x, y):\n    def body(c, _):\n        a, b, k = c\n"
           "        return (b, y + a, k + 1.0), None\n"
           "    (a, b, k), _ = lax.scan(body, (x, x, x), None, length=3)\n    return a, b, k\n")
    rec = run("split", source=src, args=[arg("1.0"), arg("2.0", False)])
    assert rec["out_unknowns"] == [True, True, False]
    jax = pytest.importorskip("jax")
    from jax import lax
    from jax._src.interpreters import partial_eval as pe

    def f(x, y):
        def body(c, _):
            a, b, k = c
            return (b, y + a, k + 1.0), None
        (a, b, k), _ = lax.scan(body, (x, x, x), None, length=3)
        return a, b, k
    closed = jax.make_jaxpr(f)(1.0, 2.0)
    _, _, out_uk, _ = pe.partial_eval_jaxpr_nounits(closed, [False, True], False)
    assert out_uk == [True, True, False]

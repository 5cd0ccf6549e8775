"""The mask explorer (`explain.run("masks", ...)`): every known/unknown mask of a function in
one request. Each cell is what split mode gives for that mask (equations of both programs,
residuals and their bytes, or the same error), and, for functions JAX can stage, what JAX's
`partial_eval_jaxpr_nounits` gives (differential, with JAX's own self-run). The function is
traced once unless Python reads a held input's value; then only the masks that leave such an
input unknown are traced again."""
from __future__ import annotations

import pytest
from differential import compare, from_source, mask_counts, mask_string, masks_of

from pe_engine import explain
from pe_engine.explain.limits import MAX_MASK_INPUTS
from pe_engine.explain.values import parse_value

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"

# name -> (source of `f`, the inputs' values as the page writes them). JAX stages each one.
STAGED = {
    "seed": ("def f(x, y):\n    return jnp.sin(x) * y\n", ["2.0", "3.0"]),
    "diamond": ("def f(x, y, z):\n    a = jnp.exp(x)\n    return a * y * (a + z), a\n",
                ["0.1", "[0.2, 0.3]", "0.3"]),
    "mlp": ("def f(W1, b1, W2, x):\n    h = jnp.tanh(x @ W1 + b1)\n    return (h @ W2).sum()\n",
            ["[[0.5, -1.0], [0.25, 1.0], [0.5, -0.5]]", "[0.1, -0.1]", "[[0.3], [-0.2]]",
             "[[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]]"]),
    "five": ("def f(a, b, c, d, e):\n    u = jnp.sin(a) * b + c\n"
             "    return jnp.dot(u, d) * e, jnp.cos(e) + a.sum()\n",
             ["[0.1, 0.2, 0.3]", "2.0", "[1.0, 0.0, -1.0]", "[0.5, 0.25, 2.0]", "1.5"]),
    "control_flow": ("def f(p, x, w):\n"
                     "    y = lax.cond(p > 0, lambda v: jnp.sin(v) * w, jnp.cos, x)\n"
                     "    c, ys = lax.scan(lambda c, v: (c * w + v, jnp.tanh(c)), 0.0, y)\n"
                     "    return c + ys.sum()\n", ["1.0", "[0.5, 1.5, -0.5]", "0.7"]),
    "unused_and_forwarded": ("def f(x, y, z):\n    return y, x * 2.0, jnp.float32(3.0)\n",
                             ["1.0", "[1.0, 2.0]", "5.0"]),
}

# Python reads held values (on line 2 of each): the masks that leave them unknown are traced
# on their own. name -> (source, values, the inputs whose values Python reads)
HELD = {
    "branch": ("def f(p, x):\n    if p > 0:\n        return jnp.sin(x) * p\n    return x\n",
               ["1.0", "[0.5, 1.5]"], {0}),
    "float_read": ("def f(x, s, w):\n    return jnp.sin(x) * float(s) + w\n",
                   ["[0.5, 1.5]", "2.0", "1.0"], {1}),
    "loop_count": ("def f(x, n, w):\n    for _ in range(int(n)):\n        x = jnp.sin(x) * w\n"
                   "    return x\n", ["0.5", "3.0", "0.9"], {1}),
    "derived": ("def f(a, b, x):\n    if (a * b).sum() > 0:\n        return x * a\n"
                "    return x\n", ["[1.0, 2.0]", "2.0", "0.5"], {0, 1}),
    "fails_everywhere": ("def f(x, y):\n    return jnp.sin(x) * undefined_name + y\n",
                         ["1.0", "2.0"], set()),
}


def _args(values: list[str], known: tuple[bool, ...] | None = None) -> list[dict]:
    return [{"value": v, "known": True if known is None else k}
            for v, k in zip(values, known or [True] * len(values))]


def _masks(source: str, values: list[str]) -> dict:
    rec = explain.run("masks", source=HEADER + source, args=_args(values))
    assert "error" not in rec, rec["error"]
    return rec


def _split_cell(source: str, values: list[str], known: tuple[bool, ...]) -> dict:
    """The cell as split mode gives it for this mask."""
    rec = explain.run("split", source=HEADER + source, args=_args(values, known))
    if "error" in rec:
        return {"mask": mask_string(known), "known_eqns": 0, "unknown_eqns": 0, "residuals": 0,
                "residual_bytes": 0, "error": rec["error"]}
    return {"mask": mask_string(known), "known_eqns": len(rec["known"]["eqns"]),
            "unknown_eqns": len(rec["unknown"]["eqns"]), "residuals": len(rec["residuals"]),
            "residual_bytes": rec["residual_bytes"], "error": None}


@pytest.mark.parametrize("name", [*STAGED, *HELD])
def test_every_cell_is_split_modes_answer(name):
    source, values = (STAGED.get(name) or HELD[name])[:2]
    rec = _masks(source, values)
    assert [c["mask"] for c in rec["masks"]] == [mask_string(m) for m in masks_of(len(values))]
    for cell, known in zip(rec["masks"], masks_of(len(values))):
        assert cell == _split_cell(source, values, known), cell["mask"]


@pytest.mark.parametrize("name", STAGED)
def test_traced_once_when_python_reads_no_held_value(name):
    rec = _masks(*STAGED[name])
    assert rec["traces"] == 1
    assert all(c["error"] is None for c in rec["masks"])
    assert rec["masks"][-1]["unknown_eqns"] == 0 and rec["masks"][-1]["residuals"] == 0
    assert rec["masks"][0]["known_eqns"] == 0 and rec["masks"][0]["residuals"] == 0


@pytest.mark.parametrize("name", HELD)
def test_only_masks_that_hide_a_read_input_are_traced_again(name):
    source, values, read = HELD[name]
    rec = _masks(source, values)
    masks = masks_of(len(values))
    if name == "fails_everywhere":  # the shared trace failed: every other mask on its own
        assert rec["traces"] == len(masks) and rec["traced_eqns"] is None
        assert {c["error"]["message"] for c in rec["masks"]} == {
            "NameError: name 'undefined_name' is not defined"}
        return
    retraced = [m for m in masks if not all(m[i] for i in read)]
    assert rec["traces"] == 1 + len(retraced)
    for cell, known in zip(rec["masks"], masks):
        # Python cannot read an unknown value: those masks fail where it reads (line 2 of f)
        assert (cell["error"] is not None) == (known in retraced), cell
        if cell["error"] is not None:
            assert cell["error"]["lineno"] == HEADER.count("\n") + 2
            assert cell["error"]["type"] == "trace"


@pytest.mark.parametrize("impl", ["engine", "jax"])
@pytest.mark.parametrize("name", STAGED)
def test_cells_match_jax_partial_eval_every_mask(name, impl):
    """The cells against JAX's partial_eval_jaxpr_nounits of JAX's staged program; the view
    run with `impl` (the engine, or JAX itself: the harness's self-check) against JAX."""
    source, values = STAGED[name]
    got, want = compare(mask_counts, impl, from_source(source), [parse_value(v) for v in values])
    assert got == want
    if impl == "engine":
        rec = _masks(source, values)
        cells = "\n".join(f"{c['mask']} {c['known_eqns']} {c['unknown_eqns']} {c['residuals']} "
                          f"{c['residual_bytes']}" for c in rec["masks"])
        assert cells == want


def test_more_than_five_inputs_is_a_clear_error():
    names = [f"a{i}" for i in range(MAX_MASK_INPUTS + 1)]
    source = f"\n\ndef g({', '.join(names)}):\n    return a0\n"
    rec = explain.run("masks", source=source, args=_args(["1.0"] * len(names)))
    assert rec["error"] == {
        "type": "limit", "lineno": 3,
        "message": "the mask explorer splits functions of up to 5 inputs every way; g takes 6 "
                   "(a0, a1, a2, a3, a4, a5)"}


def test_no_inputs_is_one_mask():
    rec = _masks("def f():\n    return jnp.ones(3) * 2.0\n", [])
    assert rec["traces"] == 1
    assert [(c["mask"], c["known_eqns"], c["unknown_eqns"]) for c in rec["masks"]] == [
        ("", rec["traced_eqns"], 0)]


def test_the_request_mask_is_echoed_not_used():
    source, values = STAGED["seed"]
    a = explain.run("masks", source=HEADER + source, args=_args(values, (True, False)))
    b = explain.run("masks", source=HEADER + source, args=_args(values, (False, True)))
    assert [x["known"] for x in a["args"]] == [True, False]
    assert a["masks"] == b["masks"]


def test_a_bad_value_fails_the_request_at_its_input():
    rec = explain.run("masks", source=HEADER + STAGED["seed"][0],
                      args=[{"value": "[1,"}, {"value": "2.0"}])
    assert rec["error"]["input"] == "x"


@pytest.mark.parametrize("as_mode", ["grad", "checkpoint"])
@pytest.mark.parametrize("name", ["seed", "diamond", "mlp"])
def test_cells_asked_as_an_autodiff_mode_are_that_modes_split_of_each_mask(name, as_mode):
    """Asked as grad or checkpoint (the explorer in those modes), a mask is argnums and each
    cell counts that mode's own record for it (its forward/linear split), or its error."""
    source, values = STAGED[name]
    extra = {"policy": "dots_saveable"} if as_mode == "checkpoint" else {}
    rec = explain.run("masks", source=HEADER + source, args=_args(values), as_mode=as_mode,
                      **extra)
    assert "error" not in rec, rec["error"]
    assert rec["as_mode"] == as_mode and rec["policy"] == extra.get("policy")
    for cell in rec["masks"]:
        known = tuple(c == "1" for c in cell["mask"])
        own = explain.run(as_mode, source=HEADER + source, args=_args(values, known), **extra)
        if "error" in own:
            assert cell["error"]["message"] == own["error"]["message"], cell
            continue
        assert cell["error"] is None, cell
        assert (cell["known_eqns"], cell["unknown_eqns"], cell["residuals"],
                cell["residual_bytes"]) == (len(own["known"]["eqns"]), len(own["unknown"]["eqns"]),
                                            len(own["residuals"]), own["residual_bytes"]), cell

"""Calls opened in place (issue 12): each call equation's event carries its inner split, and
that split is JAX's: the inner panes print as JAX's partial_eval_jaxpr_nounits prints the
inner jaxpr under the same unknowns, a scan's carry fixpoint goes through the rounds JAX's
_scan_partial_eval goes through, and a checkpoint's unknown program is the one JAX's remat
rule stages under the policy."""
from __future__ import annotations

import pytest

from pe_engine import explain

jax = pytest.importorskip("jax")
from jax._src.interpreters import partial_eval as jpe  # noqa: E402

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"

JIT = HEADER + """@jax.jit
def inner(a, b):
    return jnp.sin(a) * b + a

def f(x, y):
    return inner(x, y) * 2.0
"""
SCAN = HEADER + """def f(w, c0, c1):
    def body(carry, x):
        a, b = carry
        return (a * w, b + a), x * a
    (a, b), ys = lax.scan(body, (c0, c1), jnp.arange(3.0))
    return a + b + ys.sum()
"""
COND = HEADER + """def f(p, x):
    return lax.cond(p > 0, lambda v: jnp.sin(v) * 2.0, lambda v: jnp.cos(v) + v, x)
"""
REMAT = HEADER + """def f(W, x):
    h = jnp.tanh(jnp.dot(W, x))
    return jnp.sum(jnp.sin(jnp.dot(W, h)))
"""
REMAT_ARGS = ["[[0.5, -0.2], [0.1, 0.4]]", "[1.0, 2.0]"]


def _run(mode: str, source: str, values: list[str], known: list[bool], **kw) -> dict:
    rec = explain.run(mode, source=source, args=[{"value": v, "known": k}
                                                 for v, k in zip(values, known)], **kw)
    assert "error" not in rec, rec.get("error")
    return rec


def _jax_fn(source: str):
    ns: dict = {}
    exec(source, ns)  # noqa: S102 - the test's own sources, run by JAX
    return ns["f"]


def _calls(events: list[dict]) -> list[dict]:
    return [e["call"] for e in events if "call" in e]


def _panes(call: dict) -> tuple[str, str]:
    by_id = {p["id"]: p["program"]["text"] for p in call["panes"]}
    return by_id["known"], by_id["unknown"]


def _jax_eqn(closed, name: str):
    return next(e for e in closed.jaxpr.eqns if e.primitive.name == name)


def _jax_split(inner, unknowns, instantiate) -> tuple[str, str]:
    known, unknown, _, _ = jpe.partial_eval_jaxpr_nounits(inner, unknowns, instantiate)
    return str(known), str(unknown)


def _jax_jit_halves(closed, mask) -> tuple[str | None, str | None]:
    """The known jit and the unknown jit JAX's pjit rule stages when JAX splits `closed`
    (None where it stages none)."""
    known, unknown, _, _ = jpe.partial_eval_jaxpr_nounits(closed, mask, False)
    return tuple(next((str(e.params["jaxpr"]) for e in half.jaxpr.eqns
                       if e.primitive.name == "jit"), None) for half in (known, unknown))


def _check_jit_panes(call: dict, jax_halves: tuple[str | None, str | None]) -> None:
    ours = _panes(call)
    assert any(jax_halves)
    for mine, theirs in zip(ours, jax_halves):
        if theirs is not None:
            assert mine == theirs
    # the unknown jit takes the residuals last, as JAX's rule reorders them
    (_, unknown) = call["panes"]
    flags = [i["residual"] is not None for i in unknown["inputs"]]
    assert flags == sorted(flags)
    assert sorted(i["residual"] for i in unknown["inputs"] if i["residual"] is not None) == \
        list(range(len(call["residuals"])))


@pytest.mark.parametrize("known", [[True, False], [False, True], [True, True],
                                   [False, False]])
def test_jit_opens_to_the_jits_jaxs_rule_stages(known):
    import numpy as np
    rec = _run("split", JIT, ["1.0", "2.0"], known)
    (call,) = _calls(rec["events"])
    assert call["primitive"] == "jit" and call["title"] == "jit(inner)"
    assert call["inputs_known"] == known
    closed = jax.make_jaxpr(_jax_fn(JIT))(np.float32(1.0), np.float32(2.0))
    _check_jit_panes(call, _jax_jit_halves(closed, [not k for k in known]))
    assert len(call["events"]) == len(_jax_eqn(closed, "jit").params["jaxpr"].jaxpr.eqns)


def test_jit_inside_grad_opens_to_the_known_and_the_unknown_jit():
    rec = _run("grad", JIT, ["1.0", "2.0"], [False, True])
    (call,) = _calls(rec["events"])

    def jvp_program(x, y, t):
        return jax.jvp(lambda x: _jax_fn(JIT)(x, y), (x,), (t,))
    closed = jax.make_jaxpr(jvp_program)(1.0, 2.0, 1.0)
    halves = _jax_jit_halves(closed, [False, False, True])
    assert all(halves)
    _check_jit_panes(call, halves)
    # y is a residual the known jit does not return: the unknown jit reads the known input
    assert any(r["from_input"] is not None for r in call["residuals"])


def _jax_scan_rounds(monkeypatch, fn, args, mask) -> list[tuple[list[bool], list[bool]]]:
    """The rounds of JAX's own _scan_partial_eval: each split of the body it asks for,
    heard by wrapping the splitter it calls."""
    heard = []
    real = jpe.partial_eval_jaxpr_nounits_fwd

    def spy(jaxpr, unknowns, instantiate, fwd=True):
        out = real(jaxpr, unknowns, instantiate, fwd)
        heard.append((list(unknowns), list(out[2])))
        return out
    monkeypatch.setattr(jpe, "partial_eval_jaxpr_nounits_fwd", spy)
    jpe.partial_eval_jaxpr_nounits(jax.make_jaxpr(fn)(*args), mask, False)
    return heard


@pytest.mark.parametrize("known", [[False, True, True], [True, False, True],
                                   [True, True, False], [True, False, False]])
def test_scan_fixpoint_goes_through_jaxs_rounds(monkeypatch, known):
    rec = _run("split", SCAN, ["0.5", "1.0", "2.0"], known)
    (call,) = _calls(rec["events"])
    assert call["title"] == "scan (length 3)"
    heard = _jax_scan_rounds(monkeypatch, _jax_fn(SCAN), [0.5, 1.0, 2.0],
                             [not k for k in known])
    # the body's inputs: w (const), the two carries, x
    assert [(r["unknown_in"], r["unknown_out"]) for r in call["rounds"]] == [
        (uk[1:3], out[:2]) for uk, out in heard]
    for r in call["rounds"]:
        assert r["turned"] == [j for j in range(2)
                               if r["unknown_out"][j] and not r["unknown_in"][j]]
        assert len(r["why"]) == len(r["turned"])
        assert all("turns unknown" in w and "`" in w for w in r["why"])
    final_uk = heard[-1][0]
    body = _jax_eqn(jax.make_jaxpr(_jax_fn(SCAN))(0.5, 1.0, 2.0), "scan").params["jaxpr"]
    assert _panes(call) == _jax_split(body, final_uk, final_uk[1:3] + [False])


def test_scan_under_grad_turns_its_carry_unknown_in_round_one():
    rec = _run("grad", HEADER + """def f(w, xs):
    def step(h, x):
        h = jnp.tanh(h * w + x)
        return h, h
    h, _ = lax.scan(step, 0.0, xs)
    return h
""", ["0.5", "[1.0, 2.0, 3.0]"], [False, True])
    (call,) = _calls(rec["events"])
    first = call["rounds"][0]
    assert first["turned"] and "turns unknown" in first["why"][0]
    assert call["rounds"][-1]["turned"] == []


@pytest.mark.parametrize("known", [[True, False], [False, True]])
def test_cond_opens_to_jaxs_split_of_every_branch(known):
    import numpy as np
    rec = _run("split", COND, ["1.0", "[0.5, 1.5]"], known)
    (call,) = _calls(rec["events"])
    closed = jax.make_jaxpr(_jax_fn(COND))(1.0, np.asarray([0.5, 1.5], np.float32))
    branches = _jax_eqn(closed, "cond").params["branches"]
    ops_uk = [not known[1] or not known[0]]
    out_uks = [any(u) for u in zip(*(jpe.partial_eval_jaxpr_nounits(b, ops_uk, False)[2]
                                     for b in branches))]
    assert _panes(call) == _jax_split(branches[0], ops_uk, out_uks)
    assert [b["title"] for b in call["branches"]] == ["cond (branch 1 of 2)"]
    assert _panes(call["branches"][0]) == _jax_split(branches[1], ops_uk, out_uks)


def _jax_remat_unknown(policy: str) -> str:
    """The remat2 JAX stages in the linear program of checkpoint(f, policy) under grad."""
    import numpy as np
    fn = jax.checkpoint(_jax_fn(REMAT), policy=getattr(jax.checkpoint_policies, policy))
    vals = [np.asarray(eval(v), np.float32) for v in REMAT_ARGS]  # noqa: S307 - literals

    def jvp_program(*xs):
        return jax.jvp(fn, tuple(xs[:2]), tuple(xs[2:]))
    closed = jax.make_jaxpr(jvp_program)(*vals, *vals)
    _, linear, _, _ = jpe.partial_eval_jaxpr_nounits(closed, [False] * 2 + [True] * 2, False)
    return str(_jax_eqn(linear, "remat2").params["jaxpr"])


@pytest.mark.parametrize("policy", ["nothing_saveable", "everything_saveable",
                                    "dots_saveable"])
def test_checkpoint_opens_to_what_the_policy_saves_and_recomputes(policy):
    rec = _run("checkpoint", REMAT, REMAT_ARGS, [False, False], policy=policy)
    (call,) = _calls(rec["events"])
    assert call["primitive"] == "remat2" and call["title"] == "checkpoint"
    assert _panes(call)[1] == _jax_remat_unknown(policy)
    prims = [e["primitive"] for e in call["events"]]
    saved = [prims[i] for i in call["saved"]]
    if policy == "nothing_saveable":
        assert saved == [] and call["recomputed"]
    elif policy == "everything_saveable":
        assert saved and call["recomputed"] == []
    else:
        assert set(saved) == {"dot_general"}
        assert all(prims[i] != "dot_general" for i in call["recomputed"])
    for i in call["recomputed"]:
        assert "recomputed" in call["events"][i]["narration"]


def test_nested_calls_open_in_turn():
    rec = _run("split", HEADER + """@jax.jit
def inner(a, b):
    return lax.cond(a > 0, lambda v: v * a, lambda v: v - a, b)

def f(x, y):
    return inner(x, y)
""", ["1.0", "2.0"], [True, False])
    (call,) = _calls(rec["events"])
    (nested,) = _calls(call["events"])
    assert nested["primitive"] == "cond"


@pytest.mark.parametrize("policy", ["nothing_saveable", "everything_saveable"])
def test_a_jit_inside_a_checkpoint_is_split_by_the_policy(policy):
    """JAX splits a jit inside a checkpoint under the policy (a known jit in the forward
    pass, a staged jit in the remat2): the forward and linear panes are JAX's."""
    rec = _run("checkpoint", JIT, ["1.0", "2.0"], [False, False], policy=policy)
    fn = jax.checkpoint(_jax_fn(JIT), policy=getattr(jax.checkpoint_policies, policy))

    def jvp_program(*xs):
        return jax.jvp(fn, tuple(xs[:2]), tuple(xs[2:]))
    closed = jax.make_jaxpr(jvp_program)(1.0, 2.0, 1.0, 2.0)
    forward, linear, _, _ = jpe.partial_eval_jaxpr_nounits(closed, [False] * 2 + [True] * 2,
                                                           False)
    panes = {p["id"]: p["program"]["text"] for p in rec["panes"]}
    assert (panes["forward"], panes["linear"]) == (str(forward), str(linear))
    assert "jit[" in panes["forward"]


WHILE = HEADER + """def f(s, a0, b0):
    def body(c):
        i, a, b = c
        return i + 1, a * s, b + a
    _, a, b = lax.while_loop(lambda c: c[0] < 3, body, (0, a0, b0))
    return a + b
"""


@pytest.mark.parametrize("known", [[False, True, True], [True, False, True]])
def test_while_fixpoint_goes_through_jaxs_rounds(monkeypatch, known):
    rec = _run("split", WHILE, ["1.5", "1.0", "2.0"], known)
    (call,) = _calls(rec["events"])
    assert call["primitive"] == "while" and call["title"] == "while (body)"
    closed = jax.make_jaxpr(_jax_fn(WHILE))(1.5, 1.0, 2.0)
    body = _jax_eqn(closed, "while").params["body_jaxpr"]
    n_consts = _jax_eqn(closed, "while").params["body_nconsts"]
    heard = []
    real = jpe.partial_eval_jaxpr_nounits

    def spy(jaxpr, unknowns, instantiate):
        out = real(jaxpr, unknowns, instantiate)
        if jaxpr is body:
            heard.append((list(unknowns[n_consts:]), list(out[2])))
        return out
    monkeypatch.setattr(jpe, "partial_eval_jaxpr_nounits", spy)
    real(closed, [not k for k in known], False)
    assert [(r["unknown_in"], r["unknown_out"]) for r in call["rounds"]] == heard
    assert call["rounds"][-1]["turned"] == []
    assert any(r["turned"] for r in call["rounds"])

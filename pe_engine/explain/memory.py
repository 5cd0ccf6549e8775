"""The residual memory of reverse mode, accounted once: activations + inputs kept.

`account` is the one accounting the page shows (the residual list, the policy cards, the
memory chart): the residuals an equation of the forward pass computes (activations) plus
those that are an input or a constant, which the backward pass reads as they are (inputs
kept). `memory_line` spreads the same bytes over time: the inputs kept live throughout, each
activation from the forward equation that makes it until its last reader in the backward
pass (one the backward program never reads is freed as the backward pass starts). Each point
is the live bytes after one equation of the forward pane, then of the backward pane; the
line's peak, with nothing freed during the forward pass, is the account's total."""
from __future__ import annotations

from collections.abc import Sequence

from ..core import Jaxpr, Var
from .record import MemoryAccount, MemoryLine, MemoryPoint, Residual


def account(residuals: Sequence[Residual]) -> MemoryAccount:
    """`residuals` as a split record lists them (`known_eqn` None: an input or a constant)."""
    acts = [r["bytes"] for r in residuals if r["known_eqn"] is not None]
    kept = [r["bytes"] for r in residuals if r["known_eqn"] is None]
    return {"activations": len(acts), "activation_bytes": sum(acts),
            "inputs_kept": len(kept), "input_bytes": sum(kept),
            "total_bytes": sum(acts) + sum(kept)}


def memory_line(policy: str, label: str, residuals: Sequence[Residual], forward: Jaxpr,
                backward: Jaxpr, recomputed: int) -> MemoryLine:
    """`residuals` as the grad record lists them (`known_eqn`: the forward equation that
    makes each); `backward` reads residual k as its input k."""
    acct = account(residuals)
    made_at: dict[int, list[Residual]] = {}
    for r in residuals:
        if r["known_eqn"] is not None:
            made_at.setdefault(r["known_eqn"], []).append(r)
    live = acct["input_bytes"]
    points: list[MemoryPoint] = []
    for k in range(len(forward.eqns)):
        live += sum(r["bytes"] for r in made_at.get(k, []))
        points.append({"step": len(points), "phase": "forward", "bytes": live, "eqn": k})

    res_vars = backward.invars[:len(residuals)]
    last_read = {v: -1 for v in res_vars}
    for j, e in enumerate(backward.eqns):
        for a in e.invars:
            if isinstance(a, Var) and a in last_read:
                last_read[a] = j
    freed_at: dict[int, int] = {}
    for v, r in zip(res_vars, residuals):
        if r["known_eqn"] is not None:
            j = max(last_read[v], 0)  # never read: freed as the backward pass starts
            freed_at[j] = freed_at.get(j, 0) + r["bytes"]
    for j in range(max(len(backward.eqns), 1)):
        live -= freed_at.get(j, 0)
        points.append({"step": len(points), "phase": "backward", "bytes": live,
                       "eqn": j if backward.eqns else None})
    return {"policy": policy, "label": label,
            "peak_bytes": max(p["bytes"] for p in points),
            "recomputed": recomputed, "account": acct, "points": points}

"""The residual memory of reverse mode: live residual bytes over the forward pass (each
residual from the equation that makes it) and the backward pass (until its last reader).

Only residuals the forward pass computes count: one that is an input (or a constant) is
memory the caller holds anyway, whatever the policy. One the backward program never reads
is freed as the backward pass starts; at the end of the backward pass nothing is live.
Each point is the live bytes after one equation of the forward pane, then of the backward
pane."""
from __future__ import annotations

from collections.abc import Sequence

from ..core import Jaxpr, Var
from .record import MemoryLine, MemoryPoint, Residual


def memory_line(policy: str, label: str, residuals: Sequence[Residual], forward: Jaxpr,
                backward: Jaxpr, recomputed: int) -> MemoryLine:
    """`residuals` as the grad record lists them (`known_eqn`: the forward equation that
    makes each); `backward` reads residual k as its input k."""
    made_at: dict[int, list[Residual]] = {}
    for r in residuals:
        if r["known_eqn"] is not None:
            made_at.setdefault(r["known_eqn"], []).append(r)
    live = 0
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
            "peak_bytes": max(p["bytes"] for p in points), "recomputed": recomputed,
            "points": points}

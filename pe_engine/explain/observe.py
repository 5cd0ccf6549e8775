"""What JaxprTrace decided in one split: the explainer's partial-eval observer.

The engine's rules hand the observer each decision (an equation known and run now, staged,
or a call split by its rule) and, for a loop, each round of its search for the unknown
carries. Each note is keyed by where it was heard: the path of equations being replayed,
the traced equation first (`core.replaying`); a rule that replays an inner program
(checkpoint runs its known part in place) adds the inner equation to the path, so its
decisions do not overwrite the call's own.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import core
from ..partial_eval import ConstVar, PartialEvalObserver

Path = tuple[int, ...]  # ids of the equations being replayed, outermost first


@dataclass
class Note:
    """One equation's decision, as the split needs it: which inputs were known, and which
    known values the staged equation reads as residuals ((position among the staged
    inputs, value) each)."""
    inputs_known: list[bool]
    residual_inputs: list[tuple[int, Any]] = field(default_factory=list)


@dataclass
class Round:
    """One round of a loop's search for its unknown carries (PartialEvalObserver.fixpoint_round)."""
    unknowns: list[bool]
    carry_out_unknowns: list[bool]


def _residual_inputs(in_tracers: Sequence[Any]) -> list[tuple[int, Any]]:
    return [(pos, t.recipe.val) for pos, t in enumerate(in_tracers)
            if isinstance(getattr(t, "recipe", None), ConstVar)]


class SplitObserver(PartialEvalObserver):
    """Hears every decision of one split (a call's inner split is heard by a SplitObserver
    of its own: calls.py, split.call_split)."""

    def __init__(self) -> None:
        self.notes: dict[Path, Note] = {}
        self.rounds: dict[Path, list[Round]] = {}

    @staticmethod
    def _path() -> Path:
        return tuple(map(id, core.replaying()))

    def known(self, primitive: Any, params: dict[str, Any], tracers: list[Any],
              outs: list[Any]) -> None:
        self.notes[self._path()] = Note([True] * len(tracers))

    def staged(self, primitive: Any, params: dict[str, Any], tracers: list[Any],
               staged_in: list[Any], recipe: Any) -> None:
        self.notes[self._path()] = Note([t.is_known() for t in tracers],
                                        _residual_inputs(staged_in))

    def split(self, primitive: Any, params: dict[str, Any], tracers: list[Any],
              known_outs: list[Any], eqn: Any, inner: dict[str, Any]) -> None:
        self.notes[self._path()] = Note(
            [t.is_known() for t in tracers],
            _residual_inputs(eqn.in_tracers) if eqn is not None else [])

    def fixpoint_round(self, primitive: Any, params: dict[str, Any], round: int,  # noqa: A002
                       unknowns: list[bool], carry_out_unknowns: list[bool]) -> None:
        path = self._path()
        if round == 0:  # a search starts: the last one heard for a path stands, as a note does
            self.rounds[path] = []
        self.rounds[path].append(Round(list(unknowns), list(carry_out_unknowns)))

    def note(self, path: Path) -> Note | None:
        return self.notes.get(path)

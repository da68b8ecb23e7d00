"""How long a seat may think, per kind of decision (RULES.md 1, Timers, [decided] table
options): discard 15 s, claim 8 s, 买底/顶底 8 s, ready 15 s between hands."""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.hand import Phase


@dataclass(frozen=True, slots=True)
class Timers:
    discard: float = 15.0  # a turn: discard, kong or 自摸
    claim: float = 8.0  # a claim window after a discard or a 加杠 (抢杠)
    decide: float = 8.0  # a decision before the deal (温州 买底 / 顶底)
    ready: float = 15.0  # between hands, before the next one is dealt

    def for_phase(self, phase: Phase) -> float:
        """The time a seat gets for a decision in `phase`."""
        if phase == "turn":
            return self.discard
        if phase == "decide":
            return self.decide
        return self.claim

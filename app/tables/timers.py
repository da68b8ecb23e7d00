"""How long a seat may think, per kind of decision (RULES.md 1, Timers, [decided] table
options): discard 15 s, claim 8 s, 买底/顶底 8 s, ready 15 s between hands; and how long the
server takes when it plays a seat itself (`BotPace`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from app.rules.state import Phase


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


@dataclass(frozen=True, slots=True)
class BotPace:
    """How long the server waits before it plays a seat itself (a house bot, or a player's
    seat on 托管), so that people can follow the hand: a delay drawn per decision, uniformly
    from [`low`, `high`] seconds, from `rng`, never the hand's seeded one (a seeded hand
    plays out the same at any pace). (0, 0), the default: at once, as tests and load runs
    want. A delay never runs past the decision's own deadline."""

    low: float = 0.0
    high: float = 0.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 <= self.low <= self.high:
            raise ValueError(f"a bot's delay is a range 0 <= low <= high, not {self.low}-{self.high}")

    @classmethod
    def from_ms(cls, low_ms: int, high_ms: int) -> BotPace:
        return cls(low_ms / 1000, high_ms / 1000)

    @property
    def instant(self) -> bool:
        return self.high == 0

    def draw(self) -> float:
        """The next decision's delay, in seconds."""
        if self.low == self.high:
            return self.low
        return self.rng.uniform(self.low, self.high)

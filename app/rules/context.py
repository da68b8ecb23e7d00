"""What a hand takes from its table and gives back to it: the `TableContext` it is played in
(the dealer, the dealer's streak, the seats' points, carried bonuses) and the `Settlement` it
ends with (transfers between seats, and what the house pays).

Plain values, shared by the hand's state machine, the variants and the tables; they sit
below all of them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TableContext:
    """What a hand needs to know about the table it is played at."""

    dealer: int = 0
    # the dealer's streak before this hand: consecutive wins (丽水 牢庄, 福州 连庄) or
    # consecutive deals (温州); each variant's docstring says which
    streak: int = 0
    seat_points: tuple[int, int, int, int] = (0, 0, 0, 0)  # each seat's 积分 in this variant (湖州)
    draw_bonus: int = 0  # 上海 荒番 count carried from earlier hands


@dataclass(frozen=True, slots=True)
class Transfer:
    """Points moving from one seat to another for one reason. Never negative, never a float."""

    payer: int
    payee: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a hand settles to: the transfers between seats and what the house pays."""

    transfers: tuple[Transfer, ...] = ()
    house: tuple[int, int, int, int] = (0, 0, 0, 0)  # points from the house, not from seats
    house_silver: tuple[int, int, int, int] = (0, 0, 0, 0)  # silver from the house (湖州 500000)

    def net(self) -> tuple[int, int, int, int]:
        totals = list(self.house)
        for t in self.transfers:
            totals[t.payer] -= t.points
            totals[t.payee] += t.points
        return (totals[0], totals[1], totals[2], totals[3])

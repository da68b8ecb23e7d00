"""The session scoreboard (大结算) of a private room, from its stored hands: pure.

Rows are hands in the order played; columns are players (accounts), in the order they
first sat, seat order within a hand. A hand's points are its `net` per seat (the points the
variant's settlement moved, before the stake); its silver is what the ledger moved for it,
per account (points x stake, plus any house payment). Totals add the rows; the best hand
is the largest gain of one player in one hand (ties: the earlier hand)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """One stored hand of the room: who sat where, its outcome and its net points per
    seat (empty when voided), and the silver the ledger moved per account."""

    hand_id: str
    seats: tuple[int | None, ...]
    outcome: str | None  # None: voided
    net: tuple[int, ...]
    silver: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Row:
    number: int  # 1, 2, ...
    hand_id: str
    outcome: str  # win | draw | escape | voided
    points: dict[int, int]  # account -> net points (the accounts that sat in this hand)
    silver: dict[int, int]  # account -> silver moved


@dataclass(frozen=True, slots=True)
class Best:
    hand_id: str
    number: int
    account: int
    points: int


@dataclass(frozen=True, slots=True)
class Scoreboard:
    players: list[int]
    rows: list[Row]
    points: dict[int, int]  # account -> total points
    silver: dict[int, int]  # account -> total silver
    best: Best | None


def scoreboard(hands: Sequence[PlayedHand]) -> Scoreboard:
    players: list[int] = []
    rows: list[Row] = []
    points: dict[int, int] = {}
    silver: dict[int, int] = {}
    best: Best | None = None
    for number, hand in enumerate(hands, start=1):
        sat = [a for a in hand.seats if a is not None]
        players.extend(a for a in sat if a not in players)
        voided = hand.outcome is None
        row_points = {a: 0 if voided else hand.net[s] for s, a in enumerate(hand.seats)
                      if a is not None}
        row_silver = {a: hand.silver.get(a, 0) for a in sat}
        rows.append(Row(number, hand.hand_id, "voided" if voided else str(hand.outcome),
                        row_points, row_silver))
        for account in sat:
            points[account] = points.get(account, 0) + row_points[account]
            silver[account] = silver.get(account, 0) + row_silver[account]
            gain = row_points[account]
            if gain > 0 and (best is None or gain > best.points):
                best = Best(hand.hand_id, number, account, gain)
    return Scoreboard(players, rows, points, silver, best)

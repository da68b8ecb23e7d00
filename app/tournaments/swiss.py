"""The Swiss draw (瑞士制) and the standings of a tournament (docs/tournaments.md).

Entrants are numbered 0, 1, ... in the order of their entries: the players in the order
they registered, then the house bots that fill the seats left empty at the start.

- **Round 1** is drawn from the event's seed, whose SHA-256 is published when the event
  opens and the seed itself after the draw: the entrant numbers are shuffled by the wall's
  Fisher-Yates on the seed's RNG (`app.rules.wall.shuffled` and `hand_rng`), so anyone with
  the list of entries and the seed draws the same tables. Consecutive fours of the shuffled
  order make tables 1, 2, ..., the first of each four in seat 0 (东, the first dealer).
- **Later rounds** are drawn by the standings: the first four at table 1, the next four at
  table 2, and so on. At a table the entrant ranked k-th (0-3) sits at seat (k + round) % 4,
  so that the leader does not always deal first.
- **The final table** (optional) seats the four best players in the standings; house bots
  fill it only if fewer than four players entered. Its places are decided by the points
  won at the final table alone, then by the Swiss standings; everyone else keeps their
  Swiss place.
- **Standings**: the points won over every hand of the event, then the hands won (胡), then
  the best single round's points, then the position in round 1's draw (earlier first: a
  random order the seed fixes and anyone can check).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from app.rules.wall import hand_rng, shuffled

MIN_ENTRANTS = 8
MAX_ENTRANTS = 256


@dataclass(frozen=True)
class Table:
    """One table of a round: `seats[s]` is the entrant at seat s (0 = 东)."""

    number: int  # 1, 2, ... within the round
    seats: tuple[int, int, int, int]


@dataclass(frozen=True)
class Score:
    """What an entrant won in one round: net points over its hands and hands won."""

    points: int = 0
    wins: int = 0


@dataclass(frozen=True)
class Standing:
    entrant: int
    place: int  # 1, 2, ...
    points: int
    wins: int
    best_round: int  # the most points won in one round (0 before any round)
    drawn: int  # the position in round 1's draw


def check_entrants(entrants: int) -> None:
    """Refuse a field that cannot be seated: 8 to 256 entrants, in fours."""
    if not MIN_ENTRANTS <= entrants <= MAX_ENTRANTS or entrants % 4:
        raise ValueError(f"a tournament seats {MIN_ENTRANTS} to {MAX_ENTRANTS} entrants in fours,"
                         f" not {entrants}")


def first_round(seed: bytes, entrants: int) -> tuple[Table, ...]:
    """Round 1's tables: the entrants shuffled by the seed, in fours."""
    check_entrants(entrants)
    order = shuffled(list(range(entrants)), hand_rng(seed))
    return _fours(order)


def next_round(standings: Sequence[Standing], round_number: int) -> tuple[Table, ...]:
    """The tables of round `round_number` (2, 3, ...): the standings in fours, the seats
    turning with the round."""
    if round_number < 2:
        raise ValueError("round 1 is drawn from the seed")
    ranked = [s.entrant for s in sorted(standings, key=lambda s: s.place)]
    check_entrants(len(ranked))
    return tuple(
        Table(t + 1, _turned(ranked[4 * t:4 * t + 4], round_number)) for t in range(len(ranked) // 4)
    )


def final_table(standings: Sequence[Standing], bots: Collection[int], round_number: int) -> Table:
    """The final table: the four best-placed players (house bots only where fewer than four
    players entered), seated as any later round's table."""
    ranked = sorted(standings, key=lambda s: s.place)
    players = [s.entrant for s in ranked if s.entrant not in bots]
    filling = [s.entrant for s in ranked if s.entrant in bots]
    return Table(1, _turned((players + filling)[:4], round_number))


def standings(
    first: Sequence[Table], rounds: Sequence[Mapping[int, Score]]
) -> tuple[Standing, ...]:
    """Every entrant's place after `rounds` (each round's score per entrant; an entrant
    missing from a round scored nothing in it), from the tie-breaks above."""
    drawn = {e: 4 * (t.number - 1) + s for t in first for s, e in enumerate(t.seats)}
    totals: dict[int, tuple[int, int, int]] = {}
    for entrant in drawn:
        scores = [r.get(entrant, Score()) for r in rounds]
        totals[entrant] = (
            sum(x.points for x in scores),
            sum(x.wins for x in scores),
            max((x.points for x in scores), default=0),
        )
    order = sorted(drawn, key=lambda e: (-totals[e][0], -totals[e][1], -totals[e][2], drawn[e]))
    return tuple(
        Standing(e, place, *totals[e], drawn[e]) for place, e in enumerate(order, start=1)
    )


def final_places(
    swiss: Sequence[Standing], final: Table | None, scores: Mapping[int, Score] | None
) -> tuple[int, ...]:
    """Every entrant in its final place: the finalists by their points at the final table
    (then their hands won there, then their Swiss place), then the rest in Swiss order."""
    ranked = [s.entrant for s in sorted(swiss, key=lambda s: s.place)]
    if final is None:
        return tuple(ranked)
    won = scores or {}
    place = {e: i for i, e in enumerate(ranked)}
    finalists = sorted(final.seats, key=lambda e: (
        -won.get(e, Score()).points, -won.get(e, Score()).wins, place[e]))
    return tuple(finalists) + tuple(e for e in ranked if e not in final.seats)


def _fours(order: Sequence[int]) -> tuple[Table, ...]:
    return tuple(
        Table(t + 1, (order[4 * t], order[4 * t + 1], order[4 * t + 2], order[4 * t + 3]))
        for t in range(len(order) // 4)
    )


def _turned(ranked: Sequence[int], round_number: int) -> tuple[int, int, int, int]:
    """Four entrants in rank order, seated: the k-th at seat (k + round) % 4."""
    seats = [0, 0, 0, 0]
    for k, entrant in enumerate(ranked):
        seats[(k + round_number) % 4] = entrant
    return seats[0], seats[1], seats[2], seats[3]

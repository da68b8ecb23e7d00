"""A tournament's pool and prizes, in whole silver (docs/tournaments.md).

- The pool is the players' fees less the house's rake (basis points of the fees, rounded
  down; possibly 0). When that is below the event's guarantee the house adds the
  difference, and the pool is the guarantee. House bots pay no fee and win no prize.
- The prize table is a list of shares for places 1, 2, ... Prizes go to the players in
  their final order, house bots skipped. When fewer players finish than the table has
  places, the shares of the places nobody takes are left out and the others scaled up, so
  that the whole pool is always paid. Each prize is rounded down and what the rounding
  leaves goes to first place: the prizes sum to the pool exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

BASIS = 10_000  # rake in basis points of the fees


@dataclass(frozen=True)
class Pool:
    """Where an event's prize money comes from: `fees` in, `rake` to the house, `guarantee`
    from the house (its top-up to the guarantee); `total` is paid out as prizes."""

    fees: int
    rake: int
    guarantee: int

    @property
    def total(self) -> int:
        return self.fees - self.rake + self.guarantee


def pool(fee: int, players: int, rake_bp: int, guarantee: int) -> Pool:
    """The pool of `players` paying `fee` each, with the event's rake and guarantee."""
    if fee < 0 or players < 0 or guarantee < 0 or not 0 <= rake_bp <= BASIS:
        raise ValueError("fees, players and the guarantee are not negative; the rake is 0-10000 bp")
    fees = fee * players
    rake = fees * rake_bp // BASIS
    return Pool(fees, rake, max(0, guarantee - (fees - rake)))


def check_shares(shares: Sequence[int]) -> None:
    """A prize table: one to 64 places, each a positive share."""
    if not 1 <= len(shares) <= 64 or any(s <= 0 for s in shares):
        raise ValueError("a prize table has 1 to 64 places, each a positive share")


def prizes(total: int, shares: Sequence[int], places: Sequence[int], bots: Collection[int]) -> dict[int, int]:
    """Each prize-winning player's prize: `places` is every entrant in final order."""
    check_shares(shares)
    winners = [e for e in places if e not in bots][:len(shares)]
    if not winners:
        raise ValueError("prizes need at least one player")
    paid = shares[:len(winners)]
    weight = sum(paid)
    amounts = [total * s // weight for s in paid]
    amounts[0] += total - sum(amounts)
    return dict(zip(winners, amounts, strict=True))

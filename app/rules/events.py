"""What happens in a hand, as a stream of immutable events.

Some events carry tiles only their own seat may see (the deal, a draw, the tile of a
concealed kong). `for_seat` gives the copy a seat is allowed to receive: the private fields
of another seat's event are blanked. `kind` names each event on the wire.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from app.rules.scoring import MeldRecord, ScoreSheet
from app.rules.tiles import Tile
from app.rules.wall import Dice


@dataclass(frozen=True, slots=True)
class Event:
    # `kind` and `private` are properties, not ClassVars: a ClassVar in a dataclass is taken
    # for a field once compiled with mypyc (see bench/compile.py).
    @property
    def kind(self) -> str:
        return "event"

    @property
    def private(self) -> tuple[str, ...]:
        """The fields another seat sees blanked."""
        return ()

    def for_seat(self, seat: int | None) -> Event:
        """The copy `seat` may see (None = an observer who sees no concealed tile)."""
        if not self.private or getattr(self, "seat", None) == seat:
            return self
        return dataclasses.replace(self, **{name: None for name in self.private})

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = [_plain(v) for v in value]
        return {"kind": self.kind, **data}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A hand begins. `commitment`: the SHA-256 (hex) of the hand's seed, which `HandEnded`
    reveals; None for a preset wall (test mode), which no seed made."""

    variant: str
    dealer: int
    dice: Dice
    wall_size: int
    # not part of the pinned digests of seeded hands (tests/rules/test_determinism.py)
    commitment: str | None = field(default=None, repr=False)

    @property
    def kind(self) -> str:
        return "hand_started"


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    seat: int
    count: int
    tiles: tuple[Tile, ...] | None

    @property
    def kind(self) -> str:
        return "dealt"

    @property
    def private(self) -> tuple[str, ...]:
        return ("tiles",)


@dataclass(frozen=True, slots=True)
class WildTurned(Event):
    """The wild indicator is turned up (财神 / 百搭 / 金)."""

    dice: Dice | None
    indicator: Tile
    wild: Tile
    substitute: Tile | None

    @property
    def kind(self) -> str:
        return "wild_turned"


@dataclass(frozen=True, slots=True)
class Decided(Event):
    """A decision before the deal (温州 买底 / 顶底), public."""

    seat: int
    choice: str

    @property
    def kind(self) -> str:
        return "decided"


@dataclass(frozen=True, slots=True)
class Flowered(Event):
    """补花: a flower laid out face up (its replacement comes as a `Drew` from the tail)."""

    seat: int
    tile: Tile

    @property
    def kind(self) -> str:
        return "flowered"


@dataclass(frozen=True, slots=True)
class Drew(Event):
    seat: int
    from_tail: bool
    tile: Tile | None

    @property
    def kind(self) -> str:
        return "drew"

    @property
    def private(self) -> tuple[str, ...]:
        return ("tile",)


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    seat: int
    tile: Tile
    wild: bool

    @property
    def kind(self) -> str:
        return "discarded"


@dataclass(frozen=True, slots=True)
class Melded(Event):
    """吃, 碰, 明杠, 暗杠 or 加杠. Another seat sees no tile of a concealed kong."""

    seat: int
    meld: str
    tiles: tuple[Tile, ...] | None
    claimed: Tile | None = None
    from_seat: int | None = None

    @property
    def kind(self) -> str:
        return "melded"

    def for_seat(self, seat: int | None) -> Event:
        if self.meld == "concealed_kong" and seat != self.seat:
            return dataclasses.replace(self, tiles=None)
        return self


@dataclass(frozen=True, slots=True)
class Penalized(Event):
    """A penalty that settles with the hand: 被跟 (followed), 误打财神 (wild discarded)."""

    seat: int
    reason: str
    tile: Tile | None = None

    @property
    def kind(self) -> str:
        return "penalized"


@dataclass(frozen=True, slots=True)
class GoldRobbed(Event):
    """福州 抢金: `seat` takes the turned 金 (`tile`) into its hand and wins."""

    seat: int
    tile: Tile

    @property
    def kind(self) -> str:
        return "gold_robbed"


@dataclass(frozen=True, slots=True)
class Won(Event):
    seat: int
    from_seat: int | None
    tile: Tile | None
    self_draw: bool
    robbed_kong: bool
    hand: tuple[Tile, ...]
    specials: tuple[str, ...]
    multiplier: int

    @property
    def kind(self) -> str:
        return "won"


@dataclass(frozen=True, slots=True)
class ExhaustiveDraw(Event):
    """流局 / 荒牌: the wall is used up and nobody won."""

    @property
    def kind(self) -> str:
        return "exhaustive_draw"


@dataclass(frozen=True, slots=True)
class Escaped(Event):
    seat: int

    @property
    def kind(self) -> str:
        return "escaped"


@dataclass(frozen=True, slots=True)
class SeatPenalty:
    """Silver a seat paid with the hand that is none of its transfers (RULES.md 1 and 7: the
    third disconnect in 24 hours, `disconnect_penalty`), divided among the other seats."""

    seat: int
    reason: str
    silver: int


@dataclass(frozen=True, slots=True)
class TransferRecord:
    payer: int
    payee: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """The end of a hand: every seat's tiles revealed (concealed tiles in `hands`, with a
    winner's winning tile; declared sets in `melds`; flowers in `flowers`), the settlement
    in points, and each win explained (`scores`, in the order of `winners`)."""

    outcome: str
    winners: tuple[int, ...]
    hands: tuple[tuple[Tile, ...], ...]
    transfers: tuple[TransferRecord, ...]
    net: tuple[int, ...]
    house: tuple[int, ...] = field(default=(0, 0, 0, 0))
    house_silver: tuple[int, ...] = field(default=(0, 0, 0, 0))
    # derived from the hand's melded and flowered events and its wins, so not part of the
    # pinned digests of seeded hands (tests/rules/test_determinism.py)
    melds: tuple[tuple[MeldRecord, ...], ...] = field(default=((), (), (), ()), repr=False)
    flowers: tuple[tuple[Tile, ...], ...] = field(default=((), (), (), ()), repr=False)
    scores: tuple[ScoreSheet, ...] = field(default=(), repr=False)
    # the hand's seed in hex (None: a preset wall), shown only now that the hand is over
    seed: str | None = field(default=None, repr=False)
    # the silver each seat's balance moved by, as the ledger stored it: set by the table
    # once the hand is stored (None before, and in self-play)
    silver: tuple[int, ...] | None = field(default=None, repr=False)
    # the penalties charged with the hand apart from its transfers (a disconnect's): set by
    # the table with `silver`
    penalties: tuple[SeatPenalty, ...] = field(default=(), repr=False)

    @property
    def kind(self) -> str:
        return "hand_ended"

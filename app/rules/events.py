"""What happens in a hand, as a stream of immutable events.

Some events carry tiles only their own seat may see (the deal, a draw, the tile of a
concealed kong). `for_seat` gives the copy a seat is allowed to receive: the private fields
of another seat's event are blanked. `kind` names each event on the wire.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from app.rules.tiles import Tile
from app.rules.wall import Dice


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"
    private: ClassVar[tuple[str, ...]] = ()

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
        return dataclasses.asdict(value)
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    kind: ClassVar[str] = "hand_started"
    variant: str
    dealer: int
    dice: Dice
    wall_size: int


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    kind: ClassVar[str] = "dealt"
    private: ClassVar[tuple[str, ...]] = ("tiles",)
    seat: int
    count: int
    tiles: tuple[Tile, ...] | None


@dataclass(frozen=True, slots=True)
class WildTurned(Event):
    """The wild indicator is turned up (财神 / 百搭 / 金)."""

    kind: ClassVar[str] = "wild_turned"
    dice: Dice | None
    indicator: Tile
    wild: Tile
    substitute: Tile | None


@dataclass(frozen=True, slots=True)
class Decided(Event):
    """A decision before the deal (温州 买底 / 顶底), public."""

    kind: ClassVar[str] = "decided"
    seat: int
    choice: str


@dataclass(frozen=True, slots=True)
class Flowered(Event):
    """补花: a flower laid out face up (its replacement comes as a `Drew` from the tail)."""

    kind: ClassVar[str] = "flowered"
    seat: int
    tile: Tile


@dataclass(frozen=True, slots=True)
class Drew(Event):
    kind: ClassVar[str] = "drew"
    private: ClassVar[tuple[str, ...]] = ("tile",)
    seat: int
    from_tail: bool
    tile: Tile | None


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    kind: ClassVar[str] = "discarded"
    seat: int
    tile: Tile
    wild: bool


@dataclass(frozen=True, slots=True)
class Melded(Event):
    """吃, 碰, 明杠, 暗杠 or 加杠. Another seat sees no tile of a concealed kong."""

    kind: ClassVar[str] = "melded"
    seat: int
    meld: str
    tiles: tuple[Tile, ...] | None
    claimed: Tile | None = None
    from_seat: int | None = None

    def for_seat(self, seat: int | None) -> Event:
        if self.meld == "concealed_kong" and seat != self.seat:
            return dataclasses.replace(self, tiles=None)
        return self


@dataclass(frozen=True, slots=True)
class Penalized(Event):
    """A penalty that settles with the hand: 被跟 (followed), 误打财神 (wild discarded)."""

    kind: ClassVar[str] = "penalized"
    seat: int
    reason: str
    tile: Tile | None = None


@dataclass(frozen=True, slots=True)
class GoldRobbed(Event):
    """福州 抢金: `seat` takes the turned 金 (`tile`) into its hand and wins."""

    kind: ClassVar[str] = "gold_robbed"
    seat: int
    tile: Tile


@dataclass(frozen=True, slots=True)
class Won(Event):
    kind: ClassVar[str] = "won"
    seat: int
    from_seat: int | None
    tile: Tile | None
    self_draw: bool
    robbed_kong: bool
    hand: tuple[Tile, ...]
    specials: tuple[str, ...]
    multiplier: int


@dataclass(frozen=True, slots=True)
class ExhaustiveDraw(Event):
    """流局 / 荒牌: the wall is used up and nobody won."""

    kind: ClassVar[str] = "exhaustive_draw"


@dataclass(frozen=True, slots=True)
class Escaped(Event):
    kind: ClassVar[str] = "escaped"
    seat: int


@dataclass(frozen=True, slots=True)
class TransferRecord:
    payer: int
    payee: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """The end of a hand: every hand revealed, the settlement in points."""

    kind: ClassVar[str] = "hand_ended"
    outcome: str
    winners: tuple[int, ...]
    hands: tuple[tuple[Tile, ...], ...]
    transfers: tuple[TransferRecord, ...]
    net: tuple[int, ...]
    house: tuple[int, ...] = field(default=(0, 0, 0, 0))
    house_silver: tuple[int, ...] = field(default=(0, 0, 0, 0))

"""What a seat can do in a hand: small immutable values, one class per action.

Tiles in actions are physical tile kinds (what the player sees: a 白板 is 5z even where it
plays as the wild's face).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.rules.tiles import Tile


@dataclass(frozen=True, slots=True)
class Discard:
    """出牌: discard one tile from the hand."""

    seat: int
    tile: Tile
    type: Literal["discard"] = "discard"


@dataclass(frozen=True, slots=True)
class Chow:
    """吃: take the previous seat's discard into a run; `low` is the run's lowest tile as it
    plays (the choice of run)."""

    seat: int
    low: Tile
    type: Literal["chow"] = "chow"


@dataclass(frozen=True, slots=True)
class Pung:
    """碰: take a discard with a pair from the hand."""

    seat: int
    type: Literal["pung"] = "pung"


@dataclass(frozen=True, slots=True)
class ExposedKong:
    """明杠: take a discard with three alike from the hand."""

    seat: int
    type: Literal["exposed_kong"] = "exposed_kong"


@dataclass(frozen=True, slots=True)
class ConcealedKong:
    """暗杠: four alike from the hand, on one's own turn."""

    seat: int
    tile: Tile
    type: Literal["concealed_kong"] = "concealed_kong"


@dataclass(frozen=True, slots=True)
class AddedKong:
    """加杠 (上杠): add the fourth tile to one's own 碰, on one's own turn."""

    seat: int
    tile: Tile
    type: Literal["added_kong"] = "added_kong"


@dataclass(frozen=True, slots=True)
class Hu:
    """胡: declare a win (self-drawn on one's turn, or on the tile in a claim window)."""

    seat: int
    type: Literal["hu"] = "hu"


@dataclass(frozen=True, slots=True)
class Pass:
    """过: decline every claim in the open window."""

    seat: int
    type: Literal["pass"] = "pass"


@dataclass(frozen=True, slots=True)
class Decide:
    """A decision before the deal, among the options the variant offers (温州 买底 / 顶底:
    "buy", "counter", "decline")."""

    seat: int
    choice: str
    type: Literal["decide"] = "decide"


@dataclass(frozen=True, slots=True)
class Special:
    """A variant's own action, by name, with the tile it concerns (福州 抢金: discard `tile`
    and take the turned 金)."""

    seat: int
    name: str
    tile: Tile
    type: Literal["special"] = "special"


@dataclass(frozen=True, slots=True)
class Escape:
    """逃跑: leave during the hand. Always accepted; never offered by `legal_actions`."""

    seat: int
    type: Literal["escape"] = "escape"


Action = (
    Discard | Chow | Pung | ExposedKong | ConcealedKong | AddedKong | Hu | Pass | Decide | Special
    | Escape
)

CLAIMS = (Chow, Pung, ExposedKong, Hu, Pass)

"""What happened in a hand, as sent to one seat: one payload model per core event kind.

Tiles are codes. Private fields (the tiles of a deal, of a draw, of a concealed kong) are
null in the copy another seat receives: `for_seat` blanks them in the core, and
`seat_payload` is the one call the server uses so that no caller can forget it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from app.protocol.base import SeatNumber, WireModel
from app.protocol.tiles import TileCode, to_code
from app.rules.events import Event

Dice = tuple[int, int]
MeldKind = Literal["chow", "pung", "exposed_kong", "concealed_kong", "added_kong"]


class HandStartedPayload(WireModel):
    """A hand (盘) begins: the variant, the dealer (庄家) and the dice."""

    kind: Literal["hand_started"] = "hand_started"
    variant: str
    dealer: SeatNumber
    dice: Dice
    wall_size: int


class DealtPayload(WireModel):
    """A seat's dealt hand; `tiles` is null unless it is the receiver's own."""

    kind: Literal["dealt"] = "dealt"
    seat: SeatNumber
    count: int
    tiles: list[TileCode] | None


class WildTurnedPayload(WireModel):
    """The wild (财神 / 百搭 / 金) is shown: the turned `indicator`, the `wild` kind, and the
    `substitute` that plays as the wild's face (白板 in 丽水 and 温州), if any."""

    kind: Literal["wild_turned"] = "wild_turned"
    dice: Dice | None
    indicator: TileCode
    wild: TileCode
    substitute: TileCode | None


class DecidedPayload(WireModel):
    """A decision before the deal (温州 买底 / 顶底), public."""

    kind: Literal["decided"] = "decided"
    seat: SeatNumber
    choice: str


class FloweredPayload(WireModel):
    """补花: a flower laid out face up; its replacement arrives as a ``drew`` from the tail."""

    kind: Literal["flowered"] = "flowered"
    seat: SeatNumber
    tile: TileCode


class DrewPayload(WireModel):
    """A draw; `tile` is null unless it is the receiver's own."""

    kind: Literal["drew"] = "drew"
    seat: SeatNumber
    from_tail: bool
    tile: TileCode | None


class DiscardedPayload(WireModel):
    """出牌; `wild` is true when the tile is the wild (丽水 误打财神)."""

    kind: Literal["discarded"] = "discarded"
    seat: SeatNumber
    tile: TileCode
    wild: bool


class MeldedPayload(WireModel):
    """吃, 碰, 明杠, 暗杠 or 加杠; another seat's 暗杠 shows no tiles (`tiles` null)."""

    kind: Literal["melded"] = "melded"
    seat: SeatNumber
    meld: MeldKind
    tiles: list[TileCode] | None
    claimed: TileCode | None = None
    from_seat: SeatNumber | None = None


class PenalizedPayload(WireModel):
    """A penalty settled with the hand: 被跟 ("followed"), 误打财神 ("wild_discard")."""

    kind: Literal["penalized"] = "penalized"
    seat: SeatNumber
    reason: str
    tile: TileCode | None = None


class GoldRobbedPayload(WireModel):
    """福州 抢金: `seat` takes the turned 金 and wins."""

    kind: Literal["gold_robbed"] = "gold_robbed"
    seat: SeatNumber
    tile: TileCode


class WonPayload(WireModel):
    """胡: the winner's hand, the specials and the multiplier."""

    kind: Literal["won"] = "won"
    seat: SeatNumber
    from_seat: SeatNumber | None
    tile: TileCode | None
    self_draw: bool
    robbed_kong: bool
    hand: list[TileCode]
    specials: list[str]
    multiplier: int


class ExhaustiveDrawPayload(WireModel):
    """流局 / 荒牌: the wall is used up and nobody won."""

    kind: Literal["exhaustive_draw"] = "exhaustive_draw"


class EscapedPayload(WireModel):
    """逃跑: `seat` left during the hand, which ends at once."""

    kind: Literal["escaped"] = "escaped"
    seat: SeatNumber


class TransferPayload(WireModel):
    """Points moving from `payer` to `payee` for `reason`."""

    payer: SeatNumber
    payee: SeatNumber
    points: int
    reason: str


class RevealedMeld(WireModel):
    """A seat's declared set as revealed at the end of a hand (a 暗杠's tiles too)."""

    meld: MeldKind
    tiles: list[TileCode]
    claimed: TileCode | None = None
    from_seat: SeatNumber | None = None


class HandEndedPayload(WireModel):
    """The end of a hand: every seat's tiles revealed, per seat: `hands` its concealed
    tiles (a winner's with its winning tile), `melds` its declared sets, `flowers` its
    flowers; the settlement in points (`net` per seat)."""

    kind: Literal["hand_ended"] = "hand_ended"
    outcome: str
    winners: list[SeatNumber]
    hands: list[list[TileCode]]
    transfers: list[TransferPayload]
    net: list[int]
    house: list[int]
    house_silver: list[int]
    melds: list[list[RevealedMeld]]
    flowers: list[list[TileCode]]


EventPayload = Annotated[
    HandStartedPayload
    | DealtPayload
    | WildTurnedPayload
    | DecidedPayload
    | FloweredPayload
    | DrewPayload
    | DiscardedPayload
    | MeldedPayload
    | PenalizedPayload
    | GoldRobbedPayload
    | WonPayload
    | ExhaustiveDrawPayload
    | EscapedPayload
    | HandEndedPayload,
    Field(discriminator="kind"),
]
EVENT_PAYLOAD: TypeAdapter[EventPayload] = TypeAdapter(EventPayload)

# The fields of each event kind that hold tiles (a tile, a list of tiles, or lists of them).
_TILE_FIELDS: dict[str, tuple[str, ...]] = {
    "dealt": ("tiles",),
    "wild_turned": ("indicator", "wild", "substitute"),
    "flowered": ("tile",),
    "drew": ("tile",),
    "discarded": ("tile",),
    "melded": ("tiles", "claimed"),
    "penalized": ("tile",),
    "gold_robbed": ("tile",),
    "won": ("tile", "hand"),
    "hand_ended": ("hands", "flowers"),
}


def tiles_to_codes(value: Any) -> Any:
    """A tile, a list of tiles or nested lists of them, as codes; None stays None."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [tiles_to_codes(v) for v in value]
    return to_code(value)


def revealed_melds(melds: Any) -> list[list[dict[str, Any]]]:
    """`HandEnded.melds` on the wire: per seat, its sets as `RevealedMeld` fields."""
    return [
        [
            {"meld": m.meld, "tiles": tiles_to_codes(m.tiles),
             "claimed": tiles_to_codes(m.claimed), "from_seat": m.from_seat}
            for m in seat_melds
        ]
        for seat_melds in melds
    ]


def event_payload(event: Event) -> EventPayload:
    """The wire payload of `event` exactly as given: pass the copy a seat may see (see
    `seat_payload`), or a private tile goes out with it."""
    data = event.to_dict()
    for name in _TILE_FIELDS.get(event.kind, ()):
        data[name] = tiles_to_codes(data[name])
    if event.kind == "hand_ended":
        data["melds"] = revealed_melds(event.melds)  # type: ignore[attr-defined]
    return EVENT_PAYLOAD.validate_python(data)


def seat_payload(event: Event, seat: int | None) -> EventPayload:
    """The payload `seat` receives (None = an observer): other seats' private tiles are null."""
    return event_payload(event.for_seat(seat))

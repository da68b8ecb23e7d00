"""What happened in a hand, as sent to one seat: one payload model per core event kind.

Tiles are codes. Private fields (the tiles of a deal, of a draw, of a concealed kong) are
null in the copy another seat receives: `for_seat` blanks them in the core, and
`seat_payload` is the one call the server uses so that no caller can forget it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from app.protocol.base import Commitment, SeatNumber, SeedHex, WireModel
from app.protocol.tiles import TileCode, to_code
from app.protocol.vocabulary import (
    BaseReasonKey,
    Decision,
    GroupShape,
    HuzhouLevel,
    MeldKind,
    Outcome,
    PaymentTermKey,
    PenaltyReason,
    ScoreItemKey,
    ScoreItemKind,
    ScoreRule,
    Special,
    TransferReason,
    Variant,
)
from app.rules.events import Event
from app.rules.tiles import tile_code

Dice = Annotated[tuple[int, int], Field(description="two dice, each 1-6")]


class HandStartedPayload(WireModel):
    """A hand (盘) begins: the variant, the dealer (庄家), the dice, and the commitment to
    the hand's secret seed (revealed by `hand_ended`). The first event of every hand."""

    kind: Literal["hand_started"] = "hand_started"
    variant: Variant
    """the variant the table plays"""
    dealer: SeatNumber
    """the dealer (庄家) of this hand"""
    dice: Dice
    """the dice thrown to break the wall"""
    wall_size: int = Field(ge=0)
    """the number of tiles in the wall before the deal (136, or 144 with flowers)"""
    commitment: Commitment | None
    """the lowercase hex SHA-256 of the hand's secret seed bytes, which `hand_ended`
    reveals (`seed`): with it anyone can recompute the wall and the dice and check them
    (docs/protocol.md, "Verifying a hand"); null when an administrator's test mode deals a
    prepared wall, which no seed made (nothing to verify)"""


class DealtPayload(WireModel):
    """A seat's dealt hand, one event per seat."""

    kind: Literal["dealt"] = "dealt"
    seat: SeatNumber
    """the seat dealt to"""
    count: int = Field(ge=0)
    """how many tiles it was dealt (the dealer one more)"""
    tiles: list[TileCode] | None
    """the tiles, in the receiver's own copy only; null for another seat"""


class WildTurnedPayload(WireModel):
    """The wild (财神 / 百搭 / 金) is shown: the turned `indicator`, the `wild` kind, and the
    `substitute` that plays as the wild's face (白板 in 丽水 and 温州), if any."""

    kind: Literal["wild_turned"] = "wild_turned"
    dice: Dice | None
    """the dice thrown to find the indicator, where the variant throws them; else null"""
    indicator: TileCode
    """the tile turned face up"""
    wild: TileCode
    """the kind of tile that is wild in this hand"""
    substitute: TileCode | None
    """the tile that plays as the wild's face (白板), or null"""


class DecidedPayload(WireModel):
    """A decision before the deal (温州 买底 / 顶底), public."""

    kind: Literal["decided"] = "decided"
    seat: SeatNumber
    """the seat that decided"""
    choice: Decision
    """what it chose"""


class FloweredPayload(WireModel):
    """补花: a flower laid out face up; its replacement arrives as a ``drew`` from the tail
    (福州's turned 金 is also announced by `wild_turned`)."""

    kind: Literal["flowered"] = "flowered"
    seat: SeatNumber
    """the seat that laid the flower out"""
    tile: TileCode
    """the flower (or, in 福州, an honour that counts as one)"""


class DrewPayload(WireModel):
    """A draw; `tile` is null unless it is the receiver's own."""

    kind: Literal["drew"] = "drew"
    seat: SeatNumber
    """the seat that drew"""
    from_tail: bool
    """true for a replacement from the tail (after a kong or a flower)"""
    tile: TileCode | None
    """the tile, in the drawer's own copy only; null for another seat"""


class DiscardedPayload(WireModel):
    """出牌: a tile discarded; a claim window may follow (each offered seat gets a prompt)."""

    kind: Literal["discarded"] = "discarded"
    seat: SeatNumber
    """the seat that discarded"""
    tile: TileCode
    """the discarded tile"""
    wild: bool
    """true when the tile is the wild (丽水 误打财神, a penalty)"""


class MeldedPayload(WireModel):
    """吃, 碰, 明杠, 暗杠 or 加杠; another seat's 暗杠 shows no tiles (`tiles` null)."""

    kind: Literal["melded"] = "melded"
    seat: SeatNumber
    """the seat that declared the set"""
    meld: MeldKind
    """which set"""
    tiles: list[TileCode] | None
    """the set's tiles as they lie (a 加杠: all four); null for another seat's 暗杠"""
    claimed: TileCode | None = None
    """the discard taken into the set (吃, 碰, 明杠), or the tile added (加杠); else null"""
    from_seat: SeatNumber | None = None
    """the seat whose discard was taken; null for 暗杠 and 加杠"""


class PenalizedPayload(WireModel):
    """A penalty settled with the hand: 被跟 ("followed"), 误打财神 ("wild_discard")."""

    kind: Literal["penalized"] = "penalized"
    seat: SeatNumber
    """the seat that pays"""
    reason: PenaltyReason
    """why"""
    tile: TileCode | None = None
    """the tile concerned (the followed tile, the discarded wild), or null"""


class GoldRobbedPayload(WireModel):
    """福州 抢金: `seat` takes the turned 金 and wins."""

    kind: Literal["gold_robbed"] = "gold_robbed"
    seat: SeatNumber
    """the seat that robs the gold"""
    tile: TileCode
    """the turned 金, which joins its hand (the tile put out for it came as a `discarded`)"""


class WonPayload(WireModel):
    """胡: the winner's hand, its specials and its multiplier. With several winners (上海
    一炮多响) one `won` per winner, nearest the discarder first."""

    kind: Literal["won"] = "won"
    seat: SeatNumber
    """the winner"""
    from_seat: SeatNumber | None
    """the seat whose discard (or added kong tile) was won on; null: 自摸 (self-drawn)"""
    tile: TileCode | None
    """the winning tile (福州 抢金: the turned 金); null when no tile completed it (a dealt 天胡, 福州 三金倒)"""
    self_draw: bool
    """自摸: the winner drew the winning tile (福州 抢金 and 三金倒 count as 自摸)"""
    robbed_kong: bool
    """抢杠: the tile was robbed from another seat's 加杠"""
    hand: list[TileCode]
    """the winner's concealed tiles, the winning tile included (not its melds)"""
    specials: list[Special]
    """the named specials (番种) the win scored, highest first; empty for a plain win"""
    multiplier: int = Field(ge=0)
    """what the specials make of the base, by the variant's rule (docs/rules.md): 丽水 the
    sum of the specials' multipliers (1 or 2 for a plain win); 温州 the highest multiplier
    (1 soft, 2 hard, 4...); 湖州 the product of its doublings (2^n); 福州 the special's
    multiple of the base (1: no special); 上海 what each paying seat pays: the hand's value
    in 花 (喇 x 20, or 花 x 2^番, capped) x 3 for 抢杠, x 2 in a 荒番 hand. The
    `hand_ended` event's `scores` explain it item by item"""


class ExhaustiveDrawPayload(WireModel):
    """流局 / 荒牌: the wall is used up and nobody won."""

    kind: Literal["exhaustive_draw"] = "exhaustive_draw"


class EscapedPayload(WireModel):
    """逃跑: `seat` left during the hand, which ends at once."""

    kind: Literal["escaped"] = "escaped"
    seat: SeatNumber
    """the seat that left"""


class TransferPayload(WireModel):
    """Points moving from `payer` to `payee` for `reason`."""

    payer: SeatNumber
    """the seat that pays"""
    payee: SeatNumber
    """the seat that receives"""
    points: int = Field(ge=0)
    """how many points (silver = points x the table's stake)"""
    reason: TransferReason
    """why"""


class RevealedMeld(WireModel):
    """A seat's declared set as revealed at the end of a hand (a 暗杠's tiles too)."""

    meld: MeldKind
    """which set"""
    tiles: list[TileCode]
    """its tiles as they lie"""
    claimed: TileCode | None = None
    """the discard taken into the set, or the tile added to a 加杠; else null"""
    from_seat: SeatNumber | None = None
    """the seat whose discard was taken; null for 暗杠 and 加杠"""


class ScoreItem(WireModel):
    """One named item of a win (番种, 花, 番, 喇 ...) and its value."""

    key: ScoreItemKey
    """the item, a stable key"""
    name: str
    """its Chinese name as the variant calls it (清一色, 拉杠和, 花 ...)"""
    value: int = Field(ge=0)
    """what it is worth in all, in the unit `kind` names (3 flowers: 3)"""
    kind: ScoreItemKind
    """what kind of value it is, and so how it enters the total"""
    count: int = Field(ge=0)
    """how many things it counts (3 flowers, 2 暗杠; the 荒番 count; 1 for a named hand)"""
    counted: bool
    """false when a higher item took its place where only the highest counts (温州, 福州
    specials, 上海 喇): listed, not in the total"""


class BaseReason(WireModel):
    """Why the base is what it is: a key, and the numbers it depends on (null where the key
    does not use them)."""

    key: BaseReasonKey
    """the rule that set the base"""
    streak: int | None = Field(ge=0)
    """the dealer's consecutive wins before this hand (丽水 牢庄, 福州 连庄); else null"""
    deal_count: int | None = Field(ge=1)
    """温州: k, the dealer's consecutive deals, this hand included (1-4); else null"""
    level: HuzhouLevel | None
    """湖州: the level whose base score is the base; else null"""
    seat: SeatNumber | None
    """湖州: the seat at that level (the lowest at the table); else null"""


class PaymentTerm(WireModel):
    """One part of a payment's formula, worth `value` x `times`."""

    key: PaymentTermKey
    """what the part is"""
    value: int = Field(ge=0)
    """its value"""
    times: int = Field(ge=0)
    """what the value is multiplied by: 1, but the base for a 福州 special's multiple and 2
    for the 花分 in a 福州 special's value"""


class ScorePayment(WireModel):
    """One payment of a win, with its formula: ``points = (sum of value x times over terms)
    x (product of the factors' values)``, cut to `cap` if the cap is not null. Each is one of
    the hand's `transfers` (same payer, reason and points; the winner is the payee)."""

    payer: SeatNumber
    """the seat that pays"""
    share_of: SeatNumber
    """the seat whose share this is: the payer, unless another seat pays it for it (丽水 统包,
    a robbed kong)"""
    reason: TransferReason
    """why, as in the transfer"""
    terms: list[PaymentTerm]
    """the parts added up (the base, 买底, 顶底, 花分, 犯枪's point ...)"""
    factors: list[PaymentTerm]
    """what their sum is multiplied by (the total, a share, 放冲 double, 荒番 ...); empty: x1"""
    points: int = Field(ge=0)
    """the points paid"""
    cap: int | None = Field(ge=0)
    """福州 封顶: the loss cap per seat (100 x base) when it cut this payment (the payer's
    earlier payments in the hand count against it); else null"""


class TileGroup(WireModel):
    """A group of the winner's concealed tiles in the reading that scored."""

    shape: GroupShape
    """what the group is"""
    tiles: list[TileCode]
    """its tiles as held (a wild shows as itself)"""
    plays_as: list[TileCode]
    """what each tile plays as, in the same order: a wild, the tile it stands for; 白板,
    the 财神's face; any other tile, itself"""


class ScoreSheet(WireModel):
    """One win explained: the base and why, the named items and their values, the total
    they make by the variant's rule (docs/rules.md), every payment with its formula, and the
    winner's whole hand: its concealed tiles grouped as the reading that scored, its melds,
    flowers and the winning tile."""

    seat: SeatNumber
    """the winner"""
    base: int = Field(ge=0)
    """the base (底) of the win (湖州 the level's base score; 上海 1: values are in 花)"""
    base_reason: BaseReason
    """why the base is what it is"""
    items: list[ScoreItem]
    """the named items, in the order the variant lists them (the won event's `specials`
    are among them)"""
    rule: ScoreRule
    """how the items combine into `total`"""
    total: int = Field(ge=0)
    """what the items make by `rule`: 丽水 温州 湖州 the multiplier (the won event's
    `multiplier`); 福州 the hand's value at `base` (base + 花分, or special x base + 2 x
    花分); 上海 the hand's value in 花, before 抢杠 and 荒番"""
    cap: int | None = Field(ge=0)
    """上海: the cap (1 喇 = 20) when it cut the total; else null"""
    payments: list[ScorePayment]
    """every payment of this win, with its formula"""
    groups: list[TileGroup]
    """the winner's concealed tiles, the winning tile included, grouped as the reading that
    scored (pair first, then the sets)"""
    melds: list[RevealedMeld]
    """the winner's declared sets"""
    flowers: list[TileCode]
    """the winner's flowers"""
    winning_tile: TileCode | None
    """the tile that completed the hand (null when none did: a dealt 天胡, an instant win
    with the deal)"""


class PenaltyPayload(WireModel):
    """A penalty charged with the hand apart from its transfers, in silver (银两)."""

    seat: SeatNumber
    """the seat that paid"""
    reason: Literal["disconnect_penalty"]
    """why: the seat was still away (断线) at the end of the hand, a third disconnect in 24
    hours"""
    silver: int = Field(ge=0)
    """the silver it paid (the balance floor may have cut it), divided among the others"""


class HandEndedPayload(WireModel):
    """The end of a hand: every seat's tiles revealed and the settlement in points. Sent
    once the hand's record and silver are stored (see `settling` in `table_state`). Lists
    of four are by seat."""

    kind: Literal["hand_ended"] = "hand_ended"
    outcome: Outcome
    """how the hand ended"""
    winners: list[SeatNumber]
    """the winning seats (empty unless `outcome` is win), nearest the discarder first"""
    hands: list[list[TileCode]] = Field(min_length=4, max_length=4)
    """per seat, its concealed tiles (a winner's with its winning tile, every winner's of
    一炮多响); not its melds or flowers"""
    transfers: list[TransferPayload]
    """every payment between seats, in points"""
    net: list[int] = Field(min_length=4, max_length=4)
    """per seat, points won (+) or lost (-): the transfers plus `house`; a seat's silver
    moves by net x stake + `house_silver`, less what the balance floor kept back (`silver`)"""
    house: list[int] = Field(min_length=4, max_length=4)
    """per seat, points paid by the house rather than by a seat (in points, like `net`, and
    included in it; no variant pays any today)"""
    house_silver: list[int] = Field(min_length=4, max_length=4)
    """per seat, silver (银两, not points: not multiplied by the stake) paid by the house (湖州
    起手四财神: 500000)"""
    silver: list[int] | None = Field(default=None, min_length=4, max_length=4)
    """per seat, the silver its balance moved by with this hand, as stored in the ledger:
    net x stake + `house_silver`, unless the balance floor (nobody ends below 0) made a seat
    pay less than it owed and so its creditors receive less (RULES.md 1). Null only where
    nothing was stored (a replay's copy of the event)"""
    penalties: list[PenaltyPayload] = Field(default_factory=list)
    """silver charged with the hand that is none of its `transfers` and not in `silver`:
    a seat still away (断线) when the hand ended, on its third disconnect in 24 hours, pays
    2 x its base x stake to the other seats (RULES.md 1); empty when none was"""
    melds: list[list[RevealedMeld]] = Field(min_length=4, max_length=4)
    """per seat, its declared sets, 暗杠 tiles shown"""
    flowers: list[list[TileCode]] = Field(min_length=4, max_length=4)
    """per seat, the flowers it laid out"""
    scores: list[ScoreSheet]
    """each win explained, in the order of `winners` (empty unless `outcome` is win)"""
    seed: SeedHex | None
    """the hand's seed bytes in lowercase hex, revealed now that the hand is over:
    ``sha256(bytes.fromhex(seed)).hexdigest()`` is `hand_started`'s `commitment`, and the
    seed gives the wall and the dice (docs/protocol.md, "Verifying a hand"); null for a
    test-mode hand dealt from a prepared wall"""


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
    if isinstance(value, (list, tuple)):  # mostly a list of tiles: no call per tile
        return [tile_code(v) if type(v) is int else tiles_to_codes(v) for v in value]
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


def score_sheets(sheets: Any) -> list[dict[str, Any]]:
    """`HandEnded.scores` on the wire: each `ScoreSheet` as plain data, tiles as codes."""
    return [
        {
            "seat": sheet.seat,
            "base": sheet.base,
            "base_reason": _fields(sheet.base_reason, _BASE_REASON_FIELDS),
            "items": [_fields(i, _ITEM_FIELDS) for i in sheet.items],
            "rule": sheet.rule,
            "total": sheet.total,
            "cap": sheet.cap,
            "payments": [
                {
                    "payer": p.payer, "share_of": p.share_of, "reason": p.reason,
                    "terms": [_fields(t, _TERM_FIELDS) for t in p.terms],
                    "factors": [_fields(t, _TERM_FIELDS) for t in p.factors],
                    "points": p.points, "cap": p.cap,
                }
                for p in sheet.payments
            ],
            "groups": [
                {"shape": g.shape, "tiles": tiles_to_codes(g.tiles),
                 "plays_as": tiles_to_codes(g.plays_as)}
                for g in sheet.groups
            ],
            "melds": revealed_melds([sheet.melds])[0],
            "flowers": tiles_to_codes(sheet.flowers),
            "winning_tile": tiles_to_codes(sheet.winning_tile),
        }
        for sheet in sheets
    ]


_ITEM_FIELDS = tuple(ScoreItem.model_fields)
_BASE_REASON_FIELDS = tuple(BaseReason.model_fields)
_TERM_FIELDS = tuple(PaymentTerm.model_fields)


def _fields(value: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(value, name) for name in names}


def event_payload(event: Event) -> EventPayload:
    """The wire payload of `event` exactly as given: pass the copy a seat may see (see
    `seat_payload`), or a private tile goes out with it."""
    data = event.to_dict()
    for name in _TILE_FIELDS.get(event.kind, ()):
        data[name] = tiles_to_codes(data[name])
    if event.kind == "hand_ended":
        data["melds"] = revealed_melds(event.melds)  # type: ignore[attr-defined]
        data["scores"] = score_sheets(event.scores)  # type: ignore[attr-defined]
    return EVENT_PAYLOAD.validate_python(data)


def seat_payload(event: Event, seat: int | None) -> EventPayload:
    """The payload `seat` receives (None = an observer): other seats' private tiles are null."""
    return event_payload(event.for_seat(seat))

"""Where every tile of a hand being verified is: what the procedure knows of each variant
(`Layout`), the deal, and the rebuilt wall, hands, sets, flowers and river with the moves
that take tiles from them (`Tiles`), down to the comparison with what `hand_ended` reveals
(docs/protocol.md, "Verifying a hand").

`app.rules.verify_play` decides who may move which tile when; this module only keeps the
count. Like the rest of the verifier, it imports the standard library and
`app.rules.tiles` only, so that the procedure stays one another implementation can follow
from the document.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.rules.tiles import TileError, parse_one, tile_code

IndicatorRule = Literal["none", "tail_dice_sum", "tail_low_die_x2", "front", "tail_past_flowers"]
WildRule = Literal["none", "itself", "itself_white_plays_face", "next"]
WHITE = 31  # 5z 白板
MeldKey = tuple[str, tuple[int, ...], int | None, int | None]


@dataclass(frozen=True, slots=True)
class Layout:
    """What the procedure needs to know of a variant (the variants' defaults; a test keeps
    these equal to the rules core's)."""

    hand_size: int  # tiles dealt to each seat; the dealer gets one more
    with_flowers: bool  # 144 tiles: the 8 flowers after the 136
    indicator: IndicatorRule  # where the wild's indicator is turned
    flower_kinds: frozenset[int] = frozenset()  # kinds laid out (补花) and skipped by 开金
    wild: WildRule = "none"  # which kind the indicator makes wild (`wild_of`)
    final_round: bool = False  # 福州: the last drawable tiles are drawn with no discard


HONOURS_AND_FLOWERS = frozenset(range(27, 42))
LAYOUTS: dict[str, Layout] = {
    "lishui": Layout(13, False, "tail_dice_sum", wild="itself_white_plays_face"),
    "wenzhou": Layout(16, False, "tail_low_die_x2", wild="itself_white_plays_face"),
    "huzhou": Layout(13, False, "front", wild="next"),
    "fuzhou": Layout(16, True, "tail_past_flowers", HONOURS_AND_FLOWERS, "itself", True),
    "shanghai": Layout(13, True, "none", frozenset(range(34, 42))),
}


class Mismatch(Exception):
    """The first thing the transcript shows that the rebuilt hand does not (a sentence)."""


class Unfollowable(Exception):
    """The transcript cannot be followed further without its end (another seat's 暗杠 is
    shown only by `hand_ended`)."""


def dealt_positions(dealer: int, hand_size: int) -> list[list[int]]:
    """Per seat, the wall indexes it is dealt from the front: rounds of four tiles to each
    seat from the dealer in turn order (dealer, dealer + 1, ... mod 4) while four more fit
    in `hand_size`, then rounds of one, then one more tile to the dealer."""
    hands: list[list[int]] = [[] for _ in range(4)]
    pos = held = 0
    while held < hand_size:
        take = 4 if hand_size - held >= 4 else 1
        for i in range(4):
            seat = (dealer + i) % 4
            hands[seat] += range(pos, pos + take)
            pos += take
        held += take
    hands[dealer].append(pos)
    return hands


def wild_of(rule: WildRule, indicator: int) -> tuple[int | None, int | None]:
    """The wild kind and its substitute (the tile that plays as the wild's face) that an
    indicator makes: 丽水 温州 the indicator's kind, 白板 playing as its face (none when the
    indicator is 白板); 福州 the indicator's kind; 湖州 the next kind: same rank in the next
    suit (m -> p -> s -> m), the next wind (东 南 西 北 东), the next dragon (中 发 白 中)."""
    if rule == "none":
        return None, None
    if rule == "next":
        if indicator < 27:
            return (indicator + 9) % 27, None
        if indicator <= 30:
            return 27 + (indicator - 26) % 4, None
        return {33: 32, 32: 31, 31: 33}[indicator], None
    substitute = WHITE if rule == "itself_white_plays_face" and indicator != WHITE else None
    return indicator, substitute


def tile_of(code: object, what: str) -> int:
    """A tile code of the transcript as a kind (0-41), or `Mismatch` naming `what`."""
    try:
        if not isinstance(code, str):
            raise TileError(repr(code))
        return parse_one(code)
    except TileError:
        raise Mismatch(f"{what} is not a tile: {code!r}") from None


def seat_of(value: object, what: str) -> int:
    if type(value) is not int or not 0 <= value < 4:
        raise Mismatch(f"{what} names no seat: {value!r}")
    return value


def listed(value: object) -> list[Any]:
    """A transcript's value where a list belongs, as a list: nothing for null, false or 0,
    a lone value for another scalar (a tampered `dice: 5` is a mismatch, not a crash)."""
    if not value:
        return []
    if isinstance(value, str | list | tuple | dict):
        return list(value)
    return [value]


def sorted_codes(tiles: Iterable[int]) -> str:
    return " ".join(tile_code(t) for t in sorted(tiles)) or "nothing"


def code_or_null(tile: int | None) -> str | None:
    return None if tile is None else tile_code(tile)


def code_or_none(tile: int | None) -> str:
    return "none" if tile is None else tile_code(tile)


@dataclass(slots=True)
class RebuiltMeld:
    """A declared set as the replay made it (the fields of `hand_ended.melds`)."""

    kind: str
    tiles: tuple[int, ...]
    claimed: int | None = None
    from_seat: int | None = None

    def key(self) -> MeldKey:
        return self.kind, tuple(sorted(self.tiles)), self.claimed, self.from_seat


class Tiles:
    """Every tile of the hand: the wall still to draw (`wall[head:]`; index 0 the front,
    the last the tail), per seat its concealed tiles (`hands`: counts of kinds 0-41), its
    sets (`melds`) and flowers (`flowers`), and the river (`river`: [seat, tile, claimed]
    per discard). `wild` and `substitute` are the kinds the turned indicator made wild and
    playing as the wild's face (None before, or in a variant without a wild)."""

    def __init__(self, wall: Sequence[int]) -> None:
        self.wall = list(wall)
        self.head = 0
        self.hands = [[0] * 42 for _ in range(4)]
        self.melds: list[list[RebuiltMeld]] = [[], [], [], []]
        self.flowers: list[list[int]] = [[], [], [], []]
        self.river: list[list[Any]] = []
        self.extra: list[list[int]] = [[], [], [], []]  # 一炮多响: the tile other winners show
        self.wild: int | None = None
        self.substitute: int | None = None

    def deal(self, dealer: int, hand_size: int) -> None:
        for seat, where in enumerate(dealt_positions(dealer, hand_size)):
            for i in where:
                self.hands[seat][self.wall[i]] += 1
        self.head = 4 * hand_size + 1

    def front(self, what: str) -> int:
        """The next tile at the front, taken."""
        if self.head >= len(self.wall):
            raise Mismatch(f"{what}: the wall is empty")
        self.head += 1
        return self.wall[self.head - 1]

    def tail(self, what: str) -> int:
        """The tile at the tail, taken."""
        if len(self.wall) <= self.head:
            raise Mismatch(f"no tile left in the wall for {what}")
        return self.wall.pop()

    def take(self, seat: int, tiles: list[int], what: str) -> None:
        """`tiles` out of the seat's hand, which must hold them all."""
        hand = self.hands[seat]
        if any(hand[t] < tiles.count(t) for t in tiles):
            raise Mismatch(f"{what} needs {sorted_codes(tiles)} from the hand, but seat {seat} "
                           f"holds {self.held(seat)}")
        for t in tiles:
            hand[t] -= 1

    def held(self, seat: int) -> str:
        return sorted_codes(t for t in range(42) for _ in range(self.hands[seat][t]))

    def pung_of(self, seat: int, tile: int, what: str) -> RebuiltMeld:
        """The seat's 碰 of `tile`, which a 加杠 adds to (and a 抢杠 robs)."""
        for meld in self.melds[seat]:
            if meld.kind == "pung" and set(meld.tiles) == {tile}:
                return meld
        raise Mismatch(f"{what}: seat {seat} has no 碰 of {tile_code(tile)} to add to")

    def check_shape(self, kind: str, tiles: list[int], what: str) -> None:
        """A 碰 is three alike, a 杠 four alike, a 吃 three in a row of one suit (白板 playing
        as the wild's face); no set holds the wild."""
        if self.wild is not None and self.wild in tiles:
            raise Mismatch(f"{what} ({sorted_codes(tiles)}) uses the wild")
        size = 3 if kind in ("chow", "pung") else 4
        if len(tiles) != size:
            raise Mismatch(f"{what} has {len(tiles)} tiles: {sorted_codes(tiles)}")
        if kind == "chow":
            wild, sub = self.wild, self.substitute
            plays = sorted(wild if t == sub and wild is not None else t for t in tiles)
            low = plays[0]
            ok = plays[2] < 27 and low // 9 == plays[2] // 9 and plays == [low, low + 1, low + 2]
        else:
            ok = len(set(tiles)) == 1
        if not ok:
            raise Mismatch(f"{what} is not a {kind}: {sorted_codes(tiles)}")

    # --- the end ---------------------------------------------------------------------

    def revealed(self, seat: int) -> list[int]:
        """The seat's concealed tiles as the end shows them (一炮多响: every winner's with the
        winning tile)."""
        return sorted([t for t in range(42) for _ in range(self.hands[seat][t])]
                      + self.extra[seat])

    def check_revealed(self, seat: int, codes: object, what: str) -> None:
        """A hand the transcript shows (a won event's, hand_ended's) against `revealed`."""
        if not isinstance(codes, list):
            raise Mismatch(f"seat {seat}'s {what} is not a list of tiles: {codes!r}")
        shown = sorted(tile_of(c, f"a tile of seat {seat}'s {what}") for c in codes)
        if shown != self.revealed(seat):
            raise Mismatch(f"seat {seat}'s {what}: the wall and the events leave it "
                           f"{sorted_codes(self.revealed(seat))}, the transcript shows "
                           f"{sorted_codes(shown)}")

    def check_end(self, ended: Mapping[str, Any]) -> None:
        """`hand_ended`'s hands, sets and flowers against the rebuilt ones, seat by seat
        (each compared as a multiset: their order is the server's)."""
        hands, melds, flowers = (ended.get(k) for k in ("hands", "melds", "flowers"))
        for name, value in (("hands", hands), ("melds", melds), ("flowers", flowers)):
            if not isinstance(value, list) or len(value) != 4:
                raise Mismatch(f"hand_ended's {name} are not four lists")
        assert isinstance(hands, list) and isinstance(melds, list) and isinstance(flowers, list)
        for seat in range(4):
            self.check_revealed(seat, hands[seat], "revealed hand")
            shown = [_meld_key(m, seat) for m in listed(melds[seat])]
            rebuilt = [m.key() for m in self.melds[seat]]
            if sorted(shown, key=repr) != sorted(rebuilt, key=repr):
                raise Mismatch(f"seat {seat}'s revealed sets: the events made "
                               f"{_sets(rebuilt)}, hand_ended shows {_sets(shown)}")
            laid = [tile_of(c, f"seat {seat}'s flower") for c in listed(flowers[seat])]
            if sorted(laid) != sorted(self.flowers[seat]):
                raise Mismatch(f"seat {seat}'s flowers: the events laid out "
                               f"{sorted_codes(self.flowers[seat])}, hand_ended shows "
                               f"{sorted_codes(laid)}")


def _meld_key(meld: object, seat: int) -> MeldKey:
    if not isinstance(meld, Mapping) or not isinstance(meld.get("tiles"), list):
        raise Mismatch(f"seat {seat}'s revealed set is not a set: {meld!r}")
    tiles = tuple(sorted(tile_of(c, f"seat {seat}'s set") for c in meld["tiles"]))
    claimed = meld.get("claimed")
    return (str(meld.get("meld")), tiles,
            None if claimed is None else tile_of(claimed, f"seat {seat}'s claimed tile"),
            meld.get("from_seat"))


def _sets(melds: Iterable[MeldKey]) -> str:
    return "; ".join(f"{kind} {sorted_codes(tiles)}" for kind, tiles, _, _ in melds) or "none"

"""The whole hand replayed over its wall: the deal, every draw, the wild's indicator, then
each recorded event in order, checked against who may move now and what the seats hold at
that moment, down to what `hand_ended` reveals (docs/protocol.md, "Verifying a hand").

`app.rules.verify` makes the wall from the revealed seed and feeds the hand's events to a
`HandReplay` one by one; the first event that does not fit raises `Mismatch`. The replay
knows every tile (the seed made the wall; `app.rules.verify_tiles` keeps the count), so a
seat's own transcript, where the other seats' deals and draws are null, is checked as fully
as an administrator's: each hidden draw is the wall's next tile, and each discard, claim,
kong and win must use tiles the rebuilt hand holds, in turn.

What is checked is where the tiles go and who moves them, not the rules' judgement: not
whether a hand that won is a winning hand, whether a seat chose a legal discard (温州's
honours first), where a reserve at the tail makes the wall end, nor the scores. Like the
rest of the verifier, this module imports the standard library and `app.rules.tiles` only,
so that the procedure stays one another implementation can follow from the document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.tiles import tile_code
from app.rules.verify_tiles import (
    Layout,
    Mismatch,
    RebuiltMeld,
    Tiles,
    Unfollowable,
    code_or_none,
    code_or_null,
    listed,
    seat_of,
    sorted_codes,
    tile_of,
    wild_of,
)

Dice = tuple[int, int]
CLAIMS = ("chow", "pung", "exposed_kong")


class HandReplay:
    """The hand as its events move the wall's tiles. `feed` takes the events after
    `hand_started`, in order, and raises `Mismatch` at the first that does not fit.

    What it holds, which a test compares with the rules core's state at every step: the
    tiles (`tiles`: wall, hands, sets, flowers, river, wild), `to_play` (the seat that
    holds a tile more and must act), `owed` (the seat owed a replacement from the tail
    after its kong or flower) and `discard` (the last discard while it may be claimed)."""

    def __init__(
        self,
        layout: Layout,
        wall: Sequence[int],
        wild_dice: Dice,
        dealer: int,
        ended: Mapping[str, Any] | None = None,
    ) -> None:
        self.layout = layout
        self.tiles = Tiles(wall)
        self.wild_dice = wild_dice
        self.dealer = dealer
        self.ended = ended  # the hand's end, when known: it shows other seats' 暗杠
        self.dealt = [False] * 4
        self.to_play: int | None = None
        self.owed: int | None = None
        self.discard: tuple[int, int] | None = None  # the last discard, while claimable
        self.drew_front = False  # `to_play` drew from the front and has done nothing since
        self.acted = False  # the first move after the deal was made
        self.last_drawn: list[int | None] = [None] * 4
        self.indicator: int | None = None
        self.gold: int | None = None  # the seat that took the turned 金 (福州 抢金)
        self.over: str | None = None  # win, draw, escape
        self.wins: list[int] = []
        self.win_claim: tuple[int | None, int | None, bool] | None = None
        self.concealed_kongs = [0] * 4
        self.compared_dealt = 0
        self.compared_draws = 0
        self.draw_count = [0] * 4

    # --- following the events --------------------------------------------------------

    def feed(self, event: Mapping[str, Any]) -> None:
        kind = event.get("kind")
        if self.over is not None and kind not in ("won", "hand_ended"):
            raise Mismatch(f"a {kind} event after the hand's end ({self.over})")
        if kind == "hand_ended":
            self.end(event)
            return
        handler = _HANDLERS.get(str(kind))
        if handler is not None:
            handler(self, event)
        # decided, penalized and kinds this procedure does not know move no tile

    def _dealt(self, event: Mapping[str, Any]) -> None:
        if self.acted or self.indicator is not None:
            raise Mismatch("a dealt event after the deal")
        if not any(self.dealt):
            self.tiles.deal(self.dealer, self.layout.hand_size)
        seat = seat_of(event.get("seat"), "a dealt event")
        if self.dealt[seat]:
            raise Mismatch(f"seat {seat} is dealt twice")
        self.dealt[seat] = True
        want = [t for t in range(42) for _ in range(self.tiles.hands[seat][t])]
        if event.get("count") != len(want):
            raise Mismatch(f"seat {seat} is dealt {len(want)} tiles, the transcript says "
                           f"{event.get('count')}")
        tiles = event.get("tiles")
        if tiles is not None:
            if not isinstance(tiles, list):
                raise Mismatch(f"seat {seat}'s dealt tiles are not a list: {tiles!r}")
            shown = [tile_of(c, f"seat {seat}'s dealt tile") for c in tiles]
            if sorted(shown) != want:
                raise Mismatch(f"seat {seat}'s dealt tiles: the seed deals {sorted_codes(want)}, "
                               f"the transcript has {sorted_codes(shown)}")
            self.compared_dealt += len(shown)
        if all(self.dealt):
            self.to_play = self.dealer

    def _flowered(self, event: Mapping[str, Any]) -> None:
        seat = seat_of(event.get("seat"), "a flowered event")
        tile = tile_of(event.get("tile"), f"seat {seat}'s flower")
        self._require_dealt()
        if tile not in self.layout.flower_kinds:
            raise Mismatch(f"seat {seat} lays out {tile_code(tile)}, which is no flower here")
        if self.owed is not None:
            raise Mismatch(f"seat {seat} lays out {tile_code(tile)} while {self._waiting()}")
        if self.tiles.hands[seat][tile]:
            self.tiles.hands[seat][tile] -= 1
            self.owed = seat
        elif (self.layout.indicator == "tail_past_flowers" and self.indicator is None
              and seat == self.dealer):
            # 开金: a flower turned at the tail goes to the dealer, and the next is turned
            turned = self.tiles.tail(f"the flower turned for the dealer, {tile_code(tile)}")
            if turned != tile:
                raise Mismatch(f"the tile turned at the tail for the wild is "
                               f"{tile_code(turned)}, the transcript lays out {tile_code(tile)} "
                               f"for the dealer")
        else:
            raise Mismatch(f"seat {seat} lays out {tile_code(tile)}, which it does not hold "
                           f"(it holds {self.tiles.held(seat)})")
        self.tiles.flowers[seat].append(tile)

    def _wild_turned(self, event: Mapping[str, Any]) -> None:
        self._require_dealt()
        if self.acted or self.indicator is not None:
            raise Mismatch("the wild is turned after the hand's first move, or twice")
        if self.layout.indicator == "none":
            raise Mismatch("this variant turns no wild")
        if self.owed is not None:
            raise Mismatch(f"the wild is turned while {self._waiting()}")
        indicator = self._turn_indicator(event)
        shown = tile_of(event.get("indicator"), "the wild's indicator")
        if shown != indicator:
            raise Mismatch(f"the wild's indicator: the seed turns {tile_code(indicator)}, the "
                           f"transcript has {tile_code(shown)}")
        self.indicator = indicator
        wild, substitute = self.tiles.wild, self.tiles.substitute = wild_of(self.layout.wild,
                                                                            indicator)
        said = event.get("wild"), event.get("substitute")
        if said != (code_or_null(wild), code_or_null(substitute)):
            raise Mismatch(f"the indicator {tile_code(indicator)} makes {code_or_none(wild)} "
                           f"wild and {code_or_none(substitute)} its substitute, the "
                           f"transcript says {said[0]} and {said[1]}")

    def _turn_indicator(self, event: Mapping[str, Any]) -> int:
        rule = self.layout.indicator
        if rule in ("tail_dice_sum", "tail_low_die_x2"):
            if listed(event.get("dice")) != list(self.wild_dice):
                raise Mismatch(f"the wild's dice: the seed rolls {list(self.wild_dice)}, the "
                               f"transcript shows {event.get('dice')}")
            a, b = self.wild_dice
            n = a + b if rule == "tail_dice_sum" else 2 * min(a, b)
            index = len(self.tiles.wall) - n
            if index < self.tiles.head:
                raise Mismatch("the wild's indicator lies outside the wall")
            return self.tiles.wall.pop(index)
        if rule == "front":
            return self.tiles.front("the wild's indicator")
        tile = self.tiles.tail("the wild's indicator")
        if tile in self.layout.flower_kinds:
            raise Mismatch(f"the tile turned at the tail is {tile_code(tile)}, a flower: it goes "
                           f"to the dealer (a flowered event) and the next one is turned")
        return tile

    def _drew(self, event: Mapping[str, Any]) -> None:
        seat = seat_of(event.get("seat"), "a drew event")
        self._require_dealt()
        from_tail = event.get("from_tail")
        if from_tail is True:
            if self.owed != seat:
                raise Mismatch(f"seat {seat} draws from the tail, but no kong or flower of its "
                               f"asks for a replacement ({self._waiting()})")
            self.owed = None
            tile = self.tiles.tail(f"seat {seat}'s replacement")
        elif from_tail is False:
            self._require_move(f"seat {seat} draws from the front")
            prev = (seat - 1) % 4
            if self.discard is not None and self.discard[0] == prev and self.owed is None:
                self.discard = None
            elif not (self.layout.final_round and self.drew_front and self.to_play == prev):
                raise Mismatch(f"seat {seat} draws from the front out of turn, while "
                               f"{self._waiting()}")
            self.owed = None  # 福州's final round: a flower drawn there is not replaced
            tile = self.tiles.front(f"seat {seat} draws from the front")
            self.to_play = seat
            self.drew_front = True
        else:
            raise Mismatch(f"seat {seat}'s draw says neither front nor tail: {from_tail!r}")
        self.draw_count[seat] += 1
        code = event.get("tile")
        if code is not None:
            if tile_of(code, f"seat {seat}'s draw") != tile:
                where = "the tail" if from_tail else "the front"
                raise Mismatch(f"seat {seat}'s draw {self.draw_count[seat]} from {where}: the "
                               f"seed gives {tile_code(tile)}, the transcript has {code}")
            self.compared_draws += 1
        self.tiles.hands[seat][tile] += 1
        self.last_drawn[seat] = tile

    def _discarded(self, event: Mapping[str, Any]) -> None:
        seat = seat_of(event.get("seat"), "a discarded event")
        tile = tile_of(event.get("tile"), f"seat {seat}'s discard")
        self._require_turn(seat, f"seat {seat} discards {tile_code(tile)}")
        if not self.tiles.hands[seat][tile]:
            raise Mismatch(f"seat {seat} discards {tile_code(tile)}, which it does not hold "
                           f"(it holds {self.tiles.held(seat)})")
        if event.get("wild") is not (tile == self.tiles.wild):
            raise Mismatch(f"seat {seat}'s discard {tile_code(tile)} is marked wild: "
                           f"{event.get('wild')!r}, the wild is {code_or_none(self.tiles.wild)}")
        self.tiles.hands[seat][tile] -= 1
        self.tiles.river.append([seat, tile, False])
        self.discard = (seat, tile)
        self.to_play = None
        self.drew_front = False

    def _melded(self, event: Mapping[str, Any]) -> None:
        seat = seat_of(event.get("seat"), "a melded event")
        kind = event.get("meld")
        tiles = event.get("tiles")
        if tiles is not None and not isinstance(tiles, list):
            raise Mismatch(f"seat {seat}'s set is not a list of tiles: {tiles!r}")
        shown = None if tiles is None else [tile_of(c, f"seat {seat}'s set") for c in tiles]
        if kind in CLAIMS:
            self._claim(seat, str(kind), shown, event)
        elif kind == "concealed_kong":
            self._concealed_kong(seat, shown)
        elif kind == "added_kong":
            self._added_kong(seat, shown, event)
        else:
            raise Mismatch(f"seat {seat} declares an unknown set: {kind!r}")
        self.drew_front = False

    def _claim(
        self, seat: int, kind: str, tiles: list[int] | None, event: Mapping[str, Any]
    ) -> None:
        what = f"seat {seat}'s {kind}"
        self._require_move(what)
        if self.discard is None or self.owed is not None:
            raise Mismatch(f"{what} claims no discard: {self._waiting()}")
        by, tile = self.discard
        claimed = tile_of(event.get("claimed"), f"the tile of {what}")
        if event.get("from_seat") != by or claimed != tile:
            raise Mismatch(f"{what} claims {tile_code(claimed)} from seat "
                           f"{event.get('from_seat')}, but the last discard is seat {by}'s "
                           f"{tile_code(tile)}")
        if seat == by or (kind == "chow" and seat != (by + 1) % 4):
            raise Mismatch(f"{what}: seat {seat} may not claim seat {by}'s discard that way")
        if tile == self.tiles.wild:
            raise Mismatch(f"{what} claims a discarded wild ({tile_code(tile)}), which is dead")
        if tiles is None:
            raise Mismatch(f"{what} shows no tiles")
        self.tiles.check_shape(kind, tiles, what)
        if tile not in tiles:
            raise Mismatch(f"{what} ({sorted_codes(tiles)}) does not hold the claimed "
                           f"{tile_code(tile)}")
        rest = list(tiles)
        rest.remove(tile)
        self.tiles.take(seat, rest, what)
        self.tiles.river[-1][2] = True
        self.discard = None
        self.tiles.melds[seat].append(RebuiltMeld(kind, tuple(tiles), tile, by))
        self.to_play = seat
        if kind == "exposed_kong":
            self.owed = seat

    def _concealed_kong(self, seat: int, tiles: list[int] | None) -> None:
        what = f"seat {seat}'s concealed kong"
        self._require_turn(seat, what)
        if tiles is None:
            tiles = self._hidden_kong(seat)
        self.tiles.check_shape("concealed_kong", tiles, what)
        self.tiles.take(seat, tiles, what)
        self.concealed_kongs[seat] += 1
        self.tiles.melds[seat].append(RebuiltMeld("concealed_kong", tuple(tiles)))
        self.owed = seat

    def _hidden_kong(self, seat: int) -> list[int]:
        """Another seat's 暗杠, whose tiles this transcript shows only at the end: the seat's
        n-th concealed kong in `hand_ended.melds` (or, without the end, the only four alike
        the seat holds)."""
        n = self.concealed_kongs[seat]
        if self.ended is not None:
            melds = self.ended.get("melds")
            mine = melds[seat] if isinstance(melds, list) and len(melds) == 4 else None
            kongs = [m for m in listed(mine) if isinstance(m, Mapping)
                     and m.get("meld") == "concealed_kong"]
            if n >= len(kongs) or not isinstance(kongs[n].get("tiles"), list):
                raise Mismatch(f"seat {seat}'s concealed kong {n + 1} is not among the sets "
                               f"hand_ended reveals")
            return [tile_of(c, f"seat {seat}'s concealed kong") for c in kongs[n]["tiles"]]
        hand = self.tiles.hands[seat]
        fours = [t for t in range(34) if hand[t] == 4 and t != self.tiles.wild]
        if len(fours) != 1:
            raise Unfollowable(f"seat {seat}'s concealed kong is hidden until the hand's end")
        return [fours[0]] * 4

    def _added_kong(self, seat: int, tiles: list[int] | None, event: Mapping[str, Any]) -> None:
        what = f"seat {seat}'s added kong"
        self._require_turn(seat, what)
        added = tile_of(event.get("claimed"), f"the tile of {what}")
        pung = self.tiles.pung_of(seat, added, what)
        if tiles is None or sorted(tiles) != sorted([*pung.tiles, added]):
            raise Mismatch(f"{what} shows {sorted_codes(tiles or ())}, its 碰 and the added tile "
                           f"make {sorted_codes([*pung.tiles, added])}")
        self.tiles.take(seat, [added], what)
        i = self.tiles.melds[seat].index(pung)
        self.tiles.melds[seat][i] = RebuiltMeld("added_kong", tuple(tiles), pung.claimed,
                                                pung.from_seat)
        self.owed = seat

    def _gold_robbed(self, event: Mapping[str, Any]) -> None:
        seat = seat_of(event.get("seat"), "a gold_robbed event")
        tile = tile_of(event.get("tile"), "the robbed 金")
        if self.layout.indicator != "tail_past_flowers" or self.indicator is None:
            raise Mismatch("a 金 is robbed where none was turned")
        if self.discard is None or self.gold is not None:
            raise Mismatch(f"seat {seat} robs the 金 but no tile was put out for it just before")
        if tile != self.indicator:
            raise Mismatch(f"seat {seat} robs {tile_code(tile)}, the turned 金 is "
                           f"{tile_code(self.indicator)}")
        self.discard = None  # the tile put out is not claimed: the hand ends
        self.tiles.hands[seat][tile] += 1
        self.gold = seat
        self.to_play = seat

    def _won(self, event: Mapping[str, Any]) -> None:
        seat = seat_of(event.get("seat"), "a won event")
        from_seat = event.get("from_seat")
        code = event.get("tile")
        tile = None if code is None else tile_of(code, f"seat {seat}'s winning tile")
        robbed = event.get("robbed_kong") is True
        if event.get("self_draw") is not (from_seat is None):
            raise Mismatch(f"seat {seat}'s win says self_draw {event.get('self_draw')!r} and "
                           f"from_seat {from_seat!r}")
        what = f"seat {seat}'s win"
        if seat in self.wins:
            raise Mismatch(f"seat {seat} wins twice")
        if self.over is not None:
            if self.over != "win" or self.win_claim != (from_seat, tile, robbed) \
                    or from_seat is None:
                raise Mismatch(f"{what} after the hand's end ({self.over}), on another tile")
            if tile is not None:
                self.tiles.extra[seat].append(tile)
        elif from_seat is None:
            self._self_drawn(seat, tile, what)
        else:
            self._won_on(seat, seat_of(from_seat, what), tile, robbed, what)
        self.over = "win"
        self.win_claim = (from_seat, tile, robbed)
        self.wins.append(seat)
        self.tiles.check_revealed(seat, event.get("hand"), f"{what}'s hand")

    def _self_drawn(self, seat: int, tile: int | None, what: str) -> None:
        if self.gold is not None:
            if seat != self.gold or tile != self.indicator:
                raise Mismatch(f"{what}: seat {self.gold} robbed the 金 "
                               f"{tile_code(self.indicator or 0)}")
            return
        with_the_deal = not self.acted
        self._require_move(what)
        if with_the_deal:  # an instant win with the dealt hands, any seat's
            if tile is not None:
                raise Mismatch(f"{what} with the deal names a winning tile {tile_code(tile)}")
            return
        if seat != self.to_play:
            raise Mismatch(f"{what} by self-draw while {self._waiting()}")
        if tile is not None and tile != self.last_drawn[seat]:
            raise Mismatch(f"{what}: its winning tile {tile_code(tile)} is not its latest draw "
                           f"({code_or_none(self.last_drawn[seat])})")

    def _won_on(self, seat: int, by: int, tile: int | None, robbed: bool, what: str) -> None:
        if tile is None or seat == by:
            raise Mismatch(f"{what} from seat {by} names no tile, or its own")
        if robbed:  # 抢杠: the tile seat `by` added to its 碰, declared with no event
            self._require_turn(by, f"{what}, robbing seat {by}'s added kong")
            self.tiles.pung_of(by, tile, what)
            self.tiles.take(by, [tile], f"seat {by}'s added kong")
        else:
            self._require_move(what)
            if self.discard != (by, tile) or self.owed is not None:
                raise Mismatch(f"{what} on seat {by}'s {tile_code(tile)}, while "
                               f"{self._waiting()}")
            if tile == self.tiles.wild:
                raise Mismatch(f"{what} on a discarded wild ({tile_code(tile)}), which is dead")
            self.tiles.river[-1][2] = True
            self.discard = None
        self.tiles.hands[seat][tile] += 1

    def _exhaustive_draw(self, event: Mapping[str, Any]) -> None:
        self._require_dealt()
        if not (self.discard is not None or self.owed is not None
                or (self.layout.final_round and self.drew_front)):
            raise Mismatch(f"the hand is drawn (流局) while {self._waiting()}")
        self.discard = None
        self.over = "draw"

    def _escaped(self, event: Mapping[str, Any]) -> None:
        seat_of(event.get("seat"), "an escaped event")
        self.discard = None
        self.over = "escape"

    # --- the end ---------------------------------------------------------------------

    def end(self, ended: Mapping[str, Any]) -> None:
        """Check `hand_ended` against the rebuilt hand: the outcome, the winners, and every
        seat's revealed tiles, sets and flowers."""
        if self.over is None:
            raise Mismatch(f"hand_ended comes while {self._waiting()}")
        if ended.get("outcome") != self.over:
            raise Mismatch(f"hand_ended says {ended.get('outcome')!r}, the events end in "
                           f"{self.over!r}")
        if ended.get("winners") != self.wins:
            raise Mismatch(f"hand_ended's winners are {ended.get('winners')}, the won events' "
                           f"{self.wins}")
        self.tiles.check_end(ended)

    # --- the checks every move shares --------------------------------------------------

    def _require_dealt(self) -> None:
        missing = [s for s in range(4) if not self.dealt[s]]
        if missing:
            raise Mismatch(f"the deal is not complete: no dealt event for seat "
                           f"{', '.join(map(str, missing))}")

    def _require_move(self, what: str) -> None:
        """A move of the play (not the deal's 补花): the deal is done, the wild turned, and
        no seat keeps a flower."""
        self._require_dealt()
        if self.layout.indicator != "none" and self.indicator is None:
            raise Mismatch(f"{what} before the wild is turned")
        for seat in range(4):
            held = [t for t in self.layout.flower_kinds if self.tiles.hands[seat][t]]
            if held:
                raise Mismatch(f"{what} while seat {seat} keeps the flower "
                               f"{sorted_codes(held)} (a flower is laid out at once)")
        self.acted = True

    def _require_turn(self, seat: int, what: str) -> None:
        self._require_move(what)
        if self.to_play != seat or self.owed is not None or self.discard is not None:
            raise Mismatch(f"{what} out of turn, while {self._waiting()}")

    def _waiting(self) -> str:
        """What the hand waits for, for a mismatch's sentence."""
        if self.over is not None:
            return f"the hand is over ({self.over})"
        if not all(self.dealt):
            return "the deal is not complete"
        if self.owed is not None:
            return f"seat {self.owed} is owed a replacement from the tail"
        if self.discard is not None:
            by, tile = self.discard
            return (f"seat {by}'s discard {tile_code(tile)} may be claimed, or seat "
                    f"{(by + 1) % 4} draws")
        if self.to_play is not None:
            return f"seat {self.to_play} is to play"
        return "nobody is to play"



_HANDLERS = {
    "dealt": HandReplay._dealt,
    "flowered": HandReplay._flowered,
    "wild_turned": HandReplay._wild_turned,
    "drew": HandReplay._drew,
    "discarded": HandReplay._discarded,
    "melded": HandReplay._melded,
    "gold_robbed": HandReplay._gold_robbed,
    "won": HandReplay._won,
    "exhaustive_draw": HandReplay._exhaustive_draw,
    "escaped": HandReplay._escaped,
}
FOLLOWED = frozenset(_HANDLERS)  # the event kinds the replay follows (docs/protocol.md, step 8)

"""What a variant is: plain data plus a few pure hooks the hand state machine calls.

The state machine never branches on a variant's name; it asks its `Ruleset`, which it knows
as `HandRules` (app/rules/state.py: the members it asks for, so that it imports no variant).
A new variant is a subclass in a module of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from app.rules.actions import Special
from app.rules.context import Settlement, TableContext, Transfer
from app.rules.events import Event
from app.rules.explain import explain_win
from app.rules.scoring import Appraisal, Payment, Score, ScoreSheet
from app.rules.state import NO_WILD, HandState, WildSetup, WinRecord
from app.rules.tiles import Tile, full_set
from app.rules.wall import Dice, Wall, first_dealer


def win_transfers(ruleset: Ruleset, state: HandState, win: WinRecord) -> list[Transfer]:
    """The transfers of a win: its payments (`Ruleset.payments`), each to the winner."""
    lines = ruleset.payments(state, win, ruleset.appraise(state, win))
    return [Transfer(p.payer, win.seat, p.points, p.reason) for p in lines if p.points]


def split(points: int, payer: int, payees: list[int]) -> list[tuple[int, int]]:
    """Divide `points` among `payees` (RULES.md 1): each gets floor(P/k), the remainder goes one
    point each to the payees following the payer in turn order."""
    if not payees:
        return []
    share, rest = divmod(points, len(payees))
    ordered = sorted(payees, key=lambda s: (s - payer) % 4)
    return [(seat, share + (1 if i < rest else 0)) for i, seat in enumerate(ordered)]


@dataclass(frozen=True)
class Ruleset:
    """Base of every variant. Subclasses set the data fields and override the hooks."""

    name: str = "base"
    hand_size: int = 13
    with_flowers: bool = False
    tail_reserve: int = 0
    multi_win: bool = False  # 一炮多响 instead of 截和
    allow_chow: bool = True
    wild_discard: Literal["allowed", "forbidden"] = "allowed"
    restricts_discards: bool = False  # whether `allowed_discards` is consulted (温州)
    grants_house_rewards: bool = False  # points paid by the house, not by seats (湖州)
    flower_kinds: frozenset[Tile] = frozenset()  # kinds laid out and replaced (补花)
    final_round: int = 0  # the last N drawable tiles: no discard, no 补花 (福州: 4)
    ranks_wins: bool = False  # whether `hu_rank` orders several 胡 on one discard (福州 金雀)
    score_rule: str = ""  # how a win's items make its total (app/rules/scoring.py RULE_TEXTS)
    # The variant's own options (a frozen dataclass of its own; None: `default_options()`).
    # Typed `Any` here and read through each variant's typed `opts`: mypyc (bench/compile.py)
    # does not let a subclass narrow the type of a field.
    options: Any = None

    def __post_init__(self) -> None:
        if self.options is None:
            object.__setattr__(self, "options", self.default_options())

    def default_options(self) -> object:
        """The options of a ruleset made without any."""
        return None

    @property
    def win_depends_on_hand_only(self) -> bool:
        """Whether `can_win` depends on nothing but the concealed counts, the wild count and
        whether the seat has melds, and a tile exchanged for a wild never undoes a win. Then a
        hand that was not ready (听) before a draw cannot win with it, and the state machine
        skips the check (丽水, 湖州, 福州; not 温州, whose 三财神 needs one's own turn, nor
        上海's 天胡 / 杠开). A property, not a ClassVar: see `events.Event`."""
        return False

    def tile_set(self) -> list[Tile]:
        return full_set(with_flowers=self.with_flowers)

    def first_dealer(self, dice: Dice) -> int:
        """The table's first dealer from a roll of the dice (RULES.md 1); 湖州: seat 0."""
        return first_dealer(dice)

    def decisions(self, state: HandState) -> dict[int, tuple[str, ...]]:
        """Before the deal: the seats that must still decide, with their options (温州 买底).
        The hand is dealt once this is empty."""
        return {}

    def reserve(self, state: HandState) -> int:
        """Tiles at the tail kept for replacement draws only; asked after the deal and
        before every replacement draw (福州's reserve grows with kongs)."""
        return self.tail_reserve

    def instant_win(self, state: HandState, seat: int) -> bool:
        """Whether `seat` wins at once, without declaring (湖州 四财神, 福州 三金倒, 上海 八花):
        asked after the deal for every seat and after each of a seat's draws."""
        return False

    def hu_rank(self, state: HandState, seat: int, tile: Tile) -> int:
        """With `ranks_wins`: a higher rank wins a discard before a nearer seat (福州 金雀)."""
        return 0

    def special_actions(self, state: HandState, seat: int) -> list[Special]:
        """A variant's own actions open to the seat in turn (福州 抢金)."""
        return []

    def apply_special(self, state: HandState, action: Special, events: list[Event]) -> WinRecord | None:
        """Apply a special action to `state` (a working copy); a returned win ends the hand."""
        raise NotImplementedError

    def setup_wild(self, wall: Wall, dice: Dice, dealer: int) -> tuple[WildSetup, Wall]:
        """Choose the wild after dealing, with the hand's second roll of the dice; returns the
        wall without the indicator."""
        return NO_WILD, wall

    def indicator_slot(self, dice: Dice) -> tuple[Literal["front", "tail"], int] | None:
        """Where `setup_wild` turns the indicator, for arranged walls (app/rules/scenario.py):
        the n-th tile from the front after the deal, or the n-th from the tail once the
        deal's 补花 has drawn there; None: this variant turns no indicator."""
        return None

    def can_win(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool:
        """Whether `seat`'s concealed part (effective counts, wild count) completes its hand."""
        raise NotImplementedError

    def appraise(self, state: HandState, win: WinRecord) -> Appraisal:
        """The win valued (app/rules/scoring.py): base, items, rule, total, the reading's
        shape. `score` and `settle` are computed from it."""
        raise NotImplementedError

    def score(self, state: HandState, win: WinRecord) -> Score:
        """The win's named specials and multiplier (the `won` event), from `appraise`."""
        raise NotImplementedError

    def payments(self, state: HandState, win: WinRecord, appraisal: Appraisal) -> list[Payment]:
        """Every payment of the win, each with its formula, in the order `settle` makes
        them transfers."""
        raise NotImplementedError

    def explain(self, state: HandState, win: WinRecord) -> ScoreSheet:
        """The win's score sheet: the appraisal, the payments and the hand as read."""
        return explain_win(state, win)

    def allowed_discards(self, state: HandState, seat: int, held: list[Tile]) -> list[Tile]:
        """Which of the held tiles may be discarded now (温州 restricts this)."""
        return held

    def after_discard(self, state: HandState, seat: int, tile: Tile) -> list[Event]:
        """Penalty events a discard causes (the discard is already in `state.river`)."""
        return []

    def settle(self, state: HandState) -> Settlement:
        raise NotImplementedError

    def next_context(self, state: HandState, departed: bool = False) -> TableContext:
        """The context of the next hand at the table, from this finished hand. `departed`:
        a player left the table between this hand's end and the next deal (the account at
        some seat changed); only 湖州's dealer rule asks it (RULES.md 4), every other
        variant ignores it."""
        raise NotImplementedError

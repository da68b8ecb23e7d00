"""The state of one hand (盘) and the values it is made of: what the state machine
(app/rules/hand.py) changes step by step, and what the variants' hooks read.

A `HandState` holds its ruleset, and a ruleset's hooks take a `HandState`. The state knows
its ruleset only as `HandRules`, the facts and hooks the state machine asks of a variant,
declared here; `Ruleset` (app/rules/variants/base.py) has them all. So neither this module
nor the state machine imports a variant, and the variants import this module: the imports
of the rules core go one way (tests/test_layers.py checks that no module is in a cycle).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, Protocol

from app.rules.actions import Action, Special
from app.rules.context import Settlement, TableContext
from app.rules.events import Event
from app.rules.scoring import Appraisal, Payment, Score, ScoreSheet
from app.rules.tiles import NUM_KINDS, Tile, tiles_of
from app.rules.wall import Dice, Wall

Phase = Literal["decide", "turn", "claim", "rob", "ended"]
MeldKind = Literal["chow", "pung", "exposed_kong", "concealed_kong", "added_kong"]
KONGS = ("exposed_kong", "concealed_kong", "added_kong")


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set. `tiles` are physical; `plays_as` is the kind it plays as (a chow's
    lowest tile, or the pung/kong tile), which differs only for 白板 standing for the face."""

    kind: MeldKind
    tiles: tuple[Tile, ...]
    plays_as: Tile
    claimed: Tile | None = None
    from_seat: int | None = None

    @property
    def is_kong(self) -> bool:
        return self.kind in KONGS


class RiverTile(NamedTuple):
    """A discard, in the order of play; `claimed` once another seat took it."""

    seat: int
    tile: Tile
    claimed: bool = False


@dataclass(slots=True)
class ClaimWindow:
    tile: Tile
    discarder: int
    robbing: bool  # a 加杠 being robbed (抢杠), not a discard
    options: dict[int, tuple[Action, ...]]
    answers: dict[int, Action] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WinRecord:
    """A 胡, with the facts scoring needs."""

    seat: int
    from_seat: int | None  # the discarder (犯枪) or the robbed seat; None for 自摸
    tile: Tile | None  # the winning tile (physical); None for a dealt 天胡
    self_draw: bool
    robbed_kong: bool = False
    kong_win: bool = False  # won on a replacement draw (杠上开花)
    dealt_hand: bool = False  # the dealt hand plus at most its first draw (天胡 / 地胡)
    instant: bool = False  # won at once by holding a special set (四财神, 三金倒, 八花 ...)
    special: str | None = None  # won by a variant's special action (福州 抢金)


@dataclass(frozen=True, slots=True)
class WildSetup:
    """The hand's wild tile (财神 / 百搭 / 金) and what plays as its face.

    `wild` is the tile kind whose copies are wild; `substitute` is the kind that plays as an
    ordinary copy of the wild's face (白板 in 丽水 and 温州), or None.
    """

    wild: Tile | None = None
    indicator: Tile | None = None
    substitute: Tile | None = None
    dice: Dice | None = None
    dealer_flowers: tuple[Tile, ...] = ()  # flowers turned before the wild: the dealer's (福州)

    def plays_as(self, tile: Tile) -> Tile | None:
        """The kind a physical tile plays as: None for a wild, the face for its substitute."""
        if tile == self.wild:
            return None
        if tile == self.substitute:
            return self.wild
        return tile


def effective_counts(concealed: Sequence[int], wild: WildSetup) -> tuple[list[int], int]:
    """Concealed tiles (counts of physical kinds) as they play: a 34-count vector with the
    wild's copies taken out and its substitute (白板) counted as the wild's face, and the
    number of wild copies."""
    part = concealed[:NUM_KINDS]
    counts = part if isinstance(part, list) else list(part)  # a list's slice is a copy already
    face, sub = wild.wild, wild.substitute
    if face is None:
        return counts, 0
    wilds = counts[face]
    counts[face] = 0
    if sub is not None:
        counts[face] = counts[sub]
        counts[sub] = 0
    return counts, wilds


def visible_counts(
    concealed: Sequence[int], melds: Sequence[Sequence[Meld]], river: Sequence[RiverTile],
    seat: int,
) -> list[int]:
    """Copies of each physical kind (0-33) `seat` can see: its own concealed tiles, every
    meld shown (another seat's 暗杠 is face down) and the river's unclaimed discards (a
    claimed one is in a meld)."""
    seen = list(concealed[:NUM_KINDS])
    for owner, owned in enumerate(melds):
        for meld in owned:
            if meld.kind == "concealed_kong" and owner != seat:
                continue
            for tile in meld.tiles:
                if tile < NUM_KINDS:
                    seen[tile] += 1
    for discard in river:
        if not discard.claimed and discard.tile < NUM_KINDS:
            seen[discard.tile] += 1
    return seen


NO_WILD = WildSetup()


class HandRules(Protocol):
    """What the state machine asks of its variant: a few facts, and the hooks it calls at
    each point of a hand. `Ruleset` (app/rules/variants/base.py) is one and documents each
    member; mypy checks that it fits wherever a `Ruleset` is given to `new_hand` or
    `replay`. The facts are read-only properties, as a frozen dataclass's fields are."""

    @property
    def name(self) -> str: ...
    @property
    def hand_size(self) -> int: ...
    @property
    def flower_kinds(self) -> frozenset[Tile]: ...
    @property
    def multi_win(self) -> bool: ...
    @property
    def allow_chow(self) -> bool: ...
    @property
    def wild_discard(self) -> Literal["allowed", "forbidden"]: ...
    @property
    def restricts_discards(self) -> bool: ...
    @property
    def final_round(self) -> int: ...
    @property
    def ranks_wins(self) -> bool: ...
    @property
    def win_depends_on_hand_only(self) -> bool: ...

    # before and at the deal
    def tile_set(self) -> list[Tile]: ...
    def decisions(self, state: HandState) -> dict[int, tuple[str, ...]]: ...
    def setup_wild(self, wall: Wall, dice: Dice, dealer: int) -> tuple[WildSetup, Wall]: ...
    def reserve(self, state: HandState) -> int: ...

    # during play
    def instant_win(self, state: HandState, seat: int) -> bool: ...
    def can_win(self, state: HandState, seat: int, counts: list[int], wilds: int) -> bool: ...
    def hu_rank(self, state: HandState, seat: int, tile: Tile) -> int: ...
    def special_actions(self, state: HandState, seat: int) -> list[Special]: ...
    def apply_special(
        self, state: HandState, action: Special, events: list[Event]
    ) -> WinRecord | None: ...
    def allowed_discards(self, state: HandState, seat: int, held: list[Tile]) -> list[Tile]: ...
    def after_discard(self, state: HandState, seat: int, tile: Tile) -> list[Event]: ...

    # at the end
    def appraise(self, state: HandState, win: WinRecord) -> Appraisal: ...
    def score(self, state: HandState, win: WinRecord) -> Score: ...
    def payments(
        self, state: HandState, win: WinRecord, appraisal: Appraisal
    ) -> list[Payment]: ...
    def explain(self, state: HandState, win: WinRecord) -> ScoreSheet: ...
    def settle(self, state: HandState) -> Settlement: ...


@dataclass(slots=True)
class HandState:
    ruleset: HandRules
    ctx: TableContext
    seed: bytes  # the hand's seed (`wall.seed_bytes`); revealed in `HandEnded` at the end
    dice: Dice
    wild: WildSetup
    wall: Wall
    concealed: list[list[int]]  # per seat, counts of physical kinds 0-41
    melds: list[list[Meld]]
    river: list[RiverTile]
    phase: Phase = "turn"
    turn: int = 0
    drawn: Tile | None = None  # what the seat in turn just drew
    from_tail: bool = False
    may_self_win: bool = True
    window: ClaimWindow | None = None
    draws: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    penalties: list[Event] = field(default_factory=list)
    wins: list[WinRecord] = field(default_factory=list)
    escaped: int | None = None
    outcome: str | None = None
    settlement: Settlement | None = None
    steps: int = 0
    # per seat: (a copy of its concealed counts, whether some tile completes them); a cache
    ready_cache: list[tuple[list[int], bool] | None] = field(
        default_factory=lambda: [None, None, None, None], compare=False, repr=False
    )
    flowers: list[list[Tile]] = field(default_factory=lambda: [[], [], [], []])
    decisions: dict[int, str] = field(default_factory=dict)
    wild_dice: Dice = (1, 1)
    arranged: bool = False  # dealt from a `Preset` wall: no seed made it, nothing to verify

    @property
    def dealer(self) -> int:
        return self.ctx.dealer

    def clone(self) -> HandState:
        """A copy `step` may change. Lists the hot path changes in place (hands, river, draw
        counts, the ready cache) are copied; melds, flowers, penalties, wins and decisions
        are shared: they change rarely, and only by replacing the list (copy on write)."""
        window = self.window
        if window is not None:
            window = ClaimWindow(
                window.tile, window.discarder, window.robbing, window.options, dict(window.answers)
            )
        c0, c1, c2, c3 = self.concealed
        new = HandState.__new__(HandState)  # every field set below, without __init__
        new.ruleset = self.ruleset
        new.ctx = self.ctx
        new.seed = self.seed
        new.dice = self.dice
        new.wild = self.wild
        new.wall = self.wall
        new.concealed = [c0[:], c1[:], c2[:], c3[:]]
        new.melds = self.melds[:]
        new.river = self.river[:]
        new.phase = self.phase
        new.turn = self.turn
        new.drawn = self.drawn
        new.from_tail = self.from_tail
        new.may_self_win = self.may_self_win
        new.window = window
        new.draws = self.draws[:]
        new.penalties = self.penalties
        new.wins = self.wins
        new.escaped = self.escaped
        new.outcome = self.outcome
        new.settlement = self.settlement
        new.steps = self.steps
        new.ready_cache = self.ready_cache[:]
        new.flowers = self.flowers[:]
        new.decisions = self.decisions
        new.wild_dice = self.wild_dice
        new.arranged = self.arranged
        return new

    # --- what tiles play as -------------------------------------------------------------

    def plays_as(self, tile: Tile) -> Tile | None:
        """The kind a physical tile plays as: None for a wild, the face for its substitute."""
        return self.wild.plays_as(tile)

    def physical(self, kind: Tile) -> Tile:
        """The physical tile that plays as `kind` (the inverse of `plays_as`)."""
        if kind == self.wild.wild and self.wild.substitute is not None:
            return self.wild.substitute
        return kind

    def effective(self, seat: int) -> tuple[list[int], int]:
        """The seat's concealed tiles as they play: a 34-count vector and the wild count."""
        return effective_counts(self.concealed[seat], self.wild)

    def winning_counts(self, win: WinRecord) -> tuple[list[int], int]:
        """The winner's concealed tiles as they play, the winning tile included (with several
        winners on one discard, only the nearest holds the tile itself)."""
        held_elsewhere = win.tile is not None and bool(self.wins) and win is not self.wins[0]
        return self.effective_with(win.seat, win.tile if held_elsewhere else None)

    def count_playing_as(self, seat: int, kind: Tile) -> int:
        """How many of the seat's concealed tiles play as `kind` (wilds are not counted)."""
        wild = self.wild
        if kind == wild.substitute:
            return 0  # the substitute's own kind: its copies play as the face
        tile = self.physical(kind)
        return 0 if tile == wild.wild else self.concealed[seat][tile]

    def is_ready(self, seat: int) -> bool:
        """听: whether some tile could complete the seat's hand, i.e. the hand plus one wild
        wins (a wild may stand for any tile). A necessary condition for winning on a discard,
        cached by the seat's concealed tiles: it is asked on every discard."""
        hand = self.concealed[seat]
        cached = self.ready_cache[seat]
        if cached is not None and cached[0] == hand:
            return cached[1]
        counts, wilds = self.effective(seat)
        ready = self.ruleset.can_win(self, seat, counts, wilds + 1)
        self.ready_cache[seat] = (hand[:], ready)
        return ready

    def hand_tiles(self, seat: int) -> list[Tile]:
        return tiles_of(self.concealed[seat])

    def effective_with(self, seat: int, tile: Tile | None) -> tuple[list[int], int]:
        """`effective(seat)` with one more physical tile (None: nothing more)."""
        counts, wilds = self.effective(seat)
        if tile is not None:
            kind = self.plays_as(tile)
            if kind is None:
                wilds += 1
            else:
                counts[kind] += 1
        return counts, wilds

    def can_win_with(self, seat: int, tile: Tile | None) -> bool:
        return self.ruleset.can_win(self, seat, *self.effective_with(seat, tile))


@dataclass(frozen=True, slots=True)
class Preset:
    """A fixed wall order and dice instead of the seeded shuffle: for tests and the admin's
    test mode, so that any scenario can be reproduced (see `app.rules.scenario`)."""

    wall: tuple[Tile, ...]
    dice: Dice = (1, 1)
    wild_dice: Dice = (1, 1)

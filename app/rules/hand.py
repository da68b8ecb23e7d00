"""One hand (盘) as a deterministic state machine: ``state, events = step(state, action)``.

The same ruleset, seed, context and action list give the same hand, bit for bit. `step`
refuses an illegal action with `IllegalAction(code)` and leaves the state it was given
untouched (it works on a copy). Draws, replacement draws and the end of the wall happen
inside `step`: the state always waits for a seat's decision, or has ended.

Phases:
- ``decide``: before the deal, seats make the variant's decisions (温州 买底 / 顶底).
- ``turn``: the seat in turn discards, declares 暗杠 / 加杠, or 胡 (自摸).
- ``claim``: after a discard, the seats offered a claim answer (胡 > 碰/杠 > 吃; several 胡:
  the first seat after the discarder, 截和, unless the variant has 一炮多响). The window
  resolves as soon as no answer still to come could change the result.
- ``rob``: after a 加杠, seats that can 胡 on the added tile may rob it (抢杠).
- ``ended``: won, drawn (流局) or escaped; `settlement` holds the points.
"""

from __future__ import annotations

from itertools import compress

from app.rules.actions import (
    Action,
    AddedKong,
    Chow,
    ConcealedKong,
    Decide,
    Discard,
    Escape,
    ExposedKong,
    Hu,
    Pass,
    Pung,
    Special,
)
from app.rules.context import TableContext
from app.rules.errors import IllegalAction
from app.rules.events import (
    Dealt,
    Decided,
    Discarded,
    Drew,
    Escaped,
    Event,
    ExhaustiveDraw,
    Flowered,
    HandEnded,
    HandStarted,
    Melded,
    TransferRecord,
    WildTurned,
    Won,
)
from app.rules.scoring import MeldRecord
from app.rules.state import (
    NO_WILD,
    ClaimWindow,
    HandRules,
    HandState,
    Meld,
    Preset,
    RiverTile,
    WildSetup,
    WinRecord,
)
from app.rules.tiles import NUM_KINDS, Tile
from app.rules.wall import (
    Wall,
    commitment,
    deal,
    hand_rng,
    roll_dice,
    seed_bytes,
    shuffled,
)

# --- starting a hand -------------------------------------------------------------------


def new_hand(
    ruleset: HandRules, seed: int | bytes, ctx: TableContext, preset: Preset | None = None
) -> tuple[HandState, list[Event]]:
    """Shuffle, roll, deal and turn the wild. Every random choice of the hand happens here,
    from `hand_rng(seed)`: the dice, the wall order, then the second roll (docs/protocol.md,
    "Verifying a hand"). `HandStarted` carries the seed's commitment and `HandEnded` the
    seed itself; a preset wall has neither (no seed made it). An int seed stands for its
    8-byte form (`wall.seed_bytes`)."""
    seed = seed_bytes(seed)
    rng = hand_rng(seed)
    dice = roll_dice(rng)
    tiles = shuffled(ruleset.tile_set(), rng)
    wild_dice = roll_dice(rng)
    if preset is not None:
        if sorted(preset.wall) != sorted(ruleset.tile_set()):
            raise ValueError("a preset wall must hold exactly the variant's tile set")
        tiles, dice, wild_dice = tuple(preset.wall), preset.dice, preset.wild_dice
    state = HandState(
        ruleset=ruleset,
        ctx=ctx,
        seed=seed,
        dice=dice,
        wild=NO_WILD,
        wall=Wall.of(tuple(tiles)),
        concealed=[[0] * 42 for _ in range(4)],
        melds=[[], [], [], []],
        river=[],
        phase="decide",
        turn=ctx.dealer,
        wild_dice=wild_dice,
        arranged=preset is not None,
    )
    promise = None if preset is not None else commitment(seed)
    events: list[Event] = [HandStarted(ruleset.name, ctx.dealer, dice, len(tiles), promise)]
    if not ruleset.decisions(state):
        _deal(state, events)
    return state, events


def _deal(state: HandState, events: list[Event]) -> None:
    """Deal, lay out flowers (补花), turn the wild, and give the dealer the first turn."""
    ruleset, dealer = state.ruleset, state.dealer
    dealt, state.wall = deal(state.wall, dealer, ruleset.hand_size)
    for seat, tiles in enumerate(dealt):
        for t in tiles:
            state.concealed[seat][t] += 1
    events += [Dealt(s, len(dealt[s]), tuple(sorted(dealt[s]))) for s in range(4)]
    if ruleset.flower_kinds:
        _flower_rounds(state, events)
    wild, state.wall = ruleset.setup_wild(state.wall, state.wild_dice, dealer)
    state.wild = wild
    for flower in wild.dealer_flowers:
        state.flowers[dealer] = [*state.flowers[dealer], flower]
        events.append(Flowered(dealer, flower))
    if wild.wild is not None and wild.indicator is not None:
        events.append(WildTurned(wild.dice, wild.indicator, wild.wild, wild.substitute))
    state.wall = state.wall.with_reserve(ruleset.reserve(state))
    state.phase = "turn"
    state.turn = dealer
    state.may_self_win = True
    for seat in _from(dealer):
        if ruleset.instant_win(state, seat):
            _win(state, [WinRecord(seat, None, None, True, dealt_hand=True, instant=True)], events)
            return


def _from(seat: int) -> list[int]:
    """Every seat in turn order, starting with `seat`."""
    return [(seat + i) % 4 for i in range(4)]


def _flower_rounds(state: HandState, events: list[Event]) -> None:
    """补花 after the deal: from the dealer in turn, each seat lays out its flowers and draws
    replacements from the tail, round after round until no hand holds a flower."""
    is_flower = state.ruleset.flower_kinds
    while True:
        laid = False
        for seat in _from(state.dealer):
            hand = state.concealed[seat]
            for flower in [t for t in range(42) if hand[t] and t in is_flower]:
                for _ in range(hand[flower]):
                    hand[flower] -= 1
                    state.flowers[seat] = [*state.flowers[seat], flower]
                    events.append(Flowered(seat, flower))
                    tile, state.wall = state.wall.draw_tail()
                    hand[tile] += 1
                    events.append(Drew(seat, True, tile))
                    laid = True
        if not laid:
            return


# --- what a seat may do ----------------------------------------------------------------

# Actions are immutable values: the ones legal_actions offers are built once and shared.
_SEATS = range(4)
_DISCARD = [[Discard(s, t) for t in range(42)] for s in _SEATS]
_CHOW = [[Chow(s, t) for t in range(27)] for s in _SEATS]
_CONCEALED_KONG = [[ConcealedKong(s, t) for t in range(34)] for s in _SEATS]
_ADDED_KONG = [[AddedKong(s, t) for t in range(34)] for s in _SEATS]
_HU = [Hu(s) for s in _SEATS]
_ALL_TILES = range(42)
# river tiles and the events of discards and draws, likewise built once and shared
_RIVER = [[RiverTile(s, t) for t in range(42)] for s in _SEATS]
_RIVER_CLAIMED = [[RiverTile(s, t, True) for t in range(42)] for s in _SEATS]
_DISCARDED = [[(Discarded(s, t, False), Discarded(s, t, True)) for t in range(42)] for s in _SEATS]
_DREW = [[[Drew(s, tail, t) for t in range(42)] for s in _SEATS] for tail in (False, True)]
_PASS = [Pass(s) for s in _SEATS]
_PUNG = [Pung(s) for s in _SEATS]
_EXPOSED_KONG = [ExposedKong(s) for s in _SEATS]


def _runs_with(kind: Tile) -> tuple[tuple[Tile, Tile, Tile], ...]:
    """The runs a discard of `kind` can complete: (lowest tile, the two other tiles)."""
    if kind >= 27:
        return ()
    runs = []
    for low in (kind - 2, kind - 1, kind):
        if low >= 0 and low // 9 == kind // 9 == (low + 2) // 9:
            a, b = (t for t in (low, low + 1, low + 2) if t != kind)
            runs.append((low, a, b))
    return tuple(runs)


_RUNS_WITH = [_runs_with(k) for k in range(34)]


def pending_seats(state: HandState) -> list[int]:
    """The seats whose decision the hand is waiting for."""
    if state.phase == "turn":
        return [state.turn]
    if state.phase == "decide":
        return sorted(state.ruleset.decisions(state))
    if state.phase in ("claim", "rob") and state.window is not None:
        w = state.window
        return [s for s in w.options if s not in w.answers]
    return []


def legal_actions(state: HandState, seat: int) -> list[Action]:
    """Every action `seat` may take now (Escape, always accepted, is not listed)."""
    if state.phase == "turn":
        if seat != state.turn:
            return []
        ruleset = state.ruleset
        hand = state.concealed[seat]
        actions: list[Action] = []
        check_win = state.may_self_win and _draw_may_complete(state, seat)
        # a kong needs four alike in the hand (the effective counts hold no new values) or a pung
        if check_win or 4 in hand or state.melds[seat]:
            counts, wilds = state.effective(seat)
            if check_win and ruleset.can_win(state, seat, counts, wilds):
                actions.append(_HU[seat])
            actions += _kongs(state, seat, counts)
        actions += ruleset.special_actions(state, seat)
        if ruleset.restricts_discards or (
            ruleset.wild_discard == "forbidden" and state.wild.wild is not None
        ):
            discard = _DISCARD[seat]
            actions += [discard[t] for t in _discardable(state, seat)]
        else:
            actions += compress(_DISCARD[seat], hand)  # every held tile
        return actions
    if state.phase in ("claim", "rob") and state.window is not None:
        w = state.window
        if seat in w.options and seat not in w.answers:
            return [*w.options[seat], _PASS[seat]]
    if state.phase == "decide":
        return [Decide(seat, c) for c in state.ruleset.decisions(state).get(seat, ())]
    return []


def _draw_may_complete(state: HandState, seat: int) -> bool:
    """False when the ruleset's wins depend on the hand alone and the ready cache knows that the
    seat's hand before its draw was not ready: no drawn tile can complete it then. True when
    a win is possible or not known to be impossible."""
    drawn = state.drawn
    if drawn is None or not state.ruleset.win_depends_on_hand_only:
        return True
    cached = state.ready_cache[seat]
    if cached is None or cached[1]:
        return True
    before = state.concealed[seat][:]
    before[drawn] -= 1
    return before != cached[0]


def _discardable(state: HandState, seat: int) -> list[Tile]:
    hand = state.concealed[seat]
    held = list(compress(_ALL_TILES, hand))
    wild = state.wild.wild
    forbidden = state.ruleset.wild_discard == "forbidden"
    if forbidden and wild is not None and hand[wild] and len(held) > 1:
        held.remove(wild)  # a wild only when nothing else is held
    if state.ruleset.restricts_discards:
        held = state.ruleset.allowed_discards(state, seat, held)
    return held


def _may_discard(state: HandState, seat: int, tile: Tile) -> bool:
    if state.ruleset.restricts_discards or state.ruleset.wild_discard == "forbidden":
        return tile in _discardable(state, seat)
    return True


def _kongs(state: HandState, seat: int, counts: list[int]) -> list[Action]:
    """暗杠 and 加杠 open to `seat` (`counts`: its effective concealed counts)."""
    if state.wall.remaining <= 0:
        return []
    actions: list[Action] = []
    if 4 in counts:
        kong = _CONCEALED_KONG[seat]
        actions += [kong[state.physical(k)] for k in range(NUM_KINDS) if counts[k] == 4]
    for meld in state.melds[seat]:
        if meld.kind == "pung" and counts[meld.plays_as]:
            actions.append(_ADDED_KONG[seat][state.physical(meld.plays_as)])
    return actions


def _count_index(wild: WildSetup) -> tuple[tuple[int, ...], tuple[tuple[_Run, ...], ...]]:
    """Tables built once per wild. Per kind 0-33: where in a seat's concealed counts the tiles
    that play as the kind are counted, or -1 where none is (a wild; the substitute's own kind):
    `count_playing_as` as a table; and the runs a discard of the kind can complete, as (lowest
    tile, positions of the two other tiles), leaving out runs that need a tile nobody holds."""
    key = (wild.wild, wild.substitute)
    tables = _COUNT_INDEX.get(key)
    if tables is None:
        index = tuple(-1 if k == wild.substitute else -1 if (t := _physical(wild, k)) == wild.wild
                      else t for k in range(NUM_KINDS))
        runs = tuple(
            tuple((low, index[a], index[b]) for low, a, b in _RUNS_WITH[k]
                  if index[a] >= 0 and index[b] >= 0)
            for k in range(NUM_KINDS)
        )
        tables = _COUNT_INDEX[key] = (index, runs)
    return tables


def _physical(wild: WildSetup, kind: Tile) -> Tile:
    return wild.substitute if kind == wild.wild and wild.substitute is not None else kind


_Run = tuple[Tile, int, int]
_COUNT_INDEX: dict[
    tuple[Tile | None, Tile | None], tuple[tuple[int, ...], tuple[tuple[_Run, ...], ...]]
] = {}


def _claims(
    state: HandState, discarder: int, kind: Tile, last: bool
) -> dict[int, tuple[Action, ...]] | None:
    """What each other seat may claim on a discard that plays as `kind`, in turn order after
    the discarder (None: nobody may). Asked on every discard, so the common answer, nothing,
    is found without building anything: a seat is looked at closer only when its hand is
    ready (听, from the cache), holds a pair of the kind, or may chow."""
    index, runs = _count_index(state.wild)
    i = index[kind]
    concealed, cache = state.concealed, state.ready_cache
    chow_seat = (state.turn + 1) % 4 if state.ruleset.allow_chow and not last else -1
    options: dict[int, tuple[Action, ...]] | None = None
    for seat in _OTHERS[discarder]:
        hand = concealed[seat]
        cached = cache[seat]
        ready = cached[1] if cached is not None and cached[0] == hand else state.is_ready(seat)
        held = hand[i] if i >= 0 and not last else 0
        if not ready and held < 2 and seat != chow_seat:
            continue
        offered: list[Action] = []
        if ready and _wins_on(state, seat, kind):
            offered.append(_HU[seat])
        if held >= 2:
            offered.append(_PUNG[seat])
        if held >= 3 and state.wall.remaining > 0:
            offered.append(_EXPOSED_KONG[seat])
        if seat == chow_seat:
            for low, a, b in runs[kind]:
                if hand[a] and hand[b]:
                    offered.append(_CHOW[seat][low])
        if offered:
            if options is None:
                options = {}
            options[seat] = tuple(offered)
    return options


def _wins_on(state: HandState, seat: int, kind: Tile) -> bool:
    counts, wilds = state.effective(seat)
    counts[kind] += 1
    return state.ruleset.can_win(state, seat, counts, wilds)


# --- the step --------------------------------------------------------------------------


def step(
    state: HandState, action: Action, *, in_place: bool = False
) -> tuple[HandState, list[Event]]:
    """Apply one seat's action. Raises IllegalAction and leaves `state` untouched.

    The state returned is a new one (`HandState.clone`), unless `in_place`: then `state`
    itself is changed and returned, for a caller that keeps no earlier state of the hand
    (self-play, `replay`), which saves the copy of every step (issue 18). An illegal action
    is refused before anything changes, in place too."""
    _validate(state, action)
    new = state if in_place else state.clone()
    new.steps += 1
    events: list[Event] = []
    if type(action) is Discard and new.phase == "turn":  # the common case
        _discard(new, action.seat, action.tile, events)
    elif isinstance(action, Escape):
        _escape(new, action.seat, events)
    elif new.phase == "decide":
        assert isinstance(action, Decide)
        new.decisions = {**new.decisions, action.seat: action.choice}
        events.append(Decided(action.seat, action.choice))
        if not new.ruleset.decisions(new):
            _deal(new, events)
    elif new.phase == "turn":
        _apply_turn(new, action, events)
    else:
        assert new.window is not None
        new.window.answers[action.seat] = action
        _resolve_window(new, events)
    return new, events


def _validate(state: HandState, action: Action) -> None:
    if type(action) is Discard and state.phase == "turn":  # the common case, checked in full
        seat, tile = action.seat, action.tile
        if (
            seat == state.turn
            and type(seat) is int
            and type(tile) is int
            and 0 <= tile < 42
            and state.concealed[seat][tile]
            and _may_discard(state, seat, tile)
        ):
            return
    if not isinstance(action, Action.__args__):  # type: ignore[attr-defined]
        raise IllegalAction("unknown_action", f"not an action: {action!r}")
    seat = action.seat
    if not isinstance(seat, int) or not 0 <= seat < 4:
        raise IllegalAction("bad_seat", f"no seat {seat!r}")
    if state.phase == "ended":
        raise IllegalAction("hand_over", "the hand has ended")
    if isinstance(action, Escape):
        return
    if state.phase == "decide":
        options = state.ruleset.decisions(state)
        if seat not in options:
            raise IllegalAction("not_your_turn", f"seat {seat} has nothing to decide now")
        if not isinstance(action, Decide) or action.choice not in options[seat]:
            raise IllegalAction("not_offered", f"seat {seat} may choose {options[seat]}")
        return
    if state.phase == "turn":
        if seat != state.turn:
            raise IllegalAction("not_your_turn", f"it is seat {state.turn}'s turn")
        if isinstance(action, Discard):
            tile = action.tile
            if not isinstance(tile, int) or not 0 <= tile < 42 or not state.concealed[seat][tile]:
                raise IllegalAction("tile_not_in_hand", f"seat {seat} holds no tile {tile!r}")
            if not _may_discard(state, seat, tile):
                if tile == state.wild.wild:
                    raise IllegalAction("wild_discard_forbidden", "a wild may not be discarded")
                raise IllegalAction("discard_restricted", "the variant requires another discard")
            return
        if isinstance(action, Hu):
            if not (state.may_self_win and state.can_win_with(seat, None)):
                raise IllegalAction("cannot_win", "the hand is not complete")
            return
        if isinstance(action, (ConcealedKong, AddedKong)):
            if action not in _kongs(state, seat, state.effective(seat)[0]):
                code = "no_tiles_left" if state.wall.remaining <= 0 else "not_offered"
                raise IllegalAction(code, f"no such kong for seat {seat}")
            return
        if isinstance(action, Special):
            if action not in state.ruleset.special_actions(state, seat):
                raise IllegalAction("not_offered", f"{action.name} is not open to seat {seat}")
            return
        raise IllegalAction("not_offered", f"{action.type} is not possible on one's own turn")
    window = state.window
    assert window is not None
    if seat not in window.options:
        raise IllegalAction("not_your_turn", f"seat {seat} has no claim on this tile")
    if seat in window.answers:
        raise IllegalAction("already_answered", f"seat {seat} has answered")
    if not isinstance(action, Pass) and action not in window.options[seat]:
        raise IllegalAction("not_offered", f"{action.type} was not offered to seat {seat}")


def _apply_turn(state: HandState, action: Action, events: list[Event]) -> None:
    seat = action.seat
    if isinstance(action, Discard):
        _discard(state, seat, action.tile, events)
    elif isinstance(action, Hu):
        record = WinRecord(
            seat=seat,
            from_seat=None,
            tile=state.drawn,
            self_draw=True,
            kong_win=state.from_tail,
            dealt_hand=_is_dealt_hand(state, seat),
        )
        _win(state, [record], events)
    elif isinstance(action, Special):
        special_win = state.ruleset.apply_special(state, action, events)
        if special_win is not None:
            _win(state, [special_win], events)
    elif isinstance(action, ConcealedKong):
        kind = state.plays_as(action.tile)
        assert kind is not None
        state.concealed[seat][action.tile] -= 4
        state.melds[seat] = [*state.melds[seat], Meld("concealed_kong", (action.tile,) * 4, kind)]
        events.append(Melded(seat, "concealed_kong", (action.tile,) * 4))
        _draw(state, seat, events, from_tail=True)
    elif isinstance(action, AddedKong):
        state.concealed[seat][action.tile] -= 1
        options: dict[int, tuple[Action, ...]] = {
            s: (_HU[s],)
            for s in _others(seat)
            if state.can_win_with(s, action.tile)
        }
        if options:
            state.phase = "rob"
            state.window = ClaimWindow(action.tile, seat, True, options)
            state.drawn = None
        else:
            _complete_added_kong(state, seat, action.tile, events)


def _is_dealt_hand(state: HandState, seat: int) -> bool:
    expected = 0 if seat == state.dealer else 1
    return (
        state.draws[seat] == expected
        and not state.from_tail
        and not state.melds[seat]
        and all(r.seat != seat for r in state.river)
    )


def _discard(state: HandState, seat: int, tile: Tile, events: list[Event]) -> None:
    state.concealed[seat][tile] -= 1
    state.river.append(_RIVER[seat][tile])
    state.drawn = None
    state.from_tail = False
    wild = state.wild
    events.append(_DISCARDED[seat][tile][tile == wild.wild])
    penalties = state.ruleset.after_discard(state, seat, tile)
    if penalties:
        state.penalties = state.penalties + penalties
        events += penalties
    wall = state.wall
    last = wall.tail - wall.head - wall.reserve <= 0  # no live tile left
    if tile == wild.wild:
        options = None  # a discarded wild is dead
    else:
        face = wild.wild  # the substitute plays as the wild's face
        kind = face if tile == wild.substitute and face is not None else tile
        options = _claims(state, seat, kind, last)
    if options:
        state.phase = "claim"
        state.window = ClaimWindow(tile, seat, False, options)
    elif last:
        _exhaustive_draw(state, events)
    else:
        _draw(state, (seat + 1) % 4, events)


_OTHERS = [((s + 1) % 4, (s + 2) % 4, (s + 3) % 4) for s in range(4)]


def _others(seat: int) -> tuple[int, int, int]:
    """The other seats in turn order after `seat`."""
    return _OTHERS[seat]


def _resolve_window(state: HandState, events: list[Event]) -> None:
    """Resolve the claim window once no missing answer could change the result."""
    w = state.window
    assert w is not None
    options, answers = w.options, w.answers
    order = [s for s in _OTHERS[w.discarder] if s in options]  # nearest to the discarder first
    hu_seats = [s for s in order if _offers(options[s], Hu)]
    if len(hu_seats) > 1 and state.ruleset.ranks_wins:
        # a higher-ranked 胡 (福州 金雀) beats the nearer seat
        hu_seats.sort(key=lambda s: -state.ruleset.hu_rank(state, s, w.tile))
    if state.ruleset.multi_win and hu_seats:
        if any(s not in w.answers for s in hu_seats):
            return
        winners = [s for s in hu_seats if isinstance(w.answers[s], Hu)]
        if winners:
            _claim_win(state, winners, events)
            return
    else:
        for s in hu_seats:
            if s not in w.answers:
                return
            if isinstance(w.answers[s], Hu):
                _claim_win(state, [s], events)
                return
    for kinds in _MELD_PRIORITY:
        for s in order:
            if not _offers(options[s], kinds):
                continue
            answer = answers.get(s)
            if answer is None:
                return
            if isinstance(answer, kinds):
                _claim_meld(state, answer, events)
                return
    # everyone passed
    state.window = None
    if w.robbing:
        _complete_added_kong(state, w.discarder, w.tile, events)
    elif state.wall.live == 0:
        _exhaustive_draw(state, events)
    else:
        _draw(state, (w.discarder + 1) % 4, events)


_MELD_PRIORITY: tuple[type | tuple[type, ...], ...] = ((Pung, ExposedKong), Chow)  # 碰/杠 > 吃


def _offers(options: tuple[Action, ...], kinds: type | tuple[type, ...]) -> bool:
    for action in options:
        if isinstance(action, kinds):
            return True
    return False


def _claim_win(state: HandState, winners: list[int], events: list[Event]) -> None:
    w = state.window
    assert w is not None
    if not w.robbing:
        _mark_claimed(state)
    records = []
    for seat in winners:
        records.append(
            WinRecord(seat=seat, from_seat=w.discarder, tile=w.tile, self_draw=False,
                      robbed_kong=w.robbing)
        )
    # the tile goes to the winner (the nearest one, with several)
    state.concealed[winners[0]][w.tile] += 1
    state.window = None
    _win(state, records, events)


def _mark_claimed(state: HandState) -> None:
    last = state.river[-1]
    state.river[-1] = _RIVER_CLAIMED[last.seat][last.tile]


def _claim_meld(state: HandState, action: Action, events: list[Event]) -> None:
    w = state.window
    assert w is not None
    seat = action.seat
    tile = w.tile
    kind = state.plays_as(tile)
    assert kind is not None
    hand = state.concealed[seat]
    if isinstance(action, Chow):
        used = [state.physical(t) for t in (action.low, action.low + 1, action.low + 2) if t != kind]
        meld = Meld("chow", tuple(sorted([*used, tile])), action.low, tile, w.discarder)
    elif isinstance(action, Pung):
        used = [state.physical(kind)] * 2
        meld = Meld("pung", (*used, tile), kind, tile, w.discarder)
    else:
        used = [state.physical(kind)] * 3
        meld = Meld("exposed_kong", (*used, tile), kind, tile, w.discarder)
    for t in used:
        hand[t] -= 1
    _mark_claimed(state)
    state.melds[seat] = [*state.melds[seat], meld]
    state.window = None
    events.append(Melded(seat, meld.kind, meld.tiles, tile, w.discarder))
    if meld.kind == "exposed_kong":
        _draw(state, seat, events, from_tail=True)
    else:
        state.phase = "turn"
        state.turn = seat
        state.drawn = None
        state.from_tail = False
        state.may_self_win = False


def _complete_added_kong(state: HandState, seat: int, tile: Tile, events: list[Event]) -> None:
    kind = state.plays_as(tile)
    melds = state.melds[seat] = state.melds[seat][:]
    for i, meld in enumerate(melds):
        if meld.kind == "pung" and meld.plays_as == kind:
            melds[i] = Meld("added_kong", (*meld.tiles, tile), meld.plays_as, meld.claimed,
                            meld.from_seat)
            break
    events.append(Melded(seat, "added_kong", melds[i].tiles, tile))
    _draw(state, seat, events, from_tail=True)


def _draw(state: HandState, seat: int, events: list[Event], from_tail: bool = False) -> None:
    ruleset = state.ruleset
    wall = state.wall
    if from_tail:
        if wall.remaining <= 0:  # a flower's replacement with nothing left: a drawn hand
            _exhaustive_draw(state, events)
            return
        state.wall = wall = wall.with_reserve(ruleset.reserve(state))
        tile, state.wall = wall.draw_tail()
    else:
        live = wall.live
        if live <= 0:
            _exhaustive_draw(state, events)
            return
        tile, state.wall = wall.draw_front()
        if live <= ruleset.final_round:
            _final_round_draw(state, seat, tile, events)
            return
    state.concealed[seat][tile] += 1
    state.draws[seat] += 1
    state.phase = "turn"
    state.turn = seat
    state.drawn = tile
    state.from_tail = from_tail
    state.may_self_win = True
    events.append(_DREW[from_tail][seat][tile])
    if ruleset.flower_kinds and tile in ruleset.flower_kinds:
        state.concealed[seat][tile] -= 1
        state.draws[seat] -= 1  # a flower is not a draw of the turn: its replacement is
        state.flowers[seat] = [*state.flowers[seat], tile]
        events.append(Flowered(seat, tile))
        if state.wall.remaining <= 0 and ruleset.instant_win(state, seat):
            # nothing left to replace the flower: an instant win it makes (上海 八花) comes
            # before the wall's end draws the hand; otherwise it is asked after the
            # replacement, as for any draw
            _win(state, [WinRecord(seat, None, tile, True, kong_win=from_tail, instant=True)],
                 events)
            return
        _draw(state, seat, events, from_tail=True)  # 补花: replaced from the tail at once
        return
    if ruleset.instant_win(state, seat):
        _win(state, [WinRecord(seat, None, tile, True, kong_win=from_tail, instant=True)], events)


def _final_round_draw(state: HandState, seat: int, tile: Tile, events: list[Event]) -> None:
    """福州's final round: no 补花 and no discard; a drawn tile that completes the hand wins
    by 自摸 at once, otherwise the next seat draws (the last one: the hand is drawn)."""
    state.draws[seat] += 1
    events.append(Drew(seat, False, tile))
    if tile in state.ruleset.flower_kinds:
        state.flowers[seat] = [*state.flowers[seat], tile]
        events.append(Flowered(seat, tile))
    else:
        state.concealed[seat][tile] += 1
        state.turn = seat
        state.drawn = tile
        state.from_tail = False
        if state.can_win_with(seat, None):
            _win(state, [WinRecord(seat, None, tile, True)], events)
            return
    _draw(state, (seat + 1) % 4, events)


def _win(state: HandState, records: list[WinRecord], events: list[Event]) -> None:
    state.wins = records
    for r in records:
        score = state.ruleset.score(state, r)
        events.append(
            Won(r.seat, r.from_seat, r.tile, r.self_draw, r.robbed_kong,
                revealed_hand(state, r.seat), score.specials, score.multiplier)
        )
    _finish(state, "win", events)


def revealed_hand(state: HandState, seat: int) -> tuple[Tile, ...]:
    """`seat`'s concealed tiles as shown at the end; a winner's with its winning tile (the
    discard went into the nearest winner's hand; 一炮多响's other winners get it here)."""
    hand = state.hand_tiles(seat)
    for r in state.wins[1:]:
        if r.seat == seat and r.tile is not None:
            return tuple(sorted([*hand, r.tile]))
    return tuple(hand)


def _exhaustive_draw(state: HandState, events: list[Event]) -> None:
    events.append(ExhaustiveDraw())
    _finish(state, "draw", events)


def _escape(state: HandState, seat: int, events: list[Event]) -> None:
    window = state.window
    if state.phase == "rob" and window is not None:
        # a 加杠 still open to robbing was never made (no event shows it): its tile goes
        # back to the declarer's hand, where the end reveals it
        state.concealed[window.discarder][window.tile] += 1
    state.escaped = seat
    state.window = None
    events.append(Escaped(seat))
    _finish(state, "escape", events)


def _finish(state: HandState, outcome: str, events: list[Event]) -> None:
    state.phase = "ended"
    state.outcome = outcome
    state.window = None
    settlement = state.ruleset.settle(state)
    state.settlement = settlement
    events.append(
        HandEnded(
            outcome=outcome,
            winners=tuple(w.seat for w in state.wins),
            hands=tuple(revealed_hand(state, s) for s in range(4)),
            transfers=tuple(
                TransferRecord(t.payer, t.payee, t.points, t.reason) for t in settlement.transfers
            ),
            net=settlement.net(),
            house=settlement.house,
            house_silver=settlement.house_silver,
            melds=tuple(
                tuple(MeldRecord(m.kind, m.tiles, m.claimed, m.from_seat) for m in melds)
                for melds in state.melds
            ),
            flowers=tuple(tuple(f) for f in state.flowers),
            scores=tuple(state.ruleset.explain(state, w) for w in state.wins),
            seed=None if state.arranged else state.seed.hex(),
        )
    )


# --- accounting ------------------------------------------------------------------------


def tile_census(state: HandState) -> list[int]:
    """Every tile of the hand, wherever it is: wall, indicator, hands, melds, river, and a
    tile held in a 抢杠 window. Equals the ruleset's tile set at every step."""
    counts = [0] * 42
    for t in state.wall.remaining_tiles():
        counts[t] += 1
    if state.wild.indicator is not None:
        counts[state.wild.indicator] += 1
    for seat in range(4):
        for t, c in enumerate(state.concealed[seat]):
            counts[t] += c
        for meld in state.melds[seat]:
            for t in meld.tiles:
                counts[t] += 1
        for t in state.flowers[seat]:
            counts[t] += 1
    for r in state.river:
        if not r.claimed:
            counts[r.tile] += 1
    if state.phase == "rob" and state.window is not None:
        counts[state.window.tile] += 1
    return counts


def full_census(ruleset: HandRules) -> list[int]:
    counts = [0] * 42
    for t in ruleset.tile_set():
        counts[t] += 1
    return counts


def replay(
    ruleset: HandRules,
    seed: int | bytes,
    ctx: TableContext,
    actions: list[Action],
    preset: Preset | None = None,
) -> tuple[HandState, list[Event]]:
    """Re-run a hand from its seed (or preset wall) and its recorded actions (each applied in
    place: no earlier state is kept)."""
    state, events = new_hand(ruleset, seed, ctx, preset)
    for action in actions:
        state, more = step(state, action, in_place=True)
        events += more
    return state, events


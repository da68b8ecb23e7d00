"""What the table tells about its seats (RULES.md 1, 2): the seat-change callback that
drives ``table_state``, and 丽水's seats redrawn after every 版 (four 圈)."""

from __future__ import annotations

import itertools
from dataclasses import replace

from app.rules.actions import Discard
from app.rules.hand import legal_actions
from app.rules.variants import get_ruleset
from app.rules.variants.base import Ruleset
from app.rules.wall import first_dealer
from app.tables.actor import TableActor
from app.tables.clock import FakeClock
from app.tables.cycle import ROUNDS_PER_SESSION, draw_seats
from app.tables.messages import (
    Autoplay,
    Disconnected,
    Inbound,
    Leave,
    Outbound,
    PlayerAction,
    PromptOut,
    Resume,
    SnapshotOut,
    Tick,
)
from app.tables.settlement.record import HandRecordData, Paid
from app.tables.timers import Timers
from tests.tables.test_actor import settle, stored_silver

TIMERS = Timers(discard=15, claim=8, decide=8, ready=15)
LISHUI = get_ruleset("lishui")
ACCOUNTS = [11, 12, 13, 14]


class Bots:
    """A table of four 托管 seats: every hand plays itself out on the first tick."""

    def __init__(self, ruleset: Ruleset = LISHUI, seed: int = 100) -> None:
        self.clock = FakeClock(0.0)
        self.out: list[tuple[int, Outbound]] = []
        self.records: list[HandRecordData] = []
        self.changes = 0
        self.table = TableActor(
            "t", ruleset, ACCOUNTS, self.clock, lambda s, i: self.out.append((s, i)),
            self.on_hand_end, timers=TIMERS, seed_source=itertools.count(seed).__next__,
            on_seats_changed=self.changed,
        )
        for seat in self.table.seats:
            seat.autoplay = True

    def changed(self) -> None:
        self.changes += 1

    async def on_hand_end(self, record: HandRecordData) -> Paid | None:
        self.records.append(record)
        return Paid(stored_silver(record))

    async def handle(self, msg: Inbound) -> None:
        """Handle one message, and what a hand it ended sent back once stored."""
        storing = self.table.settling_task
        await self.table.handle(msg)
        await settle(self.table, storing)

    async def hand(self) -> HandRecordData:
        before = len(self.records)
        self.clock.advance(TIMERS.ready)
        await self.handle(Tick())
        assert len(self.records) == before + 1
        return self.records[-1]


def _passes(records: list[HandRecordData]) -> int:
    """How often the deal passed to another seat over these hands."""
    assert all(r.state is not None for r in records)
    return sum(
        r.state.ruleset.next_context(r.state).dealer != r.ctx.dealer  # type: ignore[union-attr]
        for r in records
    )


async def test_lishui_redraws_the_seats_after_four_rounds() -> None:
    bots = Bots()
    while not bots.records or bots.records[-1].reseat is None:
        await bots.hand()
        assert len(bots.records) < 200
    session = bots.records
    reseat = session[-1].reseat
    assert reseat is not None
    # a 版 is four 圈: the deal passed 16 times, the last time with this hand
    assert _passes(session) == 4 * ROUNDS_PER_SESSION
    assert _passes(session[:-1]) == 4 * ROUNDS_PER_SESSION - 1
    assert all(r.reseat is None for r in session[:-1])
    # the draw is the recorded seed's, and every player moved as it says
    assert reseat.order == draw_seats(reseat.seed) and sorted(reseat.order) == [0, 1, 2, 3]
    assert [s.account for s in bots.table.seats] == [ACCOUNTS[reseat.order[n]] for n in range(4)]
    changes = bots.changes
    # the next 版 starts as a new table: the dice of its first hand choose the dealer
    first = await bots.hand()
    assert first.seats == tuple(ACCOUNTS[reseat.order[n]] for n in range(4))
    assert first.state is not None and first.state.dice is not None
    assert first.ctx.dealer == first_dealer(first.state.dice) and first.ctx.streak == 0
    assert bots.changes == changes  # dealt and played out in one message: nothing to tell


async def test_a_quan_ends_with_every_fourth_pass_of_the_deal_and_four_make_the_ban() -> None:
    """圈: each hand with which the deal passes a fourth time since the last 圈 ended is
    marked (a private room or an event's round of 圈 counts them); the 版's last one too."""
    bots = Bots()
    while not bots.records or not bots.records[-1].session_end:
        await bots.hand()
        assert len(bots.records) < 200
    ends = [n for n, r in enumerate(bots.records) if r.round_end]
    assert len(ends) == ROUNDS_PER_SESSION and ends[-1] == len(bots.records) - 1
    start = 0
    for end in ends:  # each 圈: four passes, the last one with its final hand
        assert _passes(bots.records[start:end + 1]) == 4
        assert _passes(bots.records[start:end]) == 3
        start = end + 1


async def test_the_same_seeds_seat_the_players_the_same_way() -> None:
    orders = []
    for _ in range(2):
        bots = Bots(seed=300)
        while not bots.records or bots.records[-1].reseat is None:
            await bots.hand()
        orders.append((len(bots.records), bots.records[-1].reseat))
    assert orders[0] == orders[1]


async def test_no_reseat_without_the_option_or_in_other_variants() -> None:
    off = replace(LISHUI, options=replace(LISHUI.options, reseat_after_session=False))
    for ruleset in (off, get_ruleset("wenzhou")):
        bots = Bots(ruleset)
        while _passes(bots.records) < 4 * ROUNDS_PER_SESSION + 1:
            await bots.hand()
        assert all(r.reseat is None for r in bots.records)
        assert [s.account for s in bots.table.seats] == ACCOUNTS


async def test_the_hand_before_a_reseat_cannot_be_resumed_from_the_new_seats() -> None:
    bots = Bots()
    while not bots.records or bots.records[-1].reseat is None:
        await bots.hand()
    before = len(bots.out)
    await bots.handle(Resume(0, 0))
    sent = bots.out[before:]
    assert [type(i).__name__ for _, i in sent] == ["ErrorOut"]  # no_hand: nothing of old seats
    assert not any(isinstance(i, SnapshotOut) for _, i in sent)


async def test_seat_changes_are_reported_and_other_messages_are_not() -> None:
    bots = Bots()
    for seat in bots.table.seats:
        seat.autoplay = False
    bots.clock.advance(TIMERS.ready)
    await bots.handle(Tick())
    assert bots.changes == 1  # a hand is in play
    hand = bots.table.hand
    assert hand is not None
    dealer = hand.ctx.dealer
    prompt = next(i for s, i in reversed(bots.out) if s == dealer and isinstance(i, PromptOut))
    discard = next(a for a in legal_actions(hand, dealer) if isinstance(a, Discard))
    await bots.handle(PlayerAction(dealer, discard, prompt.seq))
    assert bots.changes == 1  # an action of a player not on 托管 changes no seat
    await bots.handle(Disconnected(1))
    assert bots.changes == 2
    await bots.handle(Disconnected(1))
    assert bots.changes == 2  # already away
    await bots.handle(Resume(1, bots.table.seq))
    assert bots.changes == 3  # back
    await bots.handle(Autoplay(2, False))
    assert bots.changes == 3  # it was off
    await bots.handle(Autoplay(2, True))
    await bots.handle(Autoplay(2, False))
    assert bots.changes == 5
    await bots.handle(Leave(3))  # an escape ends the hand and frees the seat: once
    assert bots.changes == 6 and bots.table.hand is None
    assert bots.table.seats[3].account is None
    await bots.handle(Leave(3))  # an empty seat: nothing changes
    assert bots.changes == 6


async def test_a_seat_away_when_the_deal_is_due_is_freed_and_no_hand_is_dealt() -> None:
    """Between hands an absent player keeps the seat until the ready timer ends; the seat
    is then freed (no penalty: no hand is recorded) and nothing is dealt to three."""
    bots = Bots()
    await bots.hand()
    await bots.handle(Disconnected(2))
    bots.clock.advance(TIMERS.ready - 1)
    await bots.handle(Tick())
    assert bots.table.seats[2].account == ACCOUNTS[2]  # held until the deal is due
    changes = bots.changes
    bots.clock.advance(1)
    await bots.handle(Tick())
    assert [s.account for s in bots.table.seats] == [11, 12, None, 14]
    assert bots.table.hand is None and len(bots.records) == 1
    assert bots.changes == changes + 1  # the table is told
    await bots.handle(Tick())
    assert bots.table.hand is None and len(bots.records) == 1

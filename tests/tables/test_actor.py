"""The table actor, driven message by message with a fake clock and no network: what
each player would see on their screen, and what the caller gets at each hand's end."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from app.rules.actions import Action, Chow, Discard, ExposedKong, Hu, Pass, Pung
from app.rules.bots import GreedyBot, TimeoutBot
from app.rules.context import TableContext
from app.rules.events import Dealt, Drew, Won
from app.rules.hand import legal_actions, pending_seats, replay, step
from app.rules.scenario import arrange
from app.rules.tiles import parse_one
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.variants.base import Ruleset
from app.tables import play as play_module
from app.tables.actor import TableActor
from app.tables.clock import FakeClock
from app.tables.messages import (
    AdminPause,
    AdminResume,
    Autoplay,
    Disconnected,
    ErrorOut,
    EventOut,
    Inbound,
    Leave,
    Outbound,
    PlayerAction,
    PromptOut,
    Ready,
    Resume,
    SnapshotOut,
    Stop,
    Tick,
)
from app.tables.seats import SeatState
from app.tables.settlement.record import HandRecordData, Paid, Silver
from app.tables.timers import Timers

TIMERS = Timers(discard=15, claim=8, decide=8, ready=15)
LISHUI = get_ruleset("lishui")
BOT = GreedyBot()

# Dealer 0 discards 5m; seats 2 and 3 can both 胡 on it (see tests/rules/test_hand.py).
TWO_WAIT_ON_5M: dict[str, Any] = {
    "dealer": 0,
    "hands": ["566778899m11s667z", "13579m2468s3344z", "123456789p111z5m", "234567s234m222z5m"],
    "indicator": "9s",
}
# Dealer 0 discards 5p; seat 1 can 吃 it (4-5-6p), seat 2 can 碰 it; nobody can 胡.
PUNG_OR_CHOW_ON_5P: dict[str, Any] = {
    "dealer": 0,
    "hands": [
        "5p1234678m11234z6z",
        "46p23678s12346z7z",
        "55p11m99m22s77z3p8p1s",
        "2p8p1s4s5s9m2z3z4z6z7s1m2m",
    ],
    "indicator": "9s",
}


class Harness:
    """A table with four seated accounts, a fake clock and a list-collecting `send`."""

    def __init__(
        self, ruleset: Ruleset = LISHUI, *, scenario: dict[str, Any] | None = None, seed: int = 7
    ) -> None:
        self.clock = FakeClock(1000.0)
        self.out: list[tuple[int, Outbound]] = []
        self.records: list[HandRecordData] = []
        preset = arrange(ruleset, **scenario) if scenario else None
        ctx = TableContext(dealer=scenario["dealer"]) if scenario else None
        self.table = TableActor(
            "t1", ruleset, [11, 12, 13, 14], self.clock, self.send, self.on_hand_end,
            timers=TIMERS, seed_source=itertools.count(seed).__next__, preset=preset, ctx=ctx,
        )

    def send(self, seat: int, item: Outbound) -> None:
        self.out.append((seat, item))

    async def on_hand_end(self, record: HandRecordData) -> Paid | None:
        self.records.append(record)
        return Paid(stored_silver(record))

    async def handle(self, msg: Inbound) -> list[tuple[int, Outbound]]:
        """Handle one message; what it sent, and, when it ended a hand, what the table sent
        once the hand was stored (the `Settled` that came back to its inbox)."""
        before = len(self.out)
        storing = self.table.settling_task
        await self.table.handle(msg)
        await settle(self.table, storing)
        return self.out[before:]

    async def deal(self) -> None:
        await self.handle(Tick())
        assert self.table.hand is not None

    async def next_hand(self) -> None:
        self.clock.advance(TIMERS.ready)
        await self.deal()

    def pending(self) -> list[int]:
        hand = self.table.hand
        return [] if hand is None else pending_seats(hand)

    def prompt(self, seat: int) -> PromptOut:
        return next(i for s, i in reversed(self.out) if s == seat and isinstance(i, PromptOut))

    def sent(self, seat: int, kind: type) -> list[Any]:
        return [i for s, i in self.out if s == seat and isinstance(i, kind)]

    async def act(self, seat: int, action: Action, last_seq: int | None = None) -> list[Any]:
        seq = self.prompt(seat).seq if last_seq is None else last_seq
        return [i for s, i in await self.handle(PlayerAction(seat, action, seq)) if s == seat]

    async def bot_turn(self, seat: int) -> None:
        """The seat answers its prompt with the greedy bot's choice, as a client would."""
        hand = self.table.hand
        assert hand is not None
        prompt = self.prompt(seat)
        assert prompt.legal == legal_actions(hand, seat)  # the prompt is exactly the legal set
        errors = [i for i in await self.act(seat, BOT.choose(hand, seat, prompt.legal))
                  if isinstance(i, ErrorOut)]
        assert not errors

    async def play_out(self) -> None:
        while self.pending():
            await self.bot_turn(self.pending()[0])


async def settle(table: TableActor, storing: asyncio.Task[None] | None = None) -> None:
    """Wait for the hand the table handed over to be stored (one it handed over since
    `storing`), and handle what that sent back to its inbox, as its loop would."""
    while (task := table.settling_task) is not None and task is not storing:
        await task
        while not table.inbox.empty():
            await table.handle(table.inbox.get_nowait())


def stored_silver(record: HandRecordData) -> Silver:
    """What a store at stake 1 with every balance ample answers: each seat's net points."""
    if record.settlement is None:
        return (0, 0, 0, 0)
    a, b, c, d = record.settlement.net()
    return a, b, c, d


def T(text: str) -> int:
    return parse_one(text)


# --- whole hands -------------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_four_bots_play_complete_hands_and_each_is_reported_once(variant: str) -> None:
    ruleset = get_ruleset(variant)
    h = Harness(ruleset)
    await h.deal()
    await h.play_out()
    await h.next_hand()
    await h.play_out()

    assert len(h.records) == 2
    assert len({r.hand_id for r in h.records}) == 2
    for record in h.records:
        assert record.variant == variant and not record.voided
        assert record.settlement is not None and record.seats == (11, 12, 13, 14)
        _, events = replay(ruleset, record.seed, record.ctx, record.actions, record.preset)
        assert events == record.events
    # the deal passes as the variant says
    assert h.records[1].ctx == ruleset.next_context(h.records[0].state)  # type: ignore[arg-type]
    assert not [i for _, i in h.out if isinstance(i, ErrorOut)]


async def test_every_seat_gets_every_event_under_one_increasing_sequence() -> None:
    h = Harness()
    await h.deal()
    await h.play_out()
    for seat in range(4):
        seqs = [e.seq for e in h.sent(seat, EventOut)]
        assert seqs == list(range(1, h.table.seq + 1))
    assert len(h.records[0].events) == h.table.seq


async def test_no_seat_is_sent_another_seats_concealed_tiles() -> None:
    h = Harness(get_ruleset("fuzhou"))  # flowers: many replacement draws
    await h.deal()
    await h.play_out()
    own_draws = 0
    for seat in range(4):
        for item in h.sent(seat, EventOut):
            event = item.event
            if isinstance(event, Dealt):
                assert (event.tiles is None) == (event.seat != seat)
            if isinstance(event, Drew):
                assert (event.tile is None) == (event.seat != seat)
                own_draws += event.seat == seat
    assert own_draws > 0


# --- claim windows ------------------------------------------------------------------------


async def test_two_wins_on_one_discard_go_to_the_nearest_seat() -> None:
    h = Harness(scenario=TWO_WAIT_ON_5M)
    await h.deal()
    await h.act(0, Discard(0, T("5m")))
    assert Hu(2) in h.prompt(2).legal and Hu(3) in h.prompt(3).legal

    sent = await h.act(3, Hu(3))
    assert sent == [] and h.pending() == [2]  # seat 2 is nearer and has not answered
    await h.act(2, Hu(2))

    assert len(h.records) == 1
    assert [e.seat for e in h.records[0].events if isinstance(e, Won)] == [2]


async def test_pung_beats_chow_answered_first() -> None:
    h = Harness(scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    await h.act(0, Discard(0, T("5p")))
    assert h.prompt(1).legal == [Chow(1, T("4p")), Pass(1)]
    assert h.prompt(2).legal == [Pung(2), Pass(2)]

    await h.act(1, Chow(1, T("4p")))
    assert h.pending() == [2]  # the 吃 waits: a 碰 would beat it
    await h.act(2, Pung(2))

    melded = [i.event for i in h.sent(0, EventOut) if i.event.kind == "melded"]
    assert [(e.seat, e.meld) for e in melded] == [(2, "pung")]
    assert h.pending() == [2] and h.prompt(2).legal[0].type == "discard"


# --- timers and 托管 ----------------------------------------------------------------------


async def test_a_claim_window_times_out_to_pass() -> None:
    h = Harness(scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    await h.act(0, Discard(0, T("5p")))
    h.clock.advance(TIMERS.claim - 1)
    await h.handle(Tick())
    assert h.pending() == [1, 2]  # not yet

    h.clock.advance(1)
    await h.handle(Tick())
    assert h.pending() == [1]  # both passed; the next seat drew and must discard
    assert h.table.hand is not None and h.table.hand.phase == "turn"
    assert not [i for i in h.sent(0, EventOut) if i.event.kind == "melded"]
    assert not h.table.seats[1].autoplay and not h.table.seats[2].autoplay


async def test_two_timeouts_switch_to_autoplay_and_a_player_action_switches_it_off() -> None:
    h = Harness(scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    await h.act(0, Discard(0, T("5p")))
    await h.act(1, Pass(1))
    await h.act(2, Pass(2))
    # seat 1's turn: it lets its timer run out twice in a row
    drawn = h.table.hand.drawn if h.table.hand else None
    assert drawn is not None
    h.clock.advance(TIMERS.discard)
    await h.handle(Tick())
    assert h.table.hand is not None
    assert (h.table.hand.river[-1].seat, h.table.hand.river[-1].tile) == (1, drawn)  # 摸切
    assert not h.table.seats[1].autoplay

    while 1 not in h.pending():
        assert h.pending()
        await h.bot_turn(h.pending()[0])
    h.clock.advance(TIMERS.claim if h.table.hand.phase != "turn" else TIMERS.discard)
    await h.handle(Tick())
    assert h.table.seats[1].autoplay  # 托管 from now on

    # under 托管 seat 1 is never waited for: its prompts are answered at once
    steps = 0
    while h.table.hand is not None and steps < 12:
        assert 1 not in h.pending()
        await h.bot_turn(h.pending()[0])
        steps += 1
    assert h.table.hand is not None, "the scenario should last longer"

    # the player comes back: any action ends 托管 (this one is too late and refused)
    reply = await h.act(1, Pass(1), last_seq=h.table.seq)
    assert [e.code for e in reply] == ["not_your_turn"]
    assert not h.table.seats[1].autoplay
    while 1 not in h.pending():
        await h.bot_turn(h.pending()[0])
    assert h.prompt(1).legal == legal_actions(h.table.hand, 1)  # waited for again


async def test_autoplay_can_be_switched_on_and_plays_at_once() -> None:
    h = Harness()
    await h.deal()
    dealer = h.pending()[0]
    await h.handle(Autoplay(dealer, True))
    assert dealer not in h.pending()
    await h.handle(Autoplay(dealer, False))
    assert not h.table.seats[dealer].autoplay


async def test_a_disconnected_seat_is_played_after_its_timer_and_then_leaves() -> None:
    h = Harness()
    await h.deal()
    dealer = h.pending()[0]
    await h.handle(Disconnected(dealer))
    assert h.pending() == [dealer]  # not an escape: its timer runs
    hand = h.table.hand
    assert hand is not None
    legal = legal_actions(hand, dealer)
    played_for_it = BOT.choose(hand, dealer, legal)
    assert played_for_it != TimeoutBot().choose(hand, dealer, legal)  # 托管, not 摸切
    h.clock.advance(TIMERS.discard)
    await h.handle(Tick())
    assert h.pending() != [dealer]
    assert h.table.hand is not None and h.table.hand.river[-1].tile == played_for_it.tile
    await h.handle(Autoplay(dealer, True))  # let 托管 finish the hand for it
    await h.play_out()
    record = h.records[0]
    assert record.state is not None and record.state.outcome != "escape"
    assert record.away == (dealer,) and h.table.seats[dealer].account is None


async def test_pause_stops_the_clock_and_refuses_actions() -> None:
    h = Harness()
    await h.deal()
    dealer = h.pending()[0]
    h.clock.advance(10)
    await h.handle(AdminPause())
    h.clock.advance(600)
    await h.handle(Tick())
    assert h.pending() == [dealer]
    hand = h.table.hand
    assert hand is not None
    reply = await h.act(dealer, BOT.choose(hand, dealer, legal_actions(hand, dealer)))
    assert [e.code for e in reply] == ["paused"]

    await h.handle(AdminResume())
    h.clock.advance(4)
    await h.handle(Tick())
    assert h.pending() == [dealer]  # 1 s of its 15 s left
    h.clock.advance(1)
    await h.handle(Tick())
    assert h.pending() != [dealer]


# --- refused input ------------------------------------------------------------------------


async def test_stale_out_of_turn_and_illegal_actions_get_their_codes_and_change_nothing() -> None:
    h = Harness(scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    seq, hand = h.table.seq, h.table.hand
    prompt = h.prompt(0)

    assert [e.code for e in await h.act(1, Discard(1, T("4p")), seq)] == ["not_your_turn"]
    assert [e.code for e in await h.act(0, Discard(0, T("5p")), prompt.seq - 1)] == ["stale"]
    assert [e.code for e in await h.act(0, Discard(0, T("9p")), seq)] == ["tile_not_in_hand"]
    assert [e.code for e in await h.act(0, Discard(1, T("5p")), seq)] == ["bad_seat"]
    sent = await h.handle(PlayerAction(7, Pass(3), seq))
    assert [(s, i.code) for s, i in sent if isinstance(i, ErrorOut)] == [(7, "bad_seat")]
    assert len(sent) == 1

    assert h.table.seq == seq and h.table.hand is hand and h.pending() == [0]
    await h.act(0, Discard(0, T("5p")))  # the right answer still works
    assert h.pending() == [1, 2]


async def test_a_refusal_names_the_seq_the_refused_action_carried() -> None:
    """`ref_seq` tells the client which of its messages was refused: the seq that message
    carried, not the table's."""
    h = Harness(scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    seq, prompt = h.table.seq, h.prompt(0)
    refusals = [
        (await h.act(1, Discard(1, T("4p")), seq - 2))[0],  # not_your_turn
        (await h.act(0, Discard(0, T("5p")), prompt.seq - 1))[0],  # stale
        (await h.act(0, Discard(0, T("9p")), seq + 3))[0],  # tile_not_in_hand
    ]
    assert [(e.code, e.ref_seq) for e in refusals] == [
        ("not_your_turn", seq - 2), ("stale", prompt.seq - 1), ("tile_not_in_hand", seq + 3)
    ]
    await h.act(0, Discard(0, T("5p")))
    late = await h.act(0, Discard(0, T("6p")), prompt.seq)  # an answer to the old prompt
    assert [(e.code, e.ref_seq) for e in late] == [("not_your_turn", prompt.seq)]


# --- the result is stored before it is shown -----------------------------------------------


class SlowStore(Harness):
    """A harness whose store answers when the test says: the silver stored, or None (a
    newer owner of the table stores it)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.answer: asyncio.Future[Silver | None] = asyncio.get_running_loop().create_future()

    async def on_hand_end(self, record: HandRecordData) -> Paid | None:
        self.records.append(record)
        silver = await self.answer
        return None if silver is None else Paid(silver)


async def _won_while_storing() -> tuple[SlowStore, int, asyncio.Task[Any]]:
    """Seat 2 wins on seat 0's 5m and the store has not answered yet: the harness, the seq
    before the discard, and the win's task (done once the store answers)."""
    h = SlowStore(scenario=TWO_WAIT_ON_5M)
    await h.deal()
    seen = h.table.seq
    await h.act(0, Discard(0, T("5m")))
    await h.act(3, Pass(3), h.prompt(3).seq)
    winning = asyncio.create_task(h.act(2, Hu(2)))
    while not h.records:  # the table handed the hand over to be stored
        await asyncio.sleep(0)
    return h, seen, winning


def _ended(sent: list[tuple[int, Outbound]]) -> list[tuple[int, int]]:
    return [(s, i.seq) for s, i in sent
            if isinstance(i, EventOut) and i.event.kind == "hand_ended"]


async def test_hand_ended_is_sent_only_once_the_hand_is_stored_and_the_ready_timer_follows(
) -> None:
    h, _, winning = await _won_while_storing()
    # the win is seen at once, the settlement not: the table is settling
    assert [i.event.kind for _, i in h.out[-4:]] == ["won"] * 4
    assert not _ended(h.out) and h.table.settling and h.table.hand is None
    assert h.table.next_deal_in is None  # no deal is due while the result is stored
    reserved = h.table.seq
    h.clock.advance(TIMERS.ready + 1)  # a slow store does not eat the ready time
    h.answer.set_result(stored_silver(h.records[-1]))
    await winning
    assert not h.table.settling
    assert h.table.next_deal_in == TIMERS.ready  # what table_state's countdown says
    h.clock.advance(1)
    assert h.table.next_deal_in == TIMERS.ready - 1
    assert _ended(h.out) == [(seat, reserved) for seat in range(4)]
    await h.handle(Tick())
    assert h.table.hand is None  # the ready timer started when hand_ended was sent
    await h.next_hand()


async def test_hand_ended_carries_the_silver_the_ledger_moved_and_a_resume_sends_it_again(
) -> None:
    """The balance floor can make a seat pay less than net x stake: the result shows what
    the store says each balance moved by, and so does the same event sent again later."""
    h, seen, winning = await _won_while_storing()
    net = h.records[-1].settlement
    assert net is not None and net.net()[2] > 1
    floored = (-1, 0, 1, 0)  # seat 0 had 1 silver left: seat 2 got that much
    h.answer.set_result(floored)
    await winning
    ended = [i.event for _, i in h.out if isinstance(i, EventOut) and i.event.kind == "hand_ended"]
    assert len(ended) == 4 and all(getattr(e, "silver", None) == floored for e in ended)
    again = [i.event for _, i in await h.handle(Resume(1, seen))
             if isinstance(i, EventOut) and i.event.kind == "hand_ended"]
    assert [getattr(e, "silver", None) for e in again] == [floored]


async def test_a_hand_another_owner_stores_is_neither_shown_nor_followed_by_a_deal() -> None:
    h = SlowStore(scenario=TWO_WAIT_ON_5M)
    await h.deal()
    await h.act(0, Discard(0, T("5m")))
    await h.act(3, Pass(3), h.prompt(3).seq)
    h.answer.set_result(None)
    await h.act(2, Hu(2))
    assert len(h.records) == 1 and not _ended(h.out) and not h.table.settling
    h.clock.advance(10 * TIMERS.ready)
    await h.handle(Tick())
    assert h.table.hand is None and not _ended(h.out)


async def test_a_resume_while_the_result_is_held_resends_up_to_it_and_hides_the_net() -> None:
    h, seen, winning = await _won_while_storing()
    resent = [i for _, i in await h.handle(Resume(1, seen))]
    assert [i.event.kind for i in resent] == ["discarded", "won"]
    snapshot = [i for _, i in await h.handle(Resume(1, h.table.seq))]
    assert len(snapshot) == 1 and isinstance(snapshot[0], SnapshotOut)
    assert snapshot[0].seq == h.table.seq - 1 and snapshot[0].view["net"] is None
    h.answer.set_result(stored_silver(h.records[-1]))
    await winning
    assert len(_ended(h.out)) == 4


# --- reconnecting -------------------------------------------------------------------------


async def test_resume_in_a_claim_window_resends_the_missed_events_and_the_prompt() -> None:
    h = Harness(scenario=TWO_WAIT_ON_5M)
    await h.deal()
    seen = h.table.seq
    await h.handle(Disconnected(2))
    await h.act(0, Discard(0, T("5m")))

    sent = [i for _, i in await h.handle(Resume(2, seen))]
    events = [i for i in sent if isinstance(i, EventOut)]
    assert [e.seq for e in events] == list(range(seen + 1, h.table.seq + 1))
    assert [e.event.kind for e in events] == ["discarded"]
    assert isinstance(sent[-1], PromptOut) and sent[-1].legal == [Hu(2), Pass(2)]
    await h.act(2, Hu(2), sent[-1].seq)
    assert [e.seat for e in h.records[0].events if isinstance(e, Won)] == [2]


async def test_resume_with_a_very_old_seq_gets_a_snapshot() -> None:
    h = Harness()
    await h.deal()
    await h.play_out()
    await h.next_hand()
    seat = h.pending()[0]

    sent = [i for _, i in await h.handle(Resume(seat, 3))]  # a seq from the first hand
    snapshot = sent[0]
    assert isinstance(snapshot, SnapshotOut)
    assert snapshot.hand_id == h.table.hand_id and snapshot.seq == h.table.seq
    assert snapshot.view["seat"] == seat and snapshot.view["seats"][seat]["hand"]
    assert all(snapshot.view["seats"][s]["hand"] is None for s in range(4) if s != seat)
    assert snapshot.remaining == TIMERS.discard
    assert isinstance(sent[1], PromptOut)


async def test_resume_answers_each_case_docs_protocol_md_lists() -> None:
    """docs/protocol.md, `resume`: the events after `last_seq` within the current hand
    (none when up to date), a snapshot for an older hand or a seq ahead of the table, and
    `no_hand` before any deal; the prompt follows when the seat owes a decision."""
    h = Harness()
    refused = [i for _, i in await h.handle(Resume(0, 0))]
    assert [(type(i), i.code) for i in refused] == [(ErrorOut, "no_hand")]
    await h.deal()
    seat, seq = h.pending()[0], h.table.seq

    def kinds(sent: list[Any]) -> list[str]:
        return [type(i).__name__ for i in sent]

    whole = [i for _, i in await h.handle(Resume(seat, 0))]  # the first hand: from seq 1
    assert kinds(whole) == ["EventOut"] * seq + ["PromptOut"]
    assert [i.seq for i in whole[:-1]] == list(range(1, seq + 1))
    current = [i for _, i in await h.handle(Resume(seat, seq))]
    assert kinds(current) == ["PromptOut"]  # up to date: nothing missed
    ahead = [i for _, i in await h.handle(Resume(seat, seq + 100))]
    assert kinds(ahead) == ["SnapshotOut", "PromptOut"] and ahead[0].seq == seq
    other = (seat + 1) % 4  # owes nothing now: no prompt
    assert kinds([i for _, i in await h.handle(Resume(other, seq))]) == []


# --- leaving ------------------------------------------------------------------------------


async def test_leaving_during_a_hand_is_an_escape_that_frees_the_seat() -> None:
    h = Harness()
    await h.deal()
    await h.handle(Leave(2))
    assert h.table.hand is None and len(h.records) == 1
    record = h.records[0]
    assert record.state is not None and record.state.outcome == "escape"
    assert record.settlement is not None and record.settlement.net()[2] < 0
    assert all(t.payer == 2 for t in record.settlement.transfers)
    assert record.seats == (11, 12, 13, 14)  # the escaper's hand, stored as played
    assert h.table.seats[2].account is None  # freed with the hand's end

    assert await h.handle(Leave(2)) == []  # leaving an empty seat changes nothing
    assert h.table.seats[2].account is None
    h.clock.advance(TIMERS.ready)
    await h.handle(Tick())
    assert h.table.hand is None  # three players do not start a hand


async def test_when_every_player_says_ready_the_next_hand_is_dealt_at_once() -> None:
    """准备: between hands the table waits for its ready timer, or deals as soon as every
    seat's player said ready; a ready during a hand is refused and readies nothing."""
    h = Harness()
    await h.deal()
    refused = [i for s, i in await h.handle(Ready(1)) if s == 1]
    assert [e.code for e in refused if isinstance(e, ErrorOut)] == ["in_hand"]
    await h.handle(Leave(3))  # an escape ends the hand and frees the seat
    assert h.table.hand is None and h.table.ready_seats == frozenset()
    h.table.seats[3] = SeatState(14)  # the escaper sits again
    for seat in (0, 1, 2, 3):
        await h.handle(Ready(seat))
        assert h.table.hand is None or seat == 3
    assert h.table.hand is not None  # no wait for the ready timer
    assert h.table.ready_seats == frozenset()  # the next break starts with nobody ready
    # a seat that said ready and then changed hands is not ready for its new player
    await h.handle(Leave(0))
    await h.handle(Ready(1))
    await h.handle(Leave(1))
    h.table.seats[1] = SeatState(21)
    assert h.table.ready_seats == frozenset()


# --- 湖州: the deal after a drawn hand -------------------------------------------------------

HUZHOU = get_ruleset("huzhou")
# 湖州, dealer 1, 前导牌 6z (财神 5z): quiet hands; when every seat throws what it draws and
# passes every claim, the wall runs out and the hand is drawn (流局)
HUZHOU_QUIET: dict[str, Any] = {
    "dealer": 1,
    "hands": ["12358m1369p2478s", "23469m2478p1358s7z", "14679m1358p2368s",
              "123m456m789p111z2z"],
    "draws": "6z",
}


async def throw_until_drawn(h: Harness) -> HandRecordData:
    """Every seat throws the tile it drew (the dealer its 7z first) and passes every claim."""
    while (hand := h.table.hand) is not None:
        seat = h.pending()[0]
        if hand.phase == "turn":
            tile = hand.drawn if hand.drawn is not None else T("7z")
            assert not [i for i in await h.act(seat, Discard(seat, tile)) if isinstance(i, ErrorOut)]
        else:
            assert not [i for i in await h.act(seat, Pass(seat)) if isinstance(i, ErrorOut)]
    record = h.records[-1]
    assert record.state is not None and record.state.outcome == "draw"
    return record


def dealt_by(h: Harness) -> int:
    """The dealer the last `hand_started` told seat 0."""
    return [i for i in h.sent(0, EventOut) if i.event.kind == "hand_started"][-1].event.dealer


async def leave_between_hands(h: Harness) -> None:
    await h.handle(Leave(2))  # seat 2 gets up between hands
    h.table.seats[2] = SeatState(25)  # someone else sits down (what the lobby does)


async def someone_else_sits_in_a_freed_seat(h: Harness) -> None:
    assert h.table.seats[3].account is None  # seat 3 was away at the hand's end: freed
    h.table.seats[3] = SeatState(25)


async def nobody_leaves(h: Harness) -> None:
    pass


@pytest.mark.parametrize(
    ("away", "between", "dealer", "streak"),
    [
        (None, leave_between_hands, 2, 0),
        (3, someone_else_sits_in_a_freed_seat, 2, 0),
        (None, nobody_leaves, 1, 1),
    ],
)
async def test_huzhou_after_a_drawn_hand_the_dealer_stays_unless_somebody_left(
    away: int | None, between: Any, dealer: int, streak: int
) -> None:
    # RULES.md 4: "after a draw the dealer stays if nobody left the table, else the next
    # seat deals"
    h = Harness(HUZHOU, scenario=HUZHOU_QUIET)
    await h.deal()
    assert dealt_by(h) == 1
    if away is not None:
        await h.handle(Disconnected(away))
    first = await throw_until_drawn(h)
    assert first.away == (() if away is None else (away,))
    await between(h)
    await h.next_hand()
    assert dealt_by(h) == dealer
    second = h.table.hand
    assert second is not None and (second.ctx.dealer, second.ctx.streak) == (dealer, streak)


# --- 托管 and house bots -------------------------------------------------------------------

MELD_CLAIMS = (Chow, Pung, ExposedKong)


async def play_by_itself(h: Harness, hands: int) -> None:
    """Deal `hands` hands at a table where the server plays every seat: each plays itself
    out within the tick that deals it."""
    while len(h.records) < hands:
        h.clock.advance(TIMERS.ready)
        await h.handle(Tick())
        assert h.table.hand is None


def choices(record: HandRecordData) -> list[tuple[list[Action], Action]]:
    """Each action of a recorded hand with the legal actions it was chosen from."""
    state, _ = replay(get_ruleset(record.variant), record.seed, record.ctx, [], record.preset)
    out = []
    for action in record.actions:
        out.append((legal_actions(state, action.seat), action))
        state, _ = step(state, action)
    return out


@pytest.mark.parametrize("variant", ["lishui", "huzhou"])
async def test_autoplay_never_chows_pungs_or_kongs_a_discard_and_always_wins(variant: str) -> None:
    # RULES.md 1: 托管 "always takes a 胡, otherwise passes on claims"
    h = Harness(get_ruleset(variant), seed=1000)
    for seat in range(4):
        await h.handle(Autoplay(seat, True))
    await play_by_itself(h, 200)
    offered = won = 0
    for record in h.records:
        for legal, action in choices(record):
            assert not isinstance(action, MELD_CLAIMS), (record.hand_id, action)
            offered += any(isinstance(a, MELD_CLAIMS) for a in legal)
            if Hu(action.seat) in legal:
                assert action == Hu(action.seat), (record.hand_id, action)
                won += 1
    assert offered > 200 and won > 50  # claims were there to take, and wins were taken
    assert not [i for _, i in h.out if isinstance(i, ErrorOut)]


async def test_an_away_seat_lets_its_claim_time_out_to_pass_not_to_a_chow() -> None:
    h = Harness(scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    await h.handle(Disconnected(1))
    await h.act(0, Discard(0, T("5p")))
    hand = h.table.hand
    assert hand is not None
    assert BOT.choose(hand, 1, legal_actions(hand, 1)) == Chow(1, T("4p"))  # greedy would
    await h.act(2, Pass(2))
    h.clock.advance(TIMERS.claim)
    await h.handle(Tick())
    hand = h.table.hand
    assert hand is not None and hand.melds[1] == [] and hand.turn == 1  # passed, drew


async def test_house_bots_play_the_full_greedy_bot_claims_included() -> None:
    h = Harness(seed=1000)
    h.table.seats = [SeatState(a, autoplay=True, house_bot=True) for a in (11, 12, 13, 14)]
    await play_by_itself(h, 20)
    claimed = [a for r in h.records for _, a in choices(r) if isinstance(a, MELD_CLAIMS)]
    assert claimed


# --- isolation ----------------------------------------------------------------------------


async def test_an_exception_in_one_message_restores_the_hand_and_the_table_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = Harness()
    await h.deal()
    for _ in range(5):
        await h.bot_turn(h.pending()[0])
    real = play_module.legal_actions
    failures = iter([True])

    def flaky(state: Any, seat: int) -> list[Action]:
        if next(failures, False):
            raise RuntimeError("injected")
        return real(state, seat)

    monkeypatch.setattr(play_module, "legal_actions", flaky)
    await h.bot_turn(h.pending()[0])  # the step applied, then prompting blew up
    await h.play_out()

    assert len(h.records) == 1 and not h.records[0].voided
    record = h.records[0]
    _, events = replay(LISHUI, record.seed, record.ctx, record.actions)
    assert events == record.events
    await h.next_hand()
    assert h.table.hand is not None


async def test_a_hand_that_cannot_be_restored_is_voided(monkeypatch: pytest.MonkeyPatch) -> None:
    h = Harness()
    await h.deal()
    dealer = h.pending()[0]
    action = h.prompt(dealer).legal[0]

    def broken(*args: Any) -> Any:
        raise RuntimeError("injected")

    with monkeypatch.context() as patch:
        patch.setattr(play_module, "legal_actions", broken)
        patch.setattr(play_module, "replay", broken)
        reply = await h.act(dealer, action)
    assert [e.code for e in reply if isinstance(e, ErrorOut)] == ["hand_voided"]

    assert len(h.records) == 1
    assert h.records[0].voided and h.records[0].settlement is None
    assert h.table.hand is None
    assert {i.code for _, i in h.out if isinstance(i, ErrorOut)} == {"hand_voided"}
    await h.next_hand()  # the table keeps serving
    assert h.table.hand is not None


# --- the task -----------------------------------------------------------------------------


async def test_the_actor_task_reads_its_inbox_until_stopped() -> None:
    h = Harness()
    task = asyncio.create_task(h.table.run())
    h.table.submit(Tick())
    h.table.submit(Leave(0))
    h.table.submit(Stop())
    await asyncio.wait_for(task, timeout=10)
    assert len(h.records) == 1 and h.records[0].state is not None
    assert h.records[0].state.outcome == "escape"

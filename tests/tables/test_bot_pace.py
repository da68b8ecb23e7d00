"""Bots and 托管 at a human pace (`BotPace`): what a player at the table notices is that a
seat the server plays answers its prompt a second or so later, not at once, and that the
hand plays out exactly as it would have at once. Time is the table's fake clock only."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from app.rules.actions import Action, Discard, Pass
from app.rules.context import TableContext
from app.rules.state import Preset
from app.settings import Settings
from app.tables.actor import TableActor
from app.tables.messages import (
    AdminDissolve,
    AdminPause,
    AdminResume,
    Autoplay,
    EventOut,
    PlayerAction,
    PromptOut,
    Tick,
)
from app.tables.seats import SeatState
from app.tables.timers import BotPace, Timers
from tests.tables.test_actor import BOT, PUNG_OR_CHOW_ON_5P, TIMERS, Harness, T

STEP = 0.05  # the fake ticker's interval: a delay is acted on within one step of its end


class Paced(Harness):
    """A `Harness` whose table plays bots at `pace`; it notes the clock at every prompt
    sent and every action applied."""

    def __init__(
        self,
        pace: BotPace,
        *,
        bots: tuple[int, ...] = (0, 1, 2, 3),
        timers: Timers = TIMERS,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.table.bot_pace = pace
        self.table.timers = timers
        for seat in bots:
            self.table.seats[seat] = SeatState(11 + seat, autoplay=True, house_bot=True)
        self.applied: list[tuple[float, Action]] = []
        self.log: list[tuple[str, float, int]] = []  # prompts and actions: (kind, time, seat)
        self.table.observer = self

    def send(self, seat: int, item: Any) -> None:
        super().send(seat, item)
        if isinstance(item, PromptOut):
            self.log.append(("prompt", self.clock.now(), seat))

    def hand_started(self, table: TableActor, hands: int, seed: bytes, ctx: TableContext,
                     preset: Preset | None) -> None:
        pass

    def action_applied(self, table: TableActor, action: Action) -> None:
        self.applied.append((self.clock.now(), action))
        self.log.append(("action", self.clock.now(), action.seat))

    async def run_for(self, seconds: float) -> None:
        """Let `seconds` pass on the table's clock, ticking every `STEP`."""
        end = self.clock.now() + seconds
        while self.clock.now() < end - 1e-9:
            self.clock.advance(STEP)
            await self.handle(Tick())

    async def others_until_asked(self, seat: int) -> None:
        """The other seats answer at once (a pass on a claim, the greedy bot's turn) until
        `seat` is asked."""
        while seat not in self.pending():
            other = self.pending()[0]
            hand = self.table.hand
            assert hand is not None
            legal = self.prompt(other).legal
            choice = Pass(other) if Pass(other) in legal else BOT.choose(hand, other, legal)
            await self.handle(PlayerAction(other, choice, self.prompt(other).seq))

    def waits(self) -> list[float]:
        """For each action applied, the time since its seat was last prompted before it."""
        asked: dict[int, float] = {}
        out = []
        for kind, at, seat in self.log:
            if kind == "prompt":
                asked[seat] = at
            else:
                out.append(at - asked[seat])
        return out


async def test_bots_answer_no_sooner_than_the_least_delay_and_within_the_range() -> None:
    h = Paced(BotPace(0.6, 1.4, random.Random(5)), seed=1000)
    await h.deal()
    assert not h.applied  # dealt and prompted, nobody played yet
    await h.run_for(60)

    waits = h.waits()
    assert len(waits) > 40
    assert min(waits) >= 0.6 - 1e-9
    assert max(waits) <= 1.4 + STEP + 1e-9
    assert max(waits) - min(waits) > 0.4  # drawn per decision, not one fixed pause


async def test_a_delay_is_acted_on_by_the_tick_after_it_and_not_before() -> None:
    h = Paced(BotPace(1.0, 1.0))
    await h.deal()
    dealer = h.pending()[0]
    h.clock.advance(0.99)
    await h.handle(Tick())
    assert h.pending() == [dealer] and not h.applied
    h.clock.advance(0.01)
    await h.handle(Tick())
    assert [a.seat for _, a in h.applied] == [dealer]


async def test_with_no_delay_the_bots_play_the_hand_out_inside_the_deal() -> None:
    h = Paced(BotPace())
    await h.handle(Tick())  # one Tick: dealt and played to its end
    assert len(h.records) == 1 and h.table.hand is None


async def test_a_seeded_hand_ends_the_same_at_any_pace() -> None:
    at_once = Paced(BotPace(), seed=1000)
    paced = Paced(BotPace(0.6, 1.4, random.Random(9)), seed=1000)
    for h in (at_once, paced):
        while len(h.records) < 3:
            h.clock.advance(TIMERS.ready)
            await h.handle(Tick())
            await h.run_for(2.0)
            while h.table.hand is not None:
                await h.run_for(2.0)
    for quick, slow in zip(at_once.records, paced.records, strict=True):
        assert quick.seed == slow.seed
        assert quick.settlement == slow.settlement
        assert quick.state is not None and slow.state is not None
        assert quick.state.outcome == slow.state.outcome
        assert sorted(map(repr, quick.events)) == sorted(map(repr, slow.events))


async def test_a_delay_never_runs_past_the_decisions_deadline() -> None:
    # a claim timer of 1 s and a pace of 5 s: the bot plays its own choice at the
    # deadline, it is not timed out (no 托管 count, no 摸切 for it)
    h = Paced(BotPace(5.0, 5.0), timers=Timers(discard=1, claim=1, decide=1, ready=1))
    await h.deal()
    await h.run_for(3)
    assert h.applied
    assert all(abs(w - 1.0) <= STEP + 1e-9 for w in h.waits())
    assert all(seat.timeouts == 0 for seat in h.table.seats)


async def test_the_player_coming_back_cancels_the_play_scheduled_for_their_seat() -> None:
    h = Paced(BotPace(1.0, 1.0), bots=(), scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    await h.handle(Autoplay(0, True))  # the dealer turns 托管 on: played in a second
    assert h.pending() == [0] and not h.applied
    await h.handle(Autoplay(0, False))  # and off again before that
    await h.run_for(3)
    assert h.pending() == [0] and not h.applied  # waited for, as any player

    await h.handle(Autoplay(0, True))
    await h.run_for(0.5)
    prompt = h.prompt(0)
    await h.handle(PlayerAction(0, Discard(0, T("5p")), prompt.seq))  # acts itself
    assert [a for _, a in h.applied] == [Discard(0, T("5p"))]
    assert not h.table.seats[0].autoplay
    await h.run_for(3)
    assert [a.seat for _, a in h.applied] == [0]  # nothing more played for seat 0


async def test_a_timeouts_own_play_is_not_delayed_and_托管_then_plays_at_the_pace() -> None:
    h = Paced(BotPace(1.0, 1.0), bots=(), scenario=PUNG_OR_CHOW_ON_5P)
    await h.deal()
    h.clock.advance(TIMERS.discard)
    await h.handle(Tick())  # the dealer's first timeout: 摸切 at the deadline itself
    assert [(t, a.seat) for t, a in h.applied] == [(h.clock.now(), 0)]
    # the next seats answer for themselves until seat 0 is asked again, and times out again
    await h.others_until_asked(0)
    deadline = h.prompt(0).deadline
    h.clock.advance(deadline - h.clock.now())
    before = len(h.applied)
    await h.handle(Tick())
    assert h.table.seats[0].autoplay and h.applied[before][0] == deadline  # not delayed
    # from now on 托管 plays seat 0's prompts a second after each
    await h.others_until_asked(0)
    asked = h.clock.now()
    count = len([a for _, a in h.applied if a.seat == 0])
    await h.run_for(0.95)
    assert len([a for _, a in h.applied if a.seat == 0]) == count
    await h.run_for(0.1)
    played = [t for t, a in h.applied if a.seat == 0]
    assert len(played) == count + 1 and played[-1] - asked >= 1.0


async def test_a_pause_holds_the_bots_and_the_resume_starts_a_new_delay() -> None:
    h = Paced(BotPace(1.0, 1.0))
    await h.deal()
    h.clock.advance(0.5)
    await h.handle(AdminPause())
    h.clock.advance(10)
    await h.handle(Tick())
    assert not h.applied
    await h.handle(AdminResume())
    resumed = h.clock.now()
    await h.run_for(0.9)
    assert not h.applied
    await h.run_for(0.2)
    assert h.applied and h.applied[0][0] - resumed >= 1.0


async def test_a_dissolved_table_plays_nothing_it_had_scheduled() -> None:
    h = Paced(BotPace(1.0, 1.0))
    await h.deal()
    done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
    await h.handle(AdminDissolve(done))
    assert done.result() is not None  # the hand in play was voided
    sent = len(h.out)
    await h.run_for(3)
    assert not h.applied and len(h.out) == sent
    assert not [i for _, i in h.out[sent:] if isinstance(i, EventOut)]


@pytest.mark.parametrize(
    ("written", "pace"),
    [("0", (0, 0)), ("1000", (1000, 1000)), ("600,1400", (600, 1400)), (" 5 , 10 ", (5, 10))],
)
def test_the_delay_setting_reads_as_an_operator_writes_it(
    monkeypatch: pytest.MonkeyPatch, written: str, pace: tuple[int, int]
) -> None:
    monkeypatch.setenv("BOT_DELAY_MS", written)
    assert Settings().bot_delay_ms == pace


@pytest.mark.parametrize("written", ["9,3", "-1", "20000", "a,b", "1,2,3"])
def test_a_bad_delay_setting_is_refused(monkeypatch: pytest.MonkeyPatch, written: str) -> None:
    monkeypatch.setenv("BOT_DELAY_MS", written)
    with pytest.raises(ValueError):
        Settings()


def test_the_default_pace_is_about_a_second() -> None:
    assert Settings.model_fields["bot_delay_ms"].default == (600, 1400)

"""A player's own 托管 level (`autoplay` `level`, app/tables/levels.py `autoplay_bot`): at
expert the seat is played by `ExpertBot` while 托管 is on, at the default by `AutoplayBot`
exactly as before; the seat keeps the level when 托管 ends, so two timeouts later 托管 plays
at it again, and a journalled table carries it (an older journal reads as standard)."""

from __future__ import annotations

import pytest

from app.cluster.journal import SeatData
from app.rules.bots import AutoplayBot, Bot, TimeoutBot
from app.rules.expert import ExpertBot
from app.tables.messages import Autoplay, Connected, Disconnected, Tick
from tests.tables.test_actor import TIMERS, Harness, play_by_itself
from tests.tables.test_bot_levels import decisions

EXPERT, STANDARD = (0, 1), (2, 3)


async def test_seats_on_expert_autoplay_play_as_the_expert_and_the_rest_as_before() -> None:
    h = Harness(seed=1000)
    for seat in EXPERT:
        await h.handle(Autoplay(seat, True, "expert"))
    for seat in STANDARD:
        await h.handle(Autoplay(seat, True))  # no level: today's 托管
    await play_by_itself(h, 4)
    expert, autoplay = ExpertBot(), AutoplayBot()
    differs = 0
    for record in h.records:
        for state, seat, legal, action in decisions(record):
            if seat in EXPERT:
                assert expert.choose(state, seat, legal) == action  # type: ignore[arg-type]
                differs += autoplay.choose(state, seat, legal) != action  # type: ignore[arg-type]
            else:
                assert autoplay.choose(state, seat, legal) == action  # type: ignore[arg-type]
    assert differs > 0  # somewhere the expert chose what today's 托管 would not have


@pytest.mark.parametrize(("chosen", "bot"), [(None, AutoplayBot()), ("expert", ExpertBot())])
async def test_two_timeouts_switch_autoplay_on_at_the_level_chosen_at_the_table(
    chosen: str | None, bot: Bot
) -> None:
    h = Harness(seed=1000)
    if chosen is not None:
        await h.handle(Autoplay(0, True, chosen))
        await h.handle(Autoplay(0, False))  # 托管 ends; the choice stays with the seat
    for seat in (1, 2, 3):
        await h.handle(Autoplay(seat, True))
    await h.handle(Disconnected(0))
    await h.handle(Connected(0))  # a reconnect keeps it too
    assert not h.table.seats[0].autoplay
    await h.deal()
    while h.table.hand is not None:  # seat 0 never answers: its timer does, then 托管
        h.clock.advance(TIMERS.discard)
        await h.handle(Tick())
    record = h.records[-1]
    mine = [(s, legal, a) for s, seat, legal, a in decisions(record) if seat == 0]
    timeout = TimeoutBot()
    for state, legal, action in mine[:2]:  # the two timeouts: the clock's choice
        assert timeout.choose(state, 0, legal) == action  # type: ignore[arg-type]
    assert len(mine) > 2
    for state, legal, action in mine[2:]:
        assert bot.choose(state, 0, legal) == action  # type: ignore[arg-type]


async def test_autoplay_off_keeps_the_choice_and_on_without_a_level_is_standard() -> None:
    h = Harness(seed=1000)
    await h.deal()
    dealer = h.pending()[0]
    await h.handle(Autoplay(dealer, True, "expert"))
    assert h.table.seats[dealer].autoplay and h.table.seats[dealer].autoplay_level == "expert"
    await h.handle(Autoplay(dealer, False))
    assert not h.table.seats[dealer].autoplay
    assert h.table.seats[dealer].autoplay_level == "expert"
    await h.handle(Autoplay(dealer, True))  # on again without a level: standard
    assert h.table.seats[dealer].autoplay_level == "standard"


def test_the_journal_carries_the_level_and_an_older_one_reads_as_standard() -> None:
    old = SeatData.model_validate_json('{"account": 11, "autoplay": true, "bot": false}')
    assert old.autoplay_level == "standard"
    seat = SeatData(account=11, autoplay=True, autoplay_level="expert")
    assert SeatData.model_validate_json(seat.model_dump_json()).autoplay_level == "expert"



async def test_an_away_seat_is_played_at_the_level_its_player_chose() -> None:
    h = Harness(seed=1000)
    await h.handle(Autoplay(0, True, "expert"))
    await h.handle(Autoplay(0, False))
    for seat in (1, 2, 3):
        await h.handle(Autoplay(seat, True))
    await h.deal()
    await h.handle(Disconnected(0))  # away from the deal on: every timeout is 托管's
    while h.table.hand is not None:
        h.clock.advance(TIMERS.discard)
        await h.handle(Tick())
    expert, autoplay = ExpertBot(), AutoplayBot()
    mine = [(s, legal, a) for s, seat, legal, a in decisions(h.records[-1]) if seat == 0]
    assert mine
    for state, legal, action in mine:
        assert expert.choose(state, 0, legal) == action  # type: ignore[arg-type]
    assert any(autoplay.choose(s, 0, legal) != a for s, legal, a in mine)  # type: ignore[arg-type]

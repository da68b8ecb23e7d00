"""A tournament's table keeps its seats (docs/tournaments.md, "Play"), through the registry
and the real store:

- a player away when the next hand is due keeps the seat, on 托管, and is dealt in: a
  public table would free it;
- leaving during a hand is no escape: the hand goes on, the seat is played by the house bot
  for good (claims included), the event is told of the forfeit, and the player's own
  action later does not take the seat back from 托管;
- a table of house bots only is never closed as idle while the event plays it.
"""

from __future__ import annotations

import asyncio
import json

from app.rules.hand import legal_actions, pending_seats
from app.store.db import Database
from app.tables.admin import abandoned
from app.tables.messages import Autoplay, Disconnected, PlayerAction
from app.tables.registry import LiveTable, TableRegistry
from app.tables.timers import Timers
from tests.tables.test_table_seats import _accounts, _dealt, _seat_all, _stored, _until

FAST_DEAL = Timers(discard=60, claim=60, decide=60, ready=1.0)


class _Forfeits:
    def __init__(self) -> None:
        self.told: list[tuple[str, int]] = []

    def forfeited(self, live: LiveTable, account: int) -> None:
        self.told.append((live.table_id, account))


async def test_a_player_away_between_hands_keeps_the_seat_on_tuoguan(db: Database) -> None:
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=FAST_DEAL, tournament=7)
    try:
        sinks = await _seat_all(registry, live, ids)
        await _dealt(live, 1)
        for seat in range(4):  # every seat on 托管: the hand plays to its end
            live.table.submit(Autoplay(seat, True))
        # seat 2's player closes the tab during the hand
        for table_id, seat in registry.connections.disconnect(ids[2], sinks[ids[2]]):
            registry.require(table_id).table.submit(Disconnected(seat))
        second = (await _stored(db, live.table_id, 2))[1]
        assert json.loads(second.seats) == ids  # dealt in again, on 托管: nobody was freed
        assert live.accounts() == ids
        assert live.table.seats[2].autoplay and not live.table.seats[2].connected
    finally:
        await registry.stop()


async def test_leaving_a_tournament_table_forfeits_and_the_hand_goes_on(db: Database) -> None:
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions)
    forfeits = _Forfeits()
    registry.tournaments = forfeits
    live = registry.create("lishui", 1, timers=FAST_DEAL, tournament=7)
    try:
        await _seat_all(registry, live, ids)
        await _dealt(live, 1)
        hand_id = live.table.hand_id
        await registry.require(live.table_id).leave(ids[1])
        await registry.require(live.table_id).flush()
        assert forfeits.told == [(live.table_id, ids[1])]
        assert live.accounts() == ids and live.table.hand_id == hand_id
        seat = live.table.seats[1]
        assert seat.house_bot and seat.autoplay
        assert live.table.hand is not None and live.table.hand.phase != "ended"  # no escape
        # the player's own move does not take the seat back: 托管 stays on
        state = live.table.hand
        if 1 in pending_seats(state):
            live.table.submit(PlayerAction(1, legal_actions(state, 1)[0], live.table.seq))
            await registry.require(live.table_id).flush()
        assert live.table.seats[1].autoplay
        # leaving again tells nothing more
        await registry.require(live.table_id).leave(ids[1])
        await registry.require(live.table_id).flush()
        assert forfeits.told == [(live.table_id, ids[1])]
    finally:
        await registry.stop()


async def test_a_tournament_table_of_bots_is_never_idle(db: Database) -> None:
    ids = await _accounts(db, 4)
    registry = TableRegistry(db.sessions, idle_close_seconds=0.1)
    live = registry.create("lishui", 1, timers=FAST_DEAL, tournament=7)
    public = registry.create("lishui", 1, timers=FAST_DEAL)
    try:
        for seat, bot in enumerate(ids):
            await registry.sit(live.table_id, bot, seat, bot=True)
        assert not live.nobody_plays() and public.nobody_plays()
        await asyncio.sleep(0.5)
        assert registry.get(live.table_id) is live
        await _until(lambda: live.table.hand is not None or live.table.hand_id != "")
        assert not abandoned(live)
    finally:
        await registry.stop()

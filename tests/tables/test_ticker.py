"""A table wakes at its deadlines, not on a clock of its own (`tick_forever`,
`TableActor.next_wake`): while every seat thinks it gets no `Tick`; the timeout is played when
the deadline comes; a table waiting for a fourth player deals once the fourth sits."""

from __future__ import annotations

import asyncio

from app.protocol import EventMessage, PromptMessage
from app.store.db import Database
from app.tables.messages import Tick
from app.tables.registry import TableRegistry
from app.tables.timers import Timers
from tests.funded import funded_accounts
from tests.sinks import Sink
from tests.waits import until


def _events(sink: Sink, kind: str) -> list[EventMessage]:
    return [m for m in sink.messages
            if isinstance(m, EventMessage) and m.event.kind == kind]


async def test_a_thinking_table_gets_no_tick_until_its_deadline(db: Database) -> None:
    ids = await funded_accounts(db, 4, "k")
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=Timers(discard=1.5, claim=1.5, decide=1.5,
                                                       ready=0.0))
    ticks = 0
    submit = live.table.submit

    def counting(msg: object) -> None:
        nonlocal ticks
        ticks += isinstance(msg, Tick)
        submit(msg)  # type: ignore[arg-type]

    live.table.submit = counting  # type: ignore[method-assign]
    sinks = {a: Sink() for a in ids}
    try:
        for seat, account in enumerate(ids):
            registry.connections.connect(account, sinks[account])
            await registry.sit(live.table_id, account, seat)
        await until(lambda: any(isinstance(m, PromptMessage) for s in sinks.values()
                                for m in s.messages), 10, "the dealer's prompt")
        before = ticks
        await asyncio.sleep(1.0)  # nobody answers: the dealer thinks
        assert ticks == before  # polled four times a second before, for nothing
        assert not any(_events(s, "discarded") for s in sinks.values())
        # the deadline passes: the timeout discards for the dealer (摸切)
        await until(lambda: _events(sinks[ids[0]], "discarded"), 5, "the timeout's discard")
    finally:
        await registry.stop()


async def test_a_table_deals_once_its_fourth_player_sits(db: Database) -> None:
    ids = await funded_accounts(db, 4, "k")
    registry = TableRegistry(db.sessions)
    live = registry.create("lishui", 1, timers=Timers(ready=0.0))
    sinks = {a: Sink() for a in ids}
    try:
        for seat, account in enumerate(ids[:3]):
            registry.connections.connect(account, sinks[account])
            await registry.sit(live.table_id, account, seat)
        await asyncio.sleep(0.5)
        assert live.table.hand is None and live.table.next_wake() is None  # nothing due
        registry.connections.connect(ids[3], sinks[ids[3]])
        await registry.sit(live.table_id, ids[3], 3)  # the sit, in the inbox, wakes the ticker
        await until(lambda: _events(sinks[ids[3]], "hand_started"), 5, "the deal")
    finally:
        await registry.stop()

"""The names and silver ``table_state`` shows: after each hand, each seat's balance as the
ledger left it, taken from the hand's own store (a burst of endings reads no account again
for it); a change made away from the table (an operator's adjustment) shows once the
table's copy is `PROFILES_FRESH` seconds old."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol import EventMessage, TableStateMessage
from app.store import ledger
from app.store.db import Database
from app.tables import announce as announce_module
from app.tables.registry import TableRegistry
from app.tables.timers import Timers
from tests.funded import funded_accounts
from tests.sinks import Sink
from tests.waits import until

FAST = Timers(discard=60, claim=60, decide=60, ready=0.05)
START = 100_000
HANDS = 4


async def test_after_each_hand_the_table_shows_the_balances_the_ledger_left(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    accounts = await funded_accounts(db, 4, "shown", balance=START)
    registry = TableRegistry(db.sessions)
    reads = 0
    real = registry.parts.reads

    async def counted(wanted: set[int]) -> Any:
        nonlocal reads
        reads += 1
        return await real(wanted)

    monkeypatch.setattr(registry.parts, "reads", counted)
    sink = Sink()
    try:
        live = registry.create("lishui", 10, timers=FAST)
        for account in accounts:
            registry.connections.connect(account, sink if account == accounts[0] else Sink())
            await registry.sit(live.table_id, account, bot=True)
        await until(lambda: len(_ended(sink)) >= HANDS, 60, "hands shown")
    finally:
        await registry.stop()

    balances = dict.fromkeys(accounts, START)
    checked = 0
    after_hand = False
    for message in sink.messages:
        if isinstance(message, EventMessage) and message.event.kind == "hand_ended":
            silver = message.event.model_dump()["silver"]
            for seat, account in enumerate(live.accounts()):
                assert account is not None
                balances[account] += silver[seat]
            after_hand = True
        elif isinstance(message, EventMessage) and message.event.kind == "hand_started":
            after_hand = False
        elif isinstance(message, TableStateMessage) and after_hand and not message.settling:
            shown = {s.seat: s.balance for s in message.seats}
            assert shown == {s: balances[a] for s, a in enumerate(live.accounts()) if a}
            checked += 1
    assert checked >= HANDS - 1
    assert reads <= 2  # the first seating's reads; the hands' own stores did the rest


async def test_an_adjustment_made_away_from_the_table_shows_once_the_copy_is_old(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(announce_module, "PROFILES_FRESH", 0.3)
    accounts = await funded_accounts(db, 2, "adjusted", balance=START)
    registry = TableRegistry(db.sessions)
    sink = Sink()
    try:
        live = registry.create("lishui", 10, timers=FAST)
        registry.connections.connect(accounts[0], sink)
        await registry.sit(live.table_id, accounts[0])
        await registry.sit(live.table_id, accounts[1])
        await until(lambda: _balance(sink, accounts[0]) == START, 10, "the first table_state")
        async with db.sessions() as s:
            await ledger.adjust(s, accounts[0], 500, "a refund", admin_id=accounts[1])

        def shown() -> bool:
            live.announce()  # whatever makes the table send one
            return _balance(sink, accounts[0]) == START + 500

        await until(shown, 10, "the adjustment")
    finally:
        await registry.stop()


def _ended(sink: Sink) -> list[EventMessage]:
    return [m for m in sink.messages
            if isinstance(m, EventMessage) and m.event.kind == "hand_ended"]


def _balance(sink: Sink, account: int) -> int | None:
    states = [m for m in sink.messages if isinstance(m, TableStateMessage)]
    if not states:
        return None
    return states[-1].seats[0].balance

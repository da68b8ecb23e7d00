"""Faults for tests against PostgreSQL: the database refusing connections for a while, and
the checks that silver survived it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterable
from contextlib import asynccontextmanager

from sqlalchemy import bindparam, make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from app.protocol import EventMessage
from app.store.db import async_url
from tests.sinks import Sink


@asynccontextmanager
async def refusing_connections(url: str) -> AsyncIterator[None]:
    """While inside, PostgreSQL refuses new connections to the database of `url` and the
    open ones are cut (``ALLOW_CONNECTIONS false`` and ``pg_terminate_backend``), as when a
    database server restarts; connections are allowed again on the way out."""
    target = make_url(async_url(url))
    name = target.database
    admin = create_async_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false'))
            await conn.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = :name AND pid <> pg_backend_pid()"
            ), {"name": name})
        try:
            yield
        finally:
            async with admin.connect() as conn:
                await conn.execute(text(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true'))
    finally:
        await admin.dispose()


async def check_hands_paid(url: str, hands: Collection[str], stake: int,
                           nets: dict[str, list[int]]) -> None:
    """Every hand in `hands` has exactly one record and one settlement row per seat whose
    silver is its `nets` (points x `stake`); every balance equals the sum of its ledger."""
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(text(
                "SELECT a.username, a.balance, COALESCE(SUM(l.delta), 0) "
                "FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id "
                "GROUP BY a.id, a.username, a.balance"
            ))).all()
            for username, balance, total in rows:
                assert balance == total, f"{username}: balance {balance} != ledger {total}"
            records = dict((await conn.execute(text(
                "SELECT id, COUNT(*) FROM hand_records WHERE id IN :hands AND NOT voided "
                "GROUP BY id"
            ).bindparams(bindparam("hands", expanding=True)), {"hands": list(hands)})).all())
            missing = sorted(set(hands) - set(records))
            assert not missing, f"hands shown as ended but not stored as played: {missing}"
            assert all(n == 1 for n in records.values())
            paid = (await conn.execute(text(
                "SELECT hand_id, idempotency_key, delta FROM ledger "
                "WHERE hand_id IN :hands AND idempotency_key LIKE 'hand%'"
            ).bindparams(bindparam("hands", expanding=True)), {"hands": list(hands)})).all()
        by_hand: dict[str, list[int]] = {}
        for hand_id, key, delta in paid:
            if "house_" in key:  # house rewards (湖州) are not transfers between seats
                continue
            by_hand.setdefault(hand_id, []).append(delta)
        for hand_id in hands:
            deltas = by_hand.get(hand_id, [])
            assert len(deltas) == 4, f"hand {hand_id}: {len(deltas)} settlement rows"
            assert sorted(deltas) == sorted(n * stake for n in nets[hand_id]), hand_id
    finally:
        await engine.dispose()


def shown_ended(sinks: Iterable[Sink]) -> dict[str, list[int]]:
    """Each hand any of `sinks` was shown as ended, and its net points by seat."""
    return {
        m.hand_id: list(m.event.net)  # type: ignore[union-attr]
        for sink in sinks for m in sink.messages
        if isinstance(m, EventMessage) and m.event.kind == "hand_ended"
    }

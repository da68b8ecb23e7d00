"""A takeover and a lost lease, as /metrics counts them: two nodes in one process (the
failover tests' nodes) on one Redis; node B takes a table over once A's lease is gone
(`mahjong_table_takeovers_total`), and A, fenced off at its next action, stops the table and
counts the lease it lost (`mahjong_leases_lost_total`)."""

from __future__ import annotations

from prometheus_client import REGISTRY

from app.cluster.keys import Keys
from app.rules.hand import legal_actions, pending_seats
from app.store.db import Database
from app.tables.messages import PlayerAction
from tests.cluster.test_failover import (  # the failover tests' nodes, on their database
    _lishui_table,
    _node,
    _stop,
    _until,
    database,
    database_url,
)


def _count(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


async def test_a_takeover_and_the_lease_lost_are_counted(
    database: Database, redis_url: str, prefix: str, redis: object
) -> None:
    a = await _node("a", database, redis_url, prefix)
    b = await _node("b", database, redis_url, prefix)
    taken, lost = _count("mahjong_table_takeovers_total"), _count("mahjong_leases_lost_total")
    try:
        live_a = await _lishui_table(a, (11, 12, 13, 14))
        table_id = live_a.table_id
        await _until(lambda: live_a.table.hand is not None)
        assert await b.watch_once() == []  # held: nothing to take
        await a.keeper.stop()
        await a.redis.delete(Keys(prefix).lease(table_id))
        assert await b.watch_once() == []
        assert _count("mahjong_table_takeovers_total") == taken
        assert await b.watch_once() == [table_id]
        assert _count("mahjong_table_takeovers_total") == taken + 1
        assert _count("mahjong_leases_lost_total") == lost  # A does not know yet

        state = live_a.table.hand
        assert state is not None
        seat = pending_seats(state)[0]
        live_a.table.submit(PlayerAction(seat, legal_actions(state, seat)[0], live_a.table.seq))
        await _until(lambda: a.registry.get(table_id) is None)
        assert _count("mahjong_leases_lost_total") == lost + 1
        assert _count("mahjong_table_takeovers_total") == taken + 1
    finally:
        await _stop(a, b)


__all__ = ["database", "database_url"]  # fixtures, found here by pytest

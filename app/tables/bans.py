"""A ban (封号) reaching the account's live session at once, on every node: the account's
socket closes with `CLOSE_BANNED`, its seat escapes during a hand (逃跑, as a kick) or is
freed between hands, and no action of that seat is applied from then on
(`SeatState.banned`).
"""

from __future__ import annotations

import contextlib
import logging

from app.tables.errors import TableError
from app.tables.registry import TableRegistry

log = logging.getLogger(__name__)

CLOSE_BANNED = 4004  # the WebSocket close code of a banned account's sockets, at once


async def ban(registry: TableRegistry, account_id: int) -> None:
    """A ban (封号) reaches the account's live session at once, on every node
    (`ban_here` here, `SeatClaims.banned` for the others); returns once this node's tables
    have given its seats up."""
    tables = ban_here(registry, account_id)
    await registry.network.claims.banned(account_id)
    for table_id in tables:
        live = registry.get(table_id)
        with contextlib.suppress(TableError):  # closed meanwhile, or stuck: it escapes
            if live is not None:
                await live.flush()


def ban_here(registry: TableRegistry, account_id: int) -> list[str]:
    """The banned account's socket on this node closes with `CLOSE_BANNED` and its seats
    at this node's tables are given up: during a hand an escape (逃跑, as a kick, then
    freed), between hands freed. From now on no action of those seats is applied, also
    one already in the table's inbox. The tables it sat at."""
    sink = registry.sockets.drop(account_id)
    if sink is not None:
        registry.network.delivery.disconnected(account_id, sink)
        sink.close(CLOSE_BANNED)
    tables = []
    for table_id, seat in registry.seating.tables_of(account_id):
        registry.require(table_id).table.ban(account_id)  # as `leave`: an escape in a hand
        tables.append(table_id)
        log.warning("table %s: banned account %d leaves seat %d", table_id, account_id,
                    seat)
    return tables

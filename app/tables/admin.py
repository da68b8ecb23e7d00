"""Admin table commands (`/admin/tables`) as the registry holding the table runs them.

`run` is the one implementation: the HTTP node calls it for a table of its own, and with
a cluster the owner calls it for a command that came over the bus
(`app.cluster.messages.AdminCall`), so that an operator gets the same answer from any node.
Its result is plain JSON (it crosses the bus); `app.api.admin_tables` turns it into the
response and writes the audit row.
"""

from __future__ import annotations

from typing import Any

from app.rules.views import revealed_view, seat_view
from app.tables.errors import TableError
from app.tables.host import LiveTable
from app.tables.registry import TableRegistry
from app.tables.remote import AdminOp


def snapshot(live: LiveTable) -> dict[str, Any]:
    """What an admin is shown of a table, before names are added."""
    table = live.table
    return {
        "id": live.table_id,
        "variant": live.variant,
        "stake": live.stake,
        "accounts": live.accounts(),
        "status": live.status,
        "hand_id": table.hand_id if table.hand is not None else None,
        "paused": table.paused,
    }


def abandoned(live: LiveTable) -> bool:
    """No player sits at the table (nobody, or bots only) and no hand is in play: the lobby
    may close it (app/api/lobby.py), which voids nothing."""
    return live.table.hand is None and all(
        account is None or account in live.bots for account in live.accounts()
    )


async def run(
    registry: TableRegistry,
    op: AdminOp,
    table_id: str = "",
    *,
    seat: int | None = None,
    reveal: bool = False,
) -> dict[str, Any]:
    """Run one admin command on this node's table (TableError: the refusal)."""
    if op == "list":
        return {"tables": [snapshot(live) for live in registry.all()]}
    live = registry.require(table_id)
    if op == "inspect":
        state = live.table.hand
        view: dict[str, Any] | None = None
        if state is not None:
            view = revealed_view(state) if reveal else seat_view(state, None)
        return {"table": snapshot(live), "view": view}
    if op == "pause":
        await registry.pause(table_id)
        return {"table": snapshot(live)}
    if op == "resume":
        await registry.resume(table_id)
        return {"table": snapshot(live)}
    if op == "kick":
        if seat is None or not 0 <= seat < 4:
            raise TableError("validation_error", f"no seat {seat!r}")
        in_hand = live.table.hand is not None
        account = await registry.kick(table_id, seat)
        return {"table": snapshot(live), "account": account, "escape": in_hand}
    if op == "close_abandoned":  # the lobby's, not an admin's: see `abandoned`
        if not abandoned(live):
            return {"table_id": table_id, "closed": False}
        await registry.dissolve(table_id)
        return {"table_id": table_id, "closed": True}
    assert op == "dissolve", op
    seats = live.accounts()
    voided = await registry.dissolve(table_id)
    return {"table_id": table_id, "voided_hand_id": voided, "seats": seats}


async def run_anywhere(
    registry: TableRegistry,
    op: AdminOp,
    table_id: str,
    *,
    seat: int | None = None,
    reveal: bool = False,
) -> dict[str, Any]:
    """`run` on the node that holds the table: this one, or its owner over the cluster's bus
    (RemoteRefused `not_found` when no node has it)."""
    if registry.get(table_id) is not None:
        return await run(registry, op, table_id, seat=seat, reveal=reveal)
    return await registry.network.tables.admin(op, table_id, seat=seat, reveal=reveal)

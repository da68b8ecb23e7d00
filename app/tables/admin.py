"""Admin table commands (`/admin/tables`) as the registry holding the table runs them.

`run` is the one implementation: the HTTP node calls it for a table of its own, and with
a cluster the owner calls it for a command that came over the bus
(`app.cluster.messages.AdminCall`), so that an operator gets the same answer from any node.
Its result is plain JSON (it crosses the bus); `app.api.admin_tables` turns it into the
response and writes the audit row.

- a pause (`pause`) freezes the table: deadlines keep their remaining time, actions are
  refused, until `resume`; the cluster's directory stores it (a pause survives failover);
- a kicked account (`kick`) is told (``error`` code ``kicked``) and, sitting nowhere else,
  its socket is closed with `CLOSE_KICKED`;
- dissolving (`TableRegistry.dissolve`) closes the table.
"""

from __future__ import annotations

from typing import Any

from app.protocol import ErrorMessage
from app.rules.views import revealed_view, seat_view
from app.tables.errors import TableError
from app.tables.host import ANSWER_SECONDS, LiveTable
from app.tables.messages import AdminPause, AdminResume, Leave
from app.tables.registry import TableRegistry
from app.tables.remote import AdminOp

ADMIN_WAIT_SECONDS = ANSWER_SECONDS  # how long an admin command waits for the actor
CLOSE_KICKED = 4003  # the WebSocket close code of a kicked account that sits nowhere else


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
    return live.table.hand is None and live.nobody_plays()


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
        # the spectators' accounts: a private room tells them what it tells the seats
        # (app/rooms/service.py), from whichever node the room's change came through
        spectators = sorted(live.watchers.spectators)
        return {"table": snapshot(live), "view": view, "spectators": spectators}
    if op == "pause":
        await pause(registry, table_id)
        return {"table": snapshot(live)}
    if op == "resume":
        await resume(registry, table_id)
        return {"table": snapshot(live)}
    if op == "kick":
        if seat is None or not 0 <= seat < 4:
            raise TableError("validation_error", f"no seat {seat!r}")
        in_hand = live.table.hand is not None
        account = await kick(registry, table_id, seat)
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


async def pause(registry: TableRegistry, table_id: str) -> None:
    """Freeze the table: deadlines keep their remaining time, actions are refused."""
    live = registry.require(table_id)
    live.table.submit(AdminPause())
    await live.flush()
    registry.network.directory.pause_changed(live)


async def resume(registry: TableRegistry, table_id: str) -> None:
    """Unfreeze the table: deadlines run again from their remaining time."""
    live = registry.require(table_id)
    live.table.submit(AdminResume())
    await live.flush()
    registry.network.directory.pause_changed(live)


async def kick(registry: TableRegistry, table_id: str, seat: int) -> int | None:
    """Remove whoever sits at `seat`: during a hand an escape (逃跑, RULES.md 1) that
    ends the hand and is settled as one, then the seat is freed. The account removed."""
    live = registry.require(table_id)
    account = live.account_at(seat)
    if account is None:
        raise TableError("not_found", f"nobody sits at seat {seat}")
    live.table.submit(Leave(seat, account))
    await live.flush()
    _tell_kicked(registry, account, table_id)
    return account


def _tell_kicked(registry: TableRegistry, account_id: int, table_id: str) -> None:
    """The kicked player learns it at once; sitting at no other table, its socket closes."""
    told = ErrorMessage(
        code="kicked", message=f"an administrator removed you from table {table_id}"
    )
    registry.sockets.send_message(account_id, told)
    sink = registry.sockets.get(account_id)
    if sink is not None and registry.seating.table_of(account_id) is None:
        sink.close(CLOSE_KICKED)

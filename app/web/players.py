"""Who sits at a table, for the client's seat plates: name, title and silver per seat.

The WebSocket's `table_state` carries the same (and more) once the server sends it; this
read lets a client show the players right after sitting down or reloading. It also gives the
table's timers (seconds per decision), which the protocol does not carry: the client counts
down other seats' turns and the pause between hands with them. Anyone signed in
may read it (the lobby already lists every table's seats); bots are flagged. A private
room's table also names the room's code, to its players and its owner only. Every node of a
cluster answers the same: a table another node owns is read from the cluster's directory.
It gives the table page its socket's heartbeat too (how often to ping, how long to wait for
the answer), an operator's setting.
"""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.api import errors
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ApiError
from app.api.lobby import registry_of
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.store import ranks
from app.store.house import BOT_PREFIX
from app.store.models import Account
from app.tables.levels import DEFAULT_BOT_LEVEL, BotLevel, bot_level

router = APIRouter(tags=["lobby"])


class PlayerOut(BaseModel):
    seat: int
    name: str | None  # null: the seat is empty
    title: str | None
    balance: int | None
    bot: bool


class TimersOut(BaseModel):
    """Seconds per decision at this table (RULES.md 1, Timers)."""

    discard: float
    claim: float
    decide: float
    ready: float


class HeartbeatOut(BaseModel):
    """The browser client's heartbeat (settings `ws_client_ping_seconds`,
    `ws_client_pong_seconds`): how often it pings the socket, and how long it waits to hear
    the server after a ping before it takes the socket for dead and says so."""

    ping_ms: int
    pong_timeout_ms: int


class PlayersOut(BaseModel):
    table_id: str
    variant: str
    stake: int
    seats: list[PlayerOut]
    timers: TimersOut | None = Field(
        default=None,
        description="the table's timers; null only while another node's table is listed "
        "by a node of an older version",
    )
    room: str | None = Field(
        default=None,
        description="a private room's code (房间号) when the caller sits at its table or "
        "opened it; null for a public table, and for anyone else (the code is the key)",
    )
    heartbeat: HeartbeatOut | None = Field(
        default=None, description="the pace of the table page's pings and their timeout"
    )
    bot_level: BotLevel = Field(
        default=DEFAULT_BOT_LEVEL,
        description="who plays the table's house bots: beginner (新手), standard (普通), "
        "expert (高手); a bot's seat plate shows it",
    )


@router.get("/tables/{table_id}/players", responses=errors.responses("not_found", *AUTH_ERRORS))
async def players(
    table_id: str,
    account: CurrentAccount,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
) -> PlayersOut:
    """Each seat's player: name, title (by silver) and silver; nulls for an empty seat."""
    registry = registry_of(request)
    live = registry.get(table_id)
    timers: TimersOut | None = None
    if live is not None:
        variant, stake, accounts = live.variant, live.stake, live.accounts()
        timers = TimersOut(**asdict(live.timers))
        room, creator = live.room, live.creator
        level = bot_level(live.bot_level)
    else:  # another node's table (a cluster), or none
        summary = await registry.network.tables.summary(table_id)
        if summary is None:
            raise ApiError("not_found", f"no table {table_id!r}")
        variant, stake = str(summary["variant"]), int(summary["stake"])
        accounts = [None if a is None else int(a) for a in summary["seats"]]
        if summary.get("timers") is not None:  # a summary written before they were in it
            timers = TimersOut(**summary["timers"])
        room, creator = summary.get("room"), summary.get("creator")
        level = bot_level(summary.get("bot_level"))
    ids = [a for a in accounts if a is not None]
    async with session.begin():
        rows = (
            await session.execute(
                select(Account.id, Account.username, Account.balance).where(Account.id.in_(ids))
            )
        ).all() if ids else []
    found = {row.id: (row.username, row.balance) for row in rows}
    seats = []
    for seat, account_id in enumerate(accounts):
        if account_id is None or account_id not in found:
            seats.append(PlayerOut(seat=seat, name=None, title=None, balance=None, bot=False))
            continue
        name, balance = found[account_id]
        seats.append(PlayerOut(
            seat=seat,
            name=name,
            title=ranks.title_of(balance),
            balance=balance,
            bot=name.startswith(BOT_PREFIX),
        ))
    # the table page of a private room shows its code, rules and progress (GET /rooms/{code})
    code = room if room and (account.id in accounts or account.id == creator) else None
    heartbeat = HeartbeatOut(
        ping_ms=round(settings.ws_client_ping_seconds * 1000),
        pong_timeout_ms=round(settings.ws_client_pong_seconds * 1000),
    )
    return PlayersOut(
        table_id=table_id, variant=variant, stake=stake, seats=seats, timers=timers, room=code,
        heartbeat=heartbeat, bot_level=level,
    )

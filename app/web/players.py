"""Who sits at a table, for the client's seat plates: name, title and silver per seat.

The WebSocket's `table_state` carries the same (and more) once the server sends it; this
read lets a client show the players right after sitting down or reloading. Anyone signed in
may read it (the lobby already lists every table's seats); bots are flagged.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel
from sqlalchemy import select

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.lobby import BOT_PREFIX, registry_of
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.store import ranks
from app.store.models import Account

router = APIRouter(tags=["lobby"])


class PlayerOut(BaseModel):
    seat: int
    name: str | None  # null: the seat is empty
    title: str | None
    balance: int | None
    bot: bool


class PlayersOut(BaseModel):
    table_id: str
    variant: str
    stake: int
    seats: list[PlayerOut]


@router.get("/tables/{table_id}/players", responses=errors.responses("not_found", *AUTH_ERRORS))
async def players(
    table_id: str, account: CurrentAccount, request: Request, session: SessionDep
) -> PlayersOut:
    """Each seat's player: name, title (by silver) and silver; nulls for an empty seat."""
    live = registry_of(request).get(table_id)
    if live is None:
        raise ApiError("not_found", f"no table {table_id!r}")
    ids = [a for a in live.accounts() if a is not None]
    async with session.begin():
        rows = (
            await session.execute(
                select(Account.id, Account.username, Account.balance).where(Account.id.in_(ids))
            )
        ).all() if ids else []
    found = {row.id: (row.username, row.balance) for row in rows}
    seats = []
    for seat, account_id in enumerate(live.accounts()):
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
    return PlayersOut(table_id=live.table_id, variant=live.variant, stake=live.stake, seats=seats)

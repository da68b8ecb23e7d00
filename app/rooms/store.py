"""Private rooms in the database: made with a code unique among open rooms, their session
counted from the stored hands of their table, their dissolve vote, and their end (the
code freed, the scoreboard stored). Each function runs in the caller's session and
transaction."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.protocol.rooms import RoomRematch
from app.rooms.scoreboard import PlayedHand, Scoreboard, scoreboard
from app.store.models import Account, HandRecord, LedgerEntry, Room

CODE_ATTEMPTS = 20


def new_code() -> str:
    """Six digits from the OS's randomness (the first is never 0)."""
    return str(100_000 + secrets.randbelow(900_000))


async def insert(session: AsyncSession, room: Room) -> Room:
    """Store a new open room under a fresh code (another try on a code in use)."""
    for _ in range(CODE_ATTEMPTS):
        code = new_code()
        room.code = room.open_code = code
        try:
            async with session.begin_nested():
                session.add(room)
                await session.flush()
            return room
        except IntegrityError:
            session.expunge(room)
            continue
    raise RuntimeError("no free room code after many tries")


async def open_room(session: AsyncSession, code: str) -> Room | None:
    return (await session.execute(select(Room).where(Room.open_code == code))).scalar_one_or_none()


async def by_table(session: AsyncSession, table_id: str) -> Room | None:
    return (await session.execute(select(Room).where(Room.table_id == table_id))).scalar_one_or_none()


async def by_tables(session: AsyncSession, table_ids: Sequence[str]) -> dict[str, Room]:
    """The rooms of these tables, by table (a table without a room left out)."""
    if not table_ids:
        return {}
    rows = (await session.execute(select(Room).where(Room.table_id.in_(table_ids)))).scalars()
    return {room.table_id: room for room in rows}


async def closed_room_of(session: AsyncSession, code: str, account: int) -> Room | None:
    """The latest room that had `code` and is over, which `account` owned or played in."""
    rooms = (await session.execute(
        select(Room).where(Room.code == code, Room.open_code.is_(None)).order_by(Room.id.desc())
    )).scalars().all()
    for room in rooms:
        if room.owner_id == account or account in await players(session, room.table_id):
            return room
    return None


async def rematch_of(session: AsyncSession, room: Room) -> RoomRematch | None:
    """The room opened after `room` (null: none)."""
    if room.rematch_id is None or room.rematch_by is None:
        return None
    new = await session.get(Room, room.rematch_id)
    if new is None:
        return None
    return RoomRematch(code=new.code, table_id=new.table_id, by=room.rematch_by)


async def any_closed(session: AsyncSession, code: str) -> bool:
    """Some room that is over had `code`."""
    found = await session.execute(
        select(Room.id).where(Room.code == code, Room.open_code.is_(None)).limit(1))
    return found.first() is not None


async def link_rematch(session: AsyncSession, old_id: int, new_id: int, by: int) -> bool:
    """Point a room that is over to its rematch, once: False when it has one already (a
    press on another node, or at the same moment, came first)."""
    done = await session.execute(
        update(Room).where(Room.id == old_id, Room.rematch_id.is_(None))
        .values(rematch_id=new_id, rematch_by=by)
    )
    return bool(done.rowcount)  # type: ignore[attr-defined]


async def rooms_of(session: AsyncSession, account: int, limit: int) -> list[Room]:
    """The rooms `account` owned or played a hand in, newest first."""
    tables = select(HandRecord.table_id).where(HandRecord.seats.contains(f"{account}"))
    rows = (await session.execute(
        select(Room).where((Room.owner_id == account) | Room.table_id.in_(tables))
        .order_by(Room.id.desc()).limit(limit * 4)
    )).scalars().all()
    mine = [r for r in rows if r.owner_id == account or account in await players(session, r.table_id)]
    return mine[:limit]


async def hands(session: AsyncSession, table_id: str) -> Sequence[HandRecord]:
    """The table's stored hands, in the order played."""
    rows = (await session.execute(
        select(HandRecord).where(HandRecord.table_id == table_id)
    )).scalars().all()
    return sorted(rows, key=lambda r: _number(r.id))


def _number(hand_id: str) -> int:
    """The hand's number at its table (hand ids are `<table>-<n>`)."""
    tail = hand_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


async def players(session: AsyncSession, table_id: str) -> set[int]:
    """Every account that sat in a hand of the table."""
    return {a for r in await hands(session, table_id) for a in json.loads(r.seats) if a is not None}


def progress(room: Room, records: Sequence[HandRecord]) -> int:
    """The session played so far in its unit, from its stored hands (`hands`): hands not
    voided, or 圈 completed, or 版 completed."""
    mark = {"quan": "round_end", "ban": "session_end"}.get(room.length_unit)
    done = 0
    for record in records:
        if record.voided:
            continue
        if mark is None or json.loads(record.result).get(mark):
            done += 1
    return done


async def board(
    session: AsyncSession, records: Sequence[HandRecord]
) -> tuple[Scoreboard, dict[int, str]]:
    """The session's scoreboard from its stored hands (`hands`) and their ledger rows, and
    the names of its players."""
    ids = [r.id for r in records]
    silver: dict[str, dict[int, int]] = {}
    if ids:
        rows = await session.execute(
            select(LedgerEntry.hand_id, LedgerEntry.account_id, func.sum(LedgerEntry.delta))
            .where(LedgerEntry.hand_id.in_(ids))
            .group_by(LedgerEntry.hand_id, LedgerEntry.account_id)
        )
        for hand_id, account, delta in rows.all():
            silver.setdefault(str(hand_id), {})[int(account)] = int(delta)
    played = []
    for r in records:
        result: dict[str, Any] = json.loads(r.result)
        outcome = None if r.voided or "outcome" not in result else str(result["outcome"])
        played.append(PlayedHand(
            hand_id=r.id,
            seats=tuple(json.loads(r.seats)),
            outcome=outcome,
            net=tuple(result.get("net", (0, 0, 0, 0))),
            silver=silver.get(r.id, {}),
        ))
    sheet = scoreboard(played)
    names: dict[int, str] = {}
    if sheet.players:
        rows2 = await session.execute(
            select(Account.id, Account.username).where(Account.id.in_(sheet.players))
        )
        names = {int(i): str(n) for i, n in rows2.all()}
    return sheet, names


async def finish(session: AsyncSession, room: Room, status: str, scoreboard_json: str,
                 at: datetime) -> bool:
    """End an open room (`ended` or `dissolved`): its code is freed, its scoreboard kept.
    False: it was over already (another node ended it first)."""
    done = await session.execute(
        update(Room)
        .where(Room.id == room.id, Room.status == "open")
        .values(status=status, open_code=None, scoreboard=scoreboard_json, ended_at=at,
                vote_by=None, vote_deadline=None, votes=None)
    )
    return bool(done.rowcount)  # type: ignore[attr-defined]

"""再来一局 (a rematch): once a private room is over, any of its players opens a new room
with the same rules, length, stake, spectators, house bots' level and owner; the old room points to it
(`rematch`), so every player of the old one is invited through the old room's `room`
message and `GET /rooms/{code}`. It is made once: a second press, by anyone and on any
node, finds the same new room. Nobody is seated by it: a player takes the invitation by
joining the new room's code, one who declines or left is simply not seated. docs/rooms.md."""

from __future__ import annotations

import json

from sqlalchemy.ext.asyncio import AsyncSession

from app.protocol.rooms import RoomInfo, RoomLength, Scoreboard
from app.rooms import store
from app.rooms.service import RoomRefused, Rooms
from app.store.models import Room
from app.tables.timers import Timers


async def rematch(rooms: Rooms, code: str, account: int) -> tuple[RoomInfo, bool]:
    """The rematch of the room with `code` that is over and that `account` owned or played
    in, made now or found: the new room, and whether this call made it."""
    async with rooms.sessions() as session, session.begin():
        old = await store.closed_room_of(session, code, account)
        if old is None:
            if await store.open_room(session, code) is not None:
                raise RoomRefused("room_open", "the room's session is still running")
            if await store.any_closed(session, code):
                raise RoomRefused("forbidden", "only a player of the room may ask for a rematch")
            raise RoomRefused("not_found", f"no room {code!r}")
        if old.tournament_id is not None:
            raise RoomRefused("forbidden", "a tournament's table has no rematch")
        if old.rematch_id is not None:
            return await _new_room(rooms, session, old), False
        old_id, old_table = old.id, old.table_id
        owner, variant, options, stake = old.owner_id, old.variant, json.loads(old.options), old.stake
        timers = Timers(**json.loads(old.timers))
        length = RoomLength(unit=old.length_unit, count=old.length)  # type: ignore[arg-type]
        spectators, bot_level = old.spectators, old.bot_level
    new = await rooms.create(owner, variant, options, stake, timers, length, spectators,
                             bot_level)
    async with rooms.sessions() as session, session.begin():
        won = await store.link_rematch(session, old_id, new.id, account)
    if not won:  # another press came first: this room closes unused
        async with rooms.sessions() as session, session.begin():
            mine = await session.get(Room, new.id)
            assert mine is not None
            empty = Scoreboard(players=[], hands=[], points=[], silver=[], best=None)
            await store.finish(session, mine, "dissolved", empty.model_dump_json(), rooms.now())
        await rooms.free(new.table_id)
    async with rooms.sessions() as session, session.begin():
        old_room = await session.get(Room, old_id)
        assert old_room is not None
        told = await rooms.info(session, old_room)
        invited = sorted(await store.players(session, old_table) | {old_room.owner_id})
        made = await _new_room(rooms, session, old_room)
    rooms.tell(told, list(invited))
    return made, won


async def _new_room(rooms: Rooms, session: AsyncSession, old: Room) -> RoomInfo:
    new = await session.get(Room, old.rematch_id)
    assert new is not None
    return await rooms.info(session, new)

"""Private rooms at run time: made with a live table, their session counted after each
stored hand (on the node that owns the table: it stops dealing once the session is over,
then frees the seats), and the dissolve vote (on any node: the vote lives in the database
and the table is dissolved where it lives). Every change is told to the room's players and
to the spectators of its table as a `room` message (a spectator holds the code already, and
`GET /rooms/{code}` shows anyone holding it the same object). docs/rooms.md."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.protocol.encode import message_text
from app.protocol.rooms import (
    BestHand,
    RoomInfo,
    RoomLength,
    RoomMessage,
    RoomVote,
    Scoreboard,
    ScoreboardHand,
    ScoreboardPlayer,
)
from app.protocol.vocabulary import as_variant
from app.rooms import store
from app.store import house
from app.store.models import Account, HandRecord, Room
from app.tables import admin as table_admin
from app.tables.errors import RemoteRefused, TableError
from app.tables.levels import DEFAULT_BOT_LEVEL
from app.tables.levels import bot_level as read_level
from app.tables.registry import LiveTable, TableRegistry
from app.tables.timers import Timers

log = logging.getLogger(__name__)


class RoomRefused(Exception):
    """A refusal with a stable error code (app/api/errors.py)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # SQLite keeps no offset


class Rooms:
    """The rooms of this node's registry (`registry.rooms`)."""

    def __init__(
        self,
        registry: TableRegistry,
        sessions: async_sessionmaker[AsyncSession],
        *,
        vote_seconds: float = 60.0,
        now: Callable[[], datetime] = _now,
    ) -> None:
        self.registry = registry
        self.sessions = sessions
        self.vote_seconds = vote_seconds
        self.now = now
        self._tasks: set[asyncio.Task[None]] = set()
        registry.rooms = self

    # --- making one -------------------------------------------------------------------------

    async def create(
        self,
        owner: int,
        variant: str,
        options: dict[str, Any],
        stake: int,
        timers: Timers,
        length: RoomLength,
        spectators: bool,
        bot_level: str = DEFAULT_BOT_LEVEL,
        tournament: int | None = None,
        table_id: str | None = None,
    ) -> Room:
        """A new open room and its table, on this node (`options`: checked, changed ones);
        a `tournament`'s room plays one table of a round (its `table_id` drawn with the
        round), owned by the event's account."""
        table_id = table_id or secrets.token_hex(6)
        async with self.sessions() as session, session.begin():
            room = await store.insert(session, Room(
                table_id=table_id, owner_id=owner, variant=variant,
                options=json.dumps(options), stake=stake,
                timers=json.dumps({"discard": timers.discard, "claim": timers.claim,
                                   "decide": timers.decide, "ready": timers.ready}),
                length_unit=length.unit, length=length.count, spectators=spectators,
                status="open", bot_level=bot_level, tournament_id=tournament,
            ))
            code = room.code
        live = self.registry.create(variant, stake, timers=timers, table_id=table_id,
                                    options=options, room=code, bot_level=bot_level,
                                    tournament=tournament)
        live.creator = owner
        live.session_over = False
        live.watchers.allowed = spectators
        await self.registry.network.directory.opened(live)
        return room

    # --- the session, on the table's node -----------------------------------------------------

    def served(self, live: LiveTable) -> None:
        """Before its first deal here, whether the session is over already (a table taken
        over from another node)."""
        if live.session_over is None:
            self._spawn(self._load(live))

    async def _load(self, live: LiveTable) -> None:
        async with self.sessions() as session, session.begin():
            room = await store.by_table(session, live.table_id)
            over = room is None or room.status != "open" or (
                store.progress(room, await store.hands(session, room.table_id)) >= room.length)
        live.session_over = over

    async def hand_stored(self, live: LiveTable) -> None:
        """A hand of the room's table is stored: tell the players how far the session is;
        at its length, end it (the scoreboard stored and sent) and free the seats."""
        try:
            async with self.sessions() as session, session.begin():
                room = await store.by_table(session, live.table_id)
                if room is None or room.status != "open":
                    live.session_over = True
                    return
                records = await store.hands(session, room.table_id)
                live.session_over = store.progress(room, records) >= room.length
                if live.session_over:
                    _, info = await self._end(session, room, "ended", records)
                else:
                    info = await self.info(session, room, records)
        except Exception:
            # unknown: no hand is dealt until it is known (the next stored hand, or a retry)
            live.session_over = None
            log.exception("room of table %s: the session could not be counted", live.table_id)
            self._spawn(self._retry_load(live))
            return
        self._spawn(self._after_hand(info, live))

    async def _after_hand(self, info: RoomInfo, live: LiveTable) -> None:
        """Once the table has shown the hand (its inbox flushed: the hand's `Settled` is
        in it before), the players see how far the session is; at its end it closes."""
        if self.registry.get(live.table_id) is live:
            try:
                await live.flush()
            except (TableError, TimeoutError):  # closed meanwhile, or stuck: tell anyway
                log.warning("room table %s: not flushed after its hand", live.table_id)
        self.tell(info, live.accounts())
        if live.session_over:
            await self.free(live.table_id)

    def closed(self, live: LiveTable) -> None:
        """The table is gone (dissolved, or closed idle: nobody sat for a while): an open
        room ends with it, dissolved, its scoreboard the hands stored."""
        self._spawn(self._closed(live))

    async def _closed(self, live: LiveTable) -> None:
        async with self.sessions() as session, session.begin():
            room = await store.by_table(session, live.table_id)
            if room is None or room.status != "open":
                return
            ended, info = await self._end(
                session, room, "dissolved", await store.hands(session, room.table_id))
            if not ended:
                return
        self.tell(info, live.accounts())

    async def _retry_load(self, live: LiveTable) -> None:
        delay = 0.5
        while live.session_over is None and self.registry.get(live.table_id) is live:
            await asyncio.sleep(delay)
            try:
                await self._load(live)
            except Exception:
                log.warning("room of table %s: the session is still unknown", live.table_id,
                            exc_info=True)
                delay = min(2 * delay, 10.0)
        if live.session_over:
            await self.free(live.table_id)

    async def free(self, table_id: str) -> None:
        """The session is over: every seat freed, the table closed (nothing is in play)."""
        try:
            await table_admin.run_anywhere(self.registry, "dissolve", table_id)
        except (TableError, RemoteRefused):
            log.warning("room table %s: closing it failed", table_id)

    async def _end(self, session: AsyncSession, room: Room, status: str,
                   records: Sequence[HandRecord]) -> tuple[bool, RoomInfo]:
        """End an open room (`ended`, `dissolved`) with the scoreboard of its stored hands:
        whether this call ended it (not another node first), and the room as it is now."""
        board = await self._scoreboard(session, records)
        ended = await store.finish(session, room, status, board.model_dump_json(), self.now())
        await session.refresh(room)
        return ended, await self.info(session, room, records)

    # --- what the players are shown -------------------------------------------------------------

    async def info(
        self, session: AsyncSession, room: Room, records: Sequence[HandRecord] | None = None
    ) -> RoomInfo:
        """The room as its players are shown it (`records`: its table's stored hands, if
        read already)."""
        if records is None:
            records = await store.hands(session, room.table_id)
        seats: list[int | None] = [None] * 4
        if room.status == "open":
            seats = await self._seats(room.table_id)
        if room.scoreboard is not None:
            board = Scoreboard.model_validate_json(room.scoreboard)
        else:
            board = await self._scoreboard(session, records)
        return RoomInfo(
            code=room.code,
            table_id=room.table_id,
            owner_id=room.owner_id,
            variant=as_variant(room.variant),
            options=json.loads(room.options),
            stake=room.stake,
            timers=json.loads(room.timers),
            length=RoomLength(unit=room.length_unit, count=room.length),  # type: ignore[arg-type]
            spectators=room.spectators,
            status=room.status,  # type: ignore[arg-type]
            hands_played=store.progress(room, records),
            seats=seats,
            vote=self._vote(room),
            scoreboard=board,
            rematch=await store.rematch_of(session, room),
            bot_level=read_level(room.bot_level),
        )

    def _vote(self, room: Room) -> RoomVote | None:
        if room.vote_by is None or room.vote_deadline is None or room.votes is None:
            return None
        left = (_aware(room.vote_deadline) - self.now()).total_seconds()
        if left <= 0:
            return None  # expired: failed
        answers: dict[str, bool] = json.loads(room.votes)
        return RoomVote(
            by=room.vote_by,
            voters=sorted(int(a) for a in answers),
            agreed=sorted(int(a) for a, yes in answers.items() if yes),
            seconds_left=round(left, 1),
        )

    async def _scoreboard(self, session: AsyncSession, records: Sequence[HandRecord]
                          ) -> Scoreboard:
        sheet, names = await store.board(session, records)
        index = {a: i for i, a in enumerate(sheet.players)}

        def per_player(values: dict[int, int]) -> list[int | None]:
            out: list[int | None] = [None] * len(sheet.players)
            for account, value in values.items():
                out[index[account]] = value
            return out

        best = sheet.best
        return Scoreboard(
            players=[ScoreboardPlayer(account_id=a, name=names.get(a, str(a)))
                     for a in sheet.players],
            hands=[ScoreboardHand(number=r.number, hand_id=r.hand_id,
                                  outcome=r.outcome,  # type: ignore[arg-type]
                                  points=per_player(r.points), silver=per_player(r.silver))
                   for r in sheet.rows],
            points=[sheet.points[a] for a in sheet.players],
            silver=[sheet.silver[a] for a in sheet.players],
            best=None if best is None else BestHand(
                number=best.number, hand_id=best.hand_id, account_id=best.account,
                points=best.points),
        )

    async def _seats(self, table_id: str) -> list[int | None]:
        return (await self._audience(table_id))[0]

    async def _audience(self, table_id: str) -> tuple[list[int | None], list[int]]:
        """Who is told of the room: its table's seats and its spectators, as the table's
        node has them now (nobody when the table is gone)."""
        inspected = await self._inspect(table_id)
        if inspected is None:
            return [None] * 4, []
        return list(inspected["table"]["accounts"]), list(inspected.get("spectators", []))

    async def _table_now(self, table_id: str) -> dict[str, Any] | None:
        """The room's table as its node has it now (`app.tables.admin.snapshot`: accounts,
        status, the hand in play); None when it is gone."""
        inspected = await self._inspect(table_id)
        return None if inspected is None else inspected["table"]  # type: ignore[no-any-return]

    async def _inspect(self, table_id: str) -> dict[str, Any] | None:
        try:
            return await table_admin.run_anywhere(self.registry, "inspect", table_id)
        except (TableError, RemoteRefused) as refused:
            if refused.code == "not_found":
                return None
            raise RoomRefused(refused.code, refused.message) from None

    def tell(self, info: RoomInfo, seats: list[int | None], watching: Iterable[int] = ()
              ) -> None:
        """Send `room` to the seats and to the spectators of the room's table. While the
        table is on this node its spectators are sent it as they are sent its events (after
        the `hand_ended` it counts, under the spectators' bound); otherwise, or once it is
        closed (a dissolve), the spectators its node named (`watching`) are sent it."""
        message = RoomMessage(room=info)
        seated = {a for a in seats if a is not None}
        for account in seated:
            self.registry.sockets.send_message(account, message)
        live = self.registry.get(info.table_id)
        if live is not None:
            live.watchers.send(message_text(message))
            return
        for account in set(watching) - seated:
            self.registry.sockets.send_message(account, message)

    # --- dissolving -------------------------------------------------------------------------------

    async def dissolve(self, code: str, account: int) -> RoomInfo:
        """The owner, before the first hand: dissolved at once. After it, any player seated:
        a vote that every person seated must agree to (the asker agrees)."""
        async with self.sessions() as session, session.begin():
            room = await self._open(session, code)
            if room.tournament_id is not None:
                raise RoomRefused("forbidden", "a tournament's table plays its round to the end")
            seats, watching = await self._audience(room.table_id)
            if account not in seats:
                raise RoomRefused("wrong_table", "only a player seated in the room may ask")
            if not await self._started(session, room):
                if account != room.owner_id:
                    raise RoomRefused("forbidden", "before the first hand only the owner may "
                                      "dissolve the room (others may leave)")
                now = True
            else:
                if self._vote(room) is not None:
                    raise RoomRefused("vote_open", "a dissolve vote is in progress")
                voters = await self._people(session, seats)
                room.vote_by = account
                room.vote_deadline = deadline = self.now() + timedelta(seconds=self.vote_seconds)
                room.votes = json.dumps({str(a): a == account for a in voters})
                now = voters == [account]  # nobody else to ask
                await session.flush()
                info = await self.info(session, room)
            room_id = room.id
        if now:
            return await self._dissolve(room_id, seats, watching)
        self.tell(info, seats, watching)
        self._spawn(self._expire(room_id, deadline))
        return info

    async def vote(self, code: str, account: int, agree: bool) -> RoomInfo:
        """Answer the dissolve vote: a no ends it; the last yes dissolves the room."""
        async with self.sessions() as session, session.begin():
            room = await self._open(session, code)
            if self._vote(room) is None:
                raise RoomRefused("no_vote", "no dissolve vote is in progress")
            answers: dict[str, bool] = json.loads(room.votes or "{}")
            if str(account) not in answers:
                raise RoomRefused("forbidden", "you do not vote in this room")
            if answers[str(account)]:
                raise RoomRefused("already_voted", "you agreed already")
            seats, watching = await self._audience(room.table_id)
            if agree:
                answers[str(account)] = True
                room.votes = json.dumps(answers)
            else:  # one refusal ends the vote: the session goes on
                room.vote_by = room.vote_deadline = room.votes = None
            unanimous = agree and all(answers.values())
            await session.flush()
            info = await self.info(session, room)
            room_id = room.id
        if unanimous:
            return await self._dissolve(room_id, seats, watching)
        self.tell(info, seats, watching)
        return info

    async def _expire(self, room_id: int, deadline: datetime) -> None:
        """At the deadline a vote still open has failed: tell the players."""
        await asyncio.sleep(max(0.0, (deadline - self.now()).total_seconds()) + 0.05)
        async with self.sessions() as session, session.begin():
            room = await session.get(Room, room_id)
            if room is None or room.status != "open" or room.vote_deadline is None:
                return
            if _aware(room.vote_deadline) != deadline:
                return  # another vote
            room.vote_by = room.vote_deadline = room.votes = None
            await session.flush()
            info = await self.info(session, room)
            seats, watching = await self._audience(room.table_id)
        self.tell(info, seats, watching)

    async def _dissolve(self, room_id: int, seats: list[int | None], watching: list[int]
                        ) -> RoomInfo:
        """Void the hand in play and free every seat (where the table lives; outside any
        transaction of ours: the table stores the voided hand), then end the room with the
        scoreboard of the hands stored."""
        async with self.sessions() as session:
            room = await session.get(Room, room_id)
            assert room is not None
            table_id = room.table_id
        try:
            await table_admin.run_anywhere(self.registry, "dissolve", table_id)
        except (TableError, RemoteRefused) as refused:
            if refused.code != "not_found":  # gone already: nothing to void
                raise RoomRefused(refused.code, refused.message) from None
        async with self.sessions() as session, session.begin():
            room = await session.get(Room, room_id)
            assert room is not None
            _, info = await self._end(
                session, room, "dissolved", await store.hands(session, room.table_id))
        self.tell(info, seats, watching)  # the spectators as they were before it closed
        return info

    # --- helpers ----------------------------------------------------------------------------------

    async def _open(self, session: AsyncSession, code: str) -> Room:
        room = await store.open_room(session, code)
        if room is None:
            raise RoomRefused("not_found", f"no open room {code!r}")
        return room

    async def _started(self, session: AsyncSession, room: Room) -> bool:
        """The room's first hand has been dealt (it may be in play)."""
        table = await self._table_now(room.table_id)
        if table is not None and table["hand_id"] is not None:
            return True
        return bool(await store.players(session, room.table_id))

    async def _people(self, session: AsyncSession, seats: list[int | None]) -> list[int]:
        """The seated accounts that are people (bots do not vote)."""
        ids = [a for a in seats if a is not None]
        if not ids:
            return []
        rows = await session.execute(select(Account.id, Account.username).where(Account.id.in_(ids)))
        return sorted(int(i) for i, name in rows.all() if not house.is_bot_name(name))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

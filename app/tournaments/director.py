"""Tournaments at run time (比赛场, docs/tournaments.md "Play"): each running event is
directed by one node at a time, under a lease kept in the event's row (`director`,
`lease_until`), so that when that node dies another one takes the event over within a lease
and goes on from what the database holds.

The director of an event, once a second (`poll`):
- at the start: enters house bots in the empty seats and draws round 1 (`rounds.begin`);
  an event with no player at its start is cancelled, every fee refunded;
- for each table of the round in play: opens its room (a private room of the event's
  account, `tournament` set: its table keeps its seats, its session is the round's length)
  on this node and seats its four entrants, wherever they are connected; a house bot, and a
  player who forfeited, sits as a bot (托管 for good); a player still seated at another
  table is taken from it between that table's hands;
- when a table's room has ended (its session played, the seats freed by the rooms), records
  its results (each entrant's points and hands won);
- when every table of the round is done: draws the next round, the final table, or pays
  the prizes and ends the event (`rounds.advance`, `rounds.finish`).
Every step is checked against the database first, so a step repeated by a new director
does nothing twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.protocol.rooms import RoomLength
from app.protocol.tournaments import TournamentMessage
from app.rooms import store as room_store
from app.rooms.service import Rooms
from app.store import house, ledger
from app.store.models import Room, Tournament, TournamentTable
from app.tables import admin as table_admin
from app.tables.errors import RemoteRefused, TableError
from app.tables.registry import MIN_BALANCE_PER_STAKE, LiveTable, TableRegistry
from app.tables.timers import Timers
from app.tournaments import events, rounds, view
from app.tournaments.swiss import Score

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
LEASE_SECONDS = 10.0
OPENING_AT_ONCE = 8  # a round's tables opened (rooms made, entrants seated) at once
STOP_SECONDS = 5.0  # how long a stopping node waits for its directors


def _now() -> datetime:
    return datetime.now(UTC)


class Tournaments:
    """This node's part in running the tournaments (`registry.tournaments`): it looks for
    events to direct and directs those whose lease it holds. `start` once the app runs,
    `stop` at shutdown (the lease then lapses; another node takes the events over)."""

    def __init__(
        self,
        registry: TableRegistry,
        rooms: Rooms,
        sessions: async_sessionmaker[AsyncSession],
        *,
        node_id: str,
        bot_pool_size: int,
        poll: float = POLL_SECONDS,
        lease_seconds: float = LEASE_SECONDS,
        now: Callable[[], datetime] = _now,
    ) -> None:
        self.registry = registry
        self.rooms = rooms
        self.sessions = sessions
        self.node_id = node_id
        self.bot_pool_size = bot_pool_size
        self.poll = poll
        self.lease = timedelta(seconds=lease_seconds)
        self.now = now
        self._directing: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._watcher: asyncio.Task[None] | None = None
        registry.tournaments = self

    # --- finding events to direct -----------------------------------------------------------

    def start(self) -> None:
        if self._watcher is None:
            self._watcher = asyncio.create_task(self._watch(), name="tournaments")

    async def stop(self) -> None:
        """Cancel the looking and the directing, waiting at most `STOP_SECONDS` for them
        (a step cut short is taken again by the next director)."""
        tasks = [t for t in (self._watcher, *self._directing.values(), *self._tasks) if t]
        for task in tasks:
            task.cancel()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=STOP_SECONDS)
            if pending:
                log.warning("tournaments: %d tasks did not stop in %s s", len(pending),
                            STOP_SECONDS)
        self._watcher = None
        self._directing.clear()

    async def _watch(self) -> None:
        """Look every `poll` seconds, the first time one `poll` after the start."""
        while True:
            await asyncio.sleep(self.poll)
            try:
                await self.look()
            except Exception:
                log.exception("tournaments: looking for events to direct failed")

    async def look(self) -> list[int]:
        """Take the lease of every event due or running that no node directs now, and
        direct it here; the events taken."""
        now = self.now()
        async with self.sessions() as session:
            due = (await session.execute(select(Tournament.id).where(
                or_(Tournament.status == "running",
                    (Tournament.status == "open") & (Tournament.starts_at <= now)),
                or_(Tournament.director.is_(None), Tournament.lease_until < now,
                    Tournament.director == self.node_id)))).scalars().all()
        taken = []
        for tournament_id in due:
            if tournament_id in self._directing or not await self._renew(tournament_id):
                continue
            self._directing[tournament_id] = asyncio.create_task(
                self._direct(tournament_id), name=f"tournament-{tournament_id}")
            taken.append(tournament_id)
        return taken

    async def _renew(self, tournament_id: int) -> bool:
        """Take or keep the event's lease: False when another node holds it."""
        now = self.now()
        async with self.sessions() as session, session.begin():
            done = await session.execute(
                update(Tournament).where(
                    Tournament.id == tournament_id,
                    Tournament.status.in_(("open", "running")),
                    or_(Tournament.director.is_(None), Tournament.director == self.node_id,
                        Tournament.lease_until < now))
                .values(director=self.node_id, lease_until=now + self.lease))
        return bool(done.rowcount)  # type: ignore[attr-defined]

    async def _direct(self, tournament_id: int) -> None:
        try:
            while await self._renew(tournament_id):
                try:
                    if await self.step(tournament_id):
                        return
                except Exception:
                    log.exception("tournament %s: a step failed; trying again", tournament_id)
                await asyncio.sleep(self.poll)
            log.info("tournament %s: directed elsewhere now (or over)", tournament_id)
        finally:
            self._directing.pop(tournament_id, None)

    # --- one step of an event -----------------------------------------------------------------

    async def step(self, tournament_id: int) -> bool:
        """Move the event on as far as it can go now; True when it is over."""
        async with self.sessions() as session, session.begin():
            tournament = await session.get(Tournament, tournament_id)
            if tournament is None or tournament.status in ("finished", "cancelled"):
                return True
            config = _Config.of(tournament)
            starts, seats = events.aware(tournament.starts_at), tournament.seats
            in_play = await rounds.tables(session, tournament_id, tournament.round)
        if config.open:
            if self.now() >= starts:
                async with self.sessions() as session:
                    await self._begin(session, tournament_id, seats)
            return False
        waiting = [t for t in in_play if t.status == "waiting"]
        if waiting:
            await self._open_round(config, waiting)
        playing = [t for t in in_play if t.status == "playing"]
        if playing:
            await self._collect(config, playing)
        async with self.sessions() as session:
            advanced = await rounds.advance(session, tournament_id)
            if advanced.places is not None:
                await rounds.finish(session, tournament_id, advanced.places)
                log.info("tournament %s: finished, prizes paid", tournament_id)
        if advanced.drawn or advanced.places is not None:
            await self._tell(tournament_id)
        return advanced.places is not None

    async def _begin(self, session: AsyncSession, tournament_id: int, seats: int) -> None:
        async with session.begin():
            players = len(await rounds.players_waiting(session, tournament_id))
        if players == 0:
            await events.cancel(session, tournament_id)
            log.info("tournament %s: nobody registered; cancelled", tournament_id)
            return
        bots = await self._free_bots(session, seats - players)
        try:
            started = await rounds.begin(session, tournament_id, bots, self.now())
        except rounds.NotEnoughBots as short:  # tried again at the next step
            log.warning("tournament %s: cannot start yet: %s (BOT_POOL_SIZE %d)", tournament_id,
                        short, self.bot_pool_size)
            return
        if started:
            log.info("tournament %s: started, %d players and %d house bots", tournament_id,
                     players, seats - players)
            await self._tell(tournament_id)

    async def _tell(self, tournament_id: int) -> None:
        """Every player entered is told where the event stands (`tournament`), wherever
        their socket is: at the start, at each round drawn, at the end. A director killed
        before it tells leaves that message untold (the standings are over REST)."""
        async with self.sessions() as session, session.begin():
            tournament = await session.get(Tournament, tournament_id)
            assert tournament is not None
            now = await view.shown(session, tournament)
        for account in view.players(now.standings):
            self.registry.sockets.send_message(
                account, TournamentMessage(tournament=view.info(tournament, now, account)))

    async def _free_bots(self, session: AsyncSession, needed: int) -> list[int]:
        """`needed` house bots seated nowhere and in no running event, new ones made while
        the pool is below its bound."""
        if needed <= 0:
            return []
        async with session.begin():
            pool = [b for b in (await house.bots(session))[:self.bot_pool_size] if not b.banned]
            entered = await house.in_running_events(session, [b.id for b in pool])
            known = await house.bot_count(session)
        idle = [b.id for b in pool if b.id not in entered]
        seated = await self.registry.seating.seated_anywhere(idle)
        free = [b for b in idle if b not in seated][:needed]
        for _ in range(min(needed - len(free), max(0, self.bot_pool_size - known))):
            free.append(await house.new_bot(session, known + len(free)))
        return free

    # --- a table of the round ------------------------------------------------------------------

    async def _open_round(self, config: _Config, tables: list[TournamentTable]) -> None:
        """Open the round's tables at once (`OPENING_AT_ONCE` at a time): the round's house
        bots funded in one transaction, each table's room opened here (unless a director
        before opened it) and its four entrants seated; the tables all four sit at are
        marked playing together."""
        async with self.sessions() as session:
            async with session.begin():
                known = await rounds.entrants(session, config.id)
                opened = await room_store.by_tables(session, [t.table_id for t in tables])
            bots = [known[e].account for t in tables for e in rounds.seats_of(t) if known[e].bot]
            await self._fund_bots(session, config, tables[0].round, bots)
        gate = asyncio.Semaphore(OPENING_AT_ONCE)

        async def one(table: TournamentTable) -> bool:
            async with gate:
                entrants = [known[e] for e in rounds.seats_of(table)]
                return await self._open(config, table, entrants, table.table_id in opened)

        seated = await asyncio.gather(*(one(t) for t in tables))
        async with self.sessions() as session, session.begin():
            for table, ready in zip(tables, seated, strict=True):
                if ready:
                    await rounds.mark(session, config.id, table.round, table.number, "playing")

    async def _open(self, config: _Config, table: TournamentTable,
                    entrants: list[rounds.Entrant], opened: bool) -> bool:
        """Open the table's room (unless `opened`) and seat its entrants at their seats: a
        house bot, and a player who forfeited, as a bot. Whether all four sit."""
        if not opened:
            await self.rooms.create(
                config.account, config.variant, config.options, config.stake, config.timers,
                config.length, spectators=table.round > config.rounds,
                bot_level=config.bot_level, tournament=config.id, table_id=table.table_id)
        sitting = await self._accounts_at(table.table_id)
        if sitting is None:
            log.warning("tournament %s: table %s is not found", config.id, table.table_id)
            return False
        for seat, entrant in enumerate(entrants):
            as_bot = entrant.bot or entrant.status == "forfeited"
            if sitting[seat] != entrant.account and not await self._seat(
                    table.table_id, entrant.account, seat, as_bot):
                return False  # tried again at the next step
        return True

    async def _fund_bots(self, session: AsyncSession, config: _Config, round_number: int,
                         bots: list[int]) -> None:
        """The round's house bots brought to the table's minimum by the house (once per
        round: a retry moves nothing)."""
        if not bots:
            return
        async with session.begin():
            house_id = await house.account_id(session)
        target = MIN_BALANCE_PER_STAKE * config.stake
        await ledger.level_bots(session, house_id, dict.fromkeys(bots, target),
                                f"tournament:{config.id}:round:{round_number}:bots",
                                note=f"tournament {config.id} round {round_number}")

    async def _accounts_at(self, table_id: str) -> list[int | None] | None:
        try:
            inspected = await table_admin.run_anywhere(self.registry, "inspect", table_id)
        except (TableError, RemoteRefused) as refused:
            if refused.code == "not_found":
                return None
            raise
        return list(inspected["table"]["accounts"])

    async def _seat(self, table_id: str, account: int, seat: int, bot: bool) -> bool:
        """Seat an entrant at its seat; False when it sits at another table still (asked to
        leave it between that table's hands) or the seat could not be taken now."""
        try:
            if self.registry.get(table_id) is not None:
                await self.registry.seating.take(self.registry.require(table_id), account, seat,
                                                 bot)
            else:
                await self.registry.network.tables.call("sit", table_id, account, seat, bot=bot)
            return True
        except (TableError, RemoteRefused) as refused:
            if refused.code == "seated_elsewhere":
                await self._take_from(account, str((refused.details or {}).get("table_id", "")))
            else:
                log.warning("tournament table %s: seating %s failed: %s", table_id, account,
                            refused.code)
            return False

    async def _take_from(self, account: int, table_id: str) -> None:
        """An entrant sits at another table when their round starts: between that table's
        hands they leave it (no penalty), so the round seats them at the next step."""
        try:
            inspected = await table_admin.run_anywhere(self.registry, "inspect", table_id)
            table = inspected["table"]
            if table["hand_id"] is None and account in table["accounts"]:
                await table_admin.run_anywhere(self.registry, "kick", table_id,
                                               seat=table["accounts"].index(account))
        except (TableError, RemoteRefused, KeyError, ValueError):
            log.warning("tournament: taking %s from table %s failed", account, table_id)

    async def _collect(self, config: _Config, tables: list[TournamentTable]) -> None:
        """The tables whose room has ended: their results recorded, each table done."""
        async with self.sessions() as session, session.begin():
            ended = {table_id: room for table_id, room in (
                await room_store.by_tables(session, [t.table_id for t in tables])).items()
                if room.status != "open"}
            if not ended:
                return
            known = await rounds.entrants(session, config.id)
            for table in tables:
                room = ended.get(table.table_id)
                if room is not None:
                    results = _results(room, {e: known[e].account for e in rounds.seats_of(table)})
                    await rounds.mark(session, config.id, table.round, table.number, "done",
                                      results)

    # --- what the tables tell ------------------------------------------------------------------

    def forfeited(self, live: LiveTable, account: int) -> None:
        """A player left a table of the event: the rest of their event is played on 托管."""
        if live.tournament is not None:
            self._spawn(self._forfeit(live.tournament, account))

    async def _forfeit(self, tournament_id: int, account: int) -> None:
        async with self.sessions() as session, session.begin():
            if await rounds.forfeit(session, tournament_id, account):
                log.info("tournament %s: account %s forfeited", tournament_id, account)

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _results(room: Room, seated: dict[int, int]) -> dict[int, Score]:
    """Each entrant's points and hands won at the table (`seated`: entrant -> account),
    from its room's scoreboard; a hand won (胡) is a `win` whose net points for them are
    above 0."""
    board = json.loads(room.scoreboard or "{}")
    ids = [p["account_id"] for p in board.get("players", [])]
    points = dict(zip(ids, board.get("points", []), strict=True))
    wins = dict.fromkeys(ids, 0)
    for hand in board.get("hands", []):
        if hand["outcome"] == "win":
            for account, gain in zip(ids, hand["points"], strict=True):
                if gain is not None and gain > 0:
                    wins[account] += 1
    return {e: Score(int(points.get(a, 0)), wins.get(a, 0)) for e, a in seated.items()}


@dataclass(frozen=True, slots=True)
class _Config:
    """What a director needs of the event to open its tables."""

    id: int
    account: int
    variant: str
    options: dict[str, Any]
    stake: int
    timers: Timers
    length: RoomLength
    rounds: int
    bot_level: str
    open: bool  # not started yet

    @classmethod
    def of(cls, t: Tournament) -> _Config:
        return cls(t.id, t.account_id, t.variant, json.loads(t.options), t.stake,
                   Timers(**json.loads(t.timers)),
                   RoomLength(unit=t.length_unit, count=t.length),  # type: ignore[arg-type]
                   t.rounds, t.bot_level, t.status == "open")

"""`RedisNetwork`: this node as one member of a cluster sharing Redis (and PostgreSQL). It
builds the node's parts, each the implementation of one interface the tables declare
(app/tables/network.py), and hands them to the registry as its `Network` (`parts`):

- `ownership.Ownership` (`Directory`): tables leased to this node, their journal (the
  tables' hand observer), the fence, lease renewal, and the takeover of tables whose owner
  is gone;
- `routing.Routing` (`Delivery`): presence, client messages forwarded to a table's owner,
  messages delivered to the node holding a seat's socket, seats whose socket went away;
- `calls.Calls` (`RemoteTables`, `SeatClaims`): the lobby's and the admin's calls to a
  table's owner over the bus, the replies, the cluster-wide seat claims, and bans told to
  every other node;
- `boards.Boards` (`Boards`): the silver and points leaderboards as sorted sets, kept up as
  hands are settled (a listener of the settlement).

It starts and stops them, runs their background loops, and hands each message of its bus
channel to the part it is for.
"""

from __future__ import annotations

import asyncio
import logging

from redis.asyncio import BlockingConnectionPool, Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.cluster.boards import Boards
from app.cluster.bus import Bus
from app.cluster.calls import Calls
from app.cluster.claims import Claims
from app.cluster.context import NodeContext
from app.cluster.journal import Journal
from app.cluster.keeper import LeaseKeeper
from app.cluster.keys import Keys
from app.cluster.lease import Lease, Leases
from app.cluster.messages import (
    NODE_MESSAGE,
    AdminCall,
    Arrived,
    Away,
    Banned,
    Call,
    Close,
    Reply,
    ToAccount,
    ToAccounts,
    ToSpectators,
    ToTable,
)
from app.cluster.ownership import Ownership
from app.cluster.presence import Presence
from app.cluster.routing import Routing
from app.cluster.writer import Writer
from app.ops.redis_errors import counted
from app.ops.tasks import cancel_and_wait
from app.settings import Settings
from app.store.ranks import DatabaseBoards
from app.tables import bans
from app.tables.network import Network
from app.tables.registry import TableRegistry
from app.tables.settlement.service import HandSettled

log = logging.getLogger(__name__)
REDIS_CONNECTIONS = 64  # a node's connections to Redis at most (the bus's apart)
REDIS_WAIT_SECONDS = 10.0  # a command waits this long for one, then fails
# the presence of players seated here whose sockets are elsewhere is read every this many
# watches (2 s at the default 500 ms): marking such a seat away is not urgent (its timers
# run on), and each read asks Redis about every one of them
PRESENCE_EVERY = 4


class RedisNetwork:

    def __init__(
        self,
        settings: Settings,
        registry: TableRegistry,
        sessions: async_sessionmaker[AsyncSession] | None = None,
    ) -> None:
        assert settings.redis_url is not None
        self.node_id = settings.node_id
        self.keys = Keys(settings.redis_prefix)
        # a bounded pool whose callers wait their turn: a burst of hand endings asks Redis
        # hundreds of things at once, and a plain pool refuses past its size
        self.redis: Redis = Redis.from_pool(counted(BlockingConnectionPool.from_url(
            settings.redis_url, decode_responses=True,
            max_connections=REDIS_CONNECTIONS, timeout=REDIS_WAIT_SECONDS,
        )))  # its failures counted (app/ops/redis_errors.py)
        self.registry = registry
        self.leases = Leases(self.redis, self.keys, self.node_id, settings.lease_ms)
        self.presence = Presence(self.redis, self.keys, self.node_id, settings.presence_ttl_ms)
        self.journal = Journal(self.keys)
        self.writer = Writer(self.redis)
        self.claims = Claims(self.redis, self.keys)
        self.boards = None if sessions is None else Boards(self.redis, self.keys, sessions)
        self.bus = Bus(
            settings.redis_url,
            self.keys.channel(self.node_id),
            self._on_message,
            client_name=f"{settings.redis_prefix}bus:{self.node_id}",
        )
        node = NodeContext(self.node_id, self.redis, self.keys, self.writer, registry)
        self.routing = Routing(node, self.presence, owns=lambda table_id: table_id in self.leased)
        self.ownership = Ownership(node, self.leases, self.journal, self.routing)
        self.calls = Calls(node, self.routing, self.claims, self.leases, self.ownership.lost_here)
        registry.settlement.subscribe(self._boards_settled)
        self.keeper = LeaseKeeper(
            settings.redis_url, self.leases, self.ownership.held, self.ownership.lost_lease,
            settings.lease_stall_seconds,
        )
        self._watch_interval = settings.watch_interval_ms / 1000
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def leased(self) -> dict[str, Lease]:
        """The tables this node holds, and their leases."""
        return self.ownership.leased

    @property
    def adopted(self) -> list[str]:
        """The tables this node took over, in order (for operators)."""
        return self.ownership.adopted

    # --- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.ping()  # an unreachable Redis fails the start, loudly
        await self.bus.start()
        self.writer.start()
        self.keeper.start()
        self._tasks = [
            asyncio.create_task(self._watch_forever(), name="cluster-watch"),
            asyncio.create_task(self.routing.refresh_forever(), name="cluster-presence"),
        ]
        if self.boards is not None:
            self._tasks.append(
                asyncio.create_task(self._boards_forever(), name="cluster-boards")
            )
        log.info("node %s joined the cluster", self.node_id)

    async def stop(self) -> None:
        await cancel_and_wait(self._tasks + list(self.calls.answering))
        await self.keeper.stop()
        await self.writer.stop()
        await self.ownership.release_all()  # the tables' journals let another node go on
        if self.boards is not None:
            await self.boards.drain()
        await self.routing.leave_all()
        await self.bus.stop()
        await self.redis.aclose()

    async def _watch_forever(self) -> None:
        rounds = 0
        while True:
            await asyncio.sleep(self._watch_interval)
            rounds += 1
            try:
                await self.watch_once()
            except Exception:
                log.exception("node %s: watching the table directory failed", self.node_id)
            if rounds % PRESENCE_EVERY:
                continue
            try:
                await self.check_presence()
            except Exception:
                log.exception("node %s: reading presence failed", self.node_id)

    async def _boards_forever(self) -> None:
        assert self.boards is not None
        while True:
            try:
                await self.boards.rebuild_if_due(self.node_id)
            except Exception:
                log.exception("node %s: rebuilding the leaderboards failed", self.node_id)
            await asyncio.sleep(5)

    # --- the parts -------------------------------------------------------------------------

    def parts(self) -> Network:
        """The registry's network: each part of this node for its interface."""
        return Network(
            delivery=self.routing,
            claims=self.calls,
            directory=self.ownership,
            tables=self.calls,
            boards=self.boards if self.boards is not None else DatabaseBoards(),
            membership=self,
        )

    async def _boards_settled(self, settled: HandSettled) -> None:
        """A hand of this node is stored: its seats' places on the leaderboards, in the
        boards' next write (the result is shown without waiting for it)."""
        record = settled.record
        seats = [a for a in record.seats if a is not None]
        practice = settled.stake == 0  # a practice table's hand ranks nobody
        if self.boards is not None and not record.voided and len(seats) == 4 and not practice:
            self.boards.queue(settled.stored.profiles, record.variant)

    async def watch_once(self) -> list[str]:
        """Take over every listed table that no node holds; the tables taken."""
        return await self.ownership.watch_once()

    async def adopt(self, lease: Lease) -> bool:
        """Serve a table from its journal, under `lease` (taken already)."""
        return await self.ownership.adopt(lease)

    async def check_presence(self) -> list[tuple[str, int]]:
        """Mark disconnected the seats of players whose socket on another node is gone
        (`Routing.check_presence`), and end the watches of spectators whose socket is no
        longer on the node that asked (`Routing.check_spectators`); the (table, seat)
        pairs marked."""
        marked = await self.routing.check_presence()
        await self.routing.check_spectators()
        return marked

    # --- the bus ----------------------------------------------------------------------------

    async def _on_message(self, raw: str) -> None:
        message = NODE_MESSAGE.validate_json(raw)
        if isinstance(message, ToAccounts):
            for account, type_, text in message.items:
                self.routing.to_account(account, type_, text)
        elif isinstance(message, ToAccount):
            self.routing.to_account(message.account, message.type, message.message)
        elif isinstance(message, ToSpectators):
            self.routing.to_spectators(message)
        elif isinstance(message, ToTable):
            self.routing.serve(message)
        elif isinstance(message, Away):
            self.routing.away(message.table_id, message.account)
        elif isinstance(message, Arrived):
            self.routing.arrived(message)
        elif isinstance(message, Close):
            self.routing.close(message)
        elif isinstance(message, Banned):
            bans.ban_here(self.registry, message.account)
        elif isinstance(message, Call):
            await self.calls.answer(message)
        elif isinstance(message, AdminCall):
            self.calls.answer_admin(message)
        elif isinstance(message, Reply):
            self.calls.replied(message)

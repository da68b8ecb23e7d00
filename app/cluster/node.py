"""`RedisNetwork`: this node as one member of a cluster sharing Redis (and PostgreSQL).

- Tables: a table opened here is leased (`lease.Leases`) and listed in the directory; its
  configuration and the hand in play are journaled (`journal`) through the ordered writer,
  every write fenced by the lease's token. Leases are renewed every third of their TTL; a
  lease that cannot be renewed (it expired, or another node took it) stops the table here
  at once. A watcher looks for listed tables without a lease (their owner died or left),
  takes the lease (a new token) and restores the table and its hand by replay.
- Sockets: presence names the node holding each account's socket; a client's message
  for a table owned elsewhere is published to the owner's channel, and the owner
  publishes each per-seat message to the channel of the node holding that seat's socket.
- Lobby: sit and leave at a table owned elsewhere are calls to the owner over the bus.
  The owner seats an account only with its cluster-wide seat claim (`claims`): one table
  at a time per account, given back when the seat is freed.
- Bans: the banning node tells every other node (`banned`), each closes the account's
  socket and gives up its seats at its own tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.cluster.boards import Boards
from app.cluster.bus import Bus
from app.cluster.claims import Claims
from app.cluster.journal import (
    APPEND,
    REMOVE_TABLE,
    START_HAND,
    STORE_TABLE,
    ContextData,
    HandHeader,
    Journal,
    PresetData,
    SeatData,
    TableConfig,
    TimersData,
    action_of,
)
from app.cluster.keys import Keys
from app.cluster.lease import Lease, Leases
from app.cluster.messages import (
    NODE_MESSAGE,
    AdminCall,
    Away,
    Banned,
    Call,
    Close,
    Reply,
    ToAccount,
    ToTable,
)
from app.cluster.presence import Presence
from app.cluster.writer import Writer
from app.ops.tasks import cancel_and_wait
from app.protocol import (
    SERVER_MESSAGE,
    ClientMessage,
    ErrorMessage,
    ServerMessage,
    parse_client,
)
from app.rules.actions import Action
from app.rules.hand import Preset
from app.rules.variants.base import TableContext
from app.settings import Settings
from app.store.ranks import BoardEntry
from app.tables import admin as table_admin
from app.tables.actor import AdoptedHand, HandObserver, Table
from app.tables.messages import AdminResume, Connected, Disconnected, HandRecordData
from app.tables.network import UNAVAILABLE, Network, RemoteRefused
from app.tables.registry import (
    ADMIN_WAIT_SECONDS,
    MIN_BALANCE_PER_STAKE,
    LiveTable,
    Sink,
    TableError,
    TableRegistry,
)
from app.tables.routing import route
from app.tables.seats import SeatState

log = logging.getLogger(__name__)

CLOSE_REPLACED = 4000  # as app.api.ws: a newer login closed this socket
CALL_TIMEOUT = 5.0
# an admin command waits up to ADMIN_WAIT_SECONDS for the owner's actor; the bus adds little
ADMIN_CALL_TIMEOUT = ADMIN_WAIT_SECONDS + 2.0

# A client message for a table: publish it to the lease holder's channel. -1: no such
# table; -2: listed but nobody holds its lease (failing over); 0: the owner does not listen
ROUTE_TABLE = """
local v = redis.call('GET', KEYS[1])
if not v then
  if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then return -2 end
  return -1
end
local node = string.match(v, '^(.*)|')
return redis.call('PUBLISH', ARGV[1] .. node, ARGV[2])
"""

# A message for an account: publish it to the channel of the node holding its socket
ROUTE_ACCOUNT = """
local node = redis.call('GET', KEYS[1])
if not node then return -1 end
return redis.call('PUBLISH', ARGV[1] .. node, ARGV[2])
"""


def summary_of(live: LiveTable, node_id: str) -> dict[str, Any]:
    """The lobby's line for a table (the fields of `app.api.lobby.TableOut`, and its node)."""
    seats = live.accounts()
    return {
        "id": live.table_id,
        "variant": live.variant,
        "stake": live.stake,
        "min_balance": MIN_BALANCE_PER_STAKE * live.stake,
        "seats": seats,
        "seats_taken": sum(a is not None for a in seats),
        "status": live.status,
        "node": node_id,
        "creator": live.creator,  # the lobby's table limit per account (app/api/lobby.py)
    }


def _seats(live: LiveTable) -> list[SeatData]:
    return [
        SeatData(account=s.account, autoplay=s.autoplay, bot=s.account in live.bots)
        for s in live.table.seats
    ]


class RedisNetwork(Network, HandObserver):
    remote = True

    def __init__(
        self,
        settings: Settings,
        registry: TableRegistry,
        sessions: async_sessionmaker[AsyncSession] | None = None,
    ) -> None:
        assert settings.redis_url is not None
        self.node_id = settings.node_id
        self.keys = Keys(settings.redis_prefix)
        self.redis: Redis = Redis.from_url(settings.redis_url, decode_responses=True)
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
        self._watch_interval = settings.watch_interval_ms / 1000
        self._route_table = self.redis.register_script(ROUTE_TABLE)
        self._route_account = self.redis.register_script(ROUTE_ACCOUNT)
        self._start_hand = self.redis.register_script(START_HAND)
        self._append = self.redis.register_script(APPEND)
        self._store_table = self.redis.register_script(STORE_TABLE)
        self._remove_table = self.redis.register_script(REMOVE_TABLE)
        self.leased: dict[str, Lease] = {}
        self._configs: dict[str, TableConfig] = {}
        self._fenced_off: set[str] = set()  # tables this node lost to a newer owner
        self._sinks: dict[int, Sink] = {}
        self._forwarded: dict[int, set[str]] = defaultdict(set)
        self._calls: dict[str, asyncio.Future[Reply]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.adopted: list[str] = []  # tables this node took over, in order (for operators)
        # players seated at this node's tables -> the node that held their socket when
        # presence was last read (`check_presence`)
        self._seen: dict[int, str] = {}
        self._marked: set[tuple[str, int]] = set()  # (table, account) marked away by it
        self._answering: set[asyncio.Task[None]] = set()

    # --- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.ping()  # an unreachable Redis fails the start, loudly
        await self.bus.start()
        self.writer.start()
        self._tasks = [
            asyncio.create_task(self._renew_forever(), name="cluster-renew"),
            asyncio.create_task(self._watch_forever(), name="cluster-watch"),
            asyncio.create_task(self._refresh_presence_forever(), name="cluster-presence"),
        ]
        if self.boards is not None:
            self._tasks.append(
                asyncio.create_task(self._boards_forever(), name="cluster-boards")
            )
        log.info("node %s joined the cluster", self.node_id)

    async def stop(self) -> None:
        await cancel_and_wait(self._tasks + list(self._answering))
        await self.writer.stop()
        for lease in list(self.leased.values()):
            try:
                await self.leases.release(lease)  # the table's journal lets another node go on
            except Exception:
                log.exception("node %s: releasing %s failed", self.node_id, lease.table_id)
        self.leased.clear()
        for account_id in list(self._sinks):
            try:
                await self.presence.leave(account_id)
            except (RedisError, OSError):
                break
        await self.bus.stop()
        await self.redis.aclose()

    # --- tables: journal ---------------------------------------------------------------------

    def observer(self) -> HandObserver | None:
        return self

    async def opened(self, live: LiveTable) -> None:
        lease = await self.leases.acquire(live.table_id)
        if lease is None:
            raise RuntimeError(f"table {live.table_id} is leased by another node")
        self.leased[live.table_id] = lease
        self._configs[live.table_id] = TableConfig(
            table_id=live.table_id,
            variant=live.variant,
            stake=live.stake,
            timers=TimersData.of(live.timers),
            seats=_seats(live),
            ctx=None,
            hands=0,
            seq=0,
        )
        self._store(live, clear_hand=True)
        await self.writer.flush()  # listed before the creator is answered

    def changed(self, live: LiveTable) -> None:
        config = self._configs.get(live.table_id)
        if config is None or live.table_id not in self.leased:
            return
        self._configs[live.table_id] = config.model_copy(update={"seats": _seats(live)})
        self._store(live, clear_hand=False)

    def pause_changed(self, live: LiveTable) -> None:
        config = self._configs.get(live.table_id)
        if config is None or live.table_id not in self.leased:
            return
        self._configs[live.table_id] = config.model_copy(update={"paused": live.table.paused})
        self._store(live, clear_hand=False)

    def closed(self, table_id: str) -> None:
        lease = self.leased.pop(table_id, None)
        self._configs.pop(table_id, None)
        if lease is None:
            return
        self.writer.put(self._remove_table, *self.journal.remove_table(table_id, lease.token))
        self.writer.put(self.leases._release, [self.keys.lease(table_id)], [lease.value])

    def hand_started(
        self, table: Table, hands: int, seed: int, ctx: TableContext, preset: Preset | None
    ) -> None:
        lease = self.leased.get(table.table_id)
        config = self._configs.get(table.table_id)
        live = self.registry.get(table.table_id)
        if lease is None or config is None or live is None:
            return
        header = HandHeader(
            hand_id=table.hand_id,
            hands=hands,
            seed=seed,
            ctx=ContextData.of(ctx),
            preset=None if preset is None else PresetData.of(preset),
            first_seq=table.seq + 1,
        )
        # the table as it was before this hand: what a node restores if the hand cannot be
        config = config.model_copy(update={
            "seats": _seats(live), "ctx": ContextData.of(ctx), "hands": hands - 1,
            "seq": table.seq,
        })
        self._configs[table.table_id] = config
        summary = summary_of(live, self.node_id) | {"status": "playing"}
        keys, args = self.journal.start_hand(lease.token, header, config, _json(summary))
        self.writer.put(self._start_hand, keys, args, self._fenced(table.table_id))

    def action_applied(self, table: Table, action: Action) -> None:
        lease = self.leased.get(table.table_id)
        if lease is None:
            return
        keys, args = self.journal.append(table.table_id, lease.token, action)
        self.writer.put(self._append, keys, args, self._fenced(table.table_id))

    async def may_write(self, table_id: str) -> bool:
        lease = self.leased.get(table_id)
        if lease is None:  # a table outside the cluster (admin test mode) is ours alone
            return table_id not in self._configs and table_id not in self._fenced_off
        await self.writer.flush()  # the hand's last actions are journaled first
        if await self.leases.is_current(lease):
            return True
        self._lost(table_id)
        return False

    async def hand_stored(self, live: LiveTable | None, record: HandRecordData) -> None:
        config = self._configs.get(record.table_id)
        if live is None or config is None or record.table_id not in self.leased:
            return
        ctx = live.table.next_context
        self._configs[record.table_id] = config.model_copy(update={
            "seats": _seats(live),
            "ctx": None if ctx is None else ContextData.of(ctx),
            "hands": config.hands + 1,
            "seq": live.table.seq,
        })
        self._store(live, clear_hand=True)
        await self.writer.flush()
        seats = [a for a in record.seats if a is not None]
        if self.boards is not None and not record.voided and len(seats) == 4:
            try:
                await self.boards.settled(seats, record.variant)
            except Exception:  # the boards catch up at their next rebuild
                log.exception("table %s: updating the leaderboards failed", record.table_id)

    def _store(self, live: LiveTable, *, clear_hand: bool) -> None:
        lease = self.leased[live.table_id]
        config = self._configs[live.table_id]
        summary = _json(summary_of(live, self.node_id))
        keys, args = self.journal.store_table(lease.token, config, summary, clear_hand=clear_hand)
        self.writer.put(self._store_table, keys, args, self._fenced(live.table_id))

    def _fenced(self, table_id: str) -> Any:
        def done(result: object) -> None:
            if isinstance(result, Exception):
                log.error("table %s: a journal write failed: %s", table_id, result)
            elif result == 0:
                self._lost(table_id)

        return done

    def _lost(self, table_id: str) -> None:
        """Another node holds the table now: stop serving it here, at once."""
        if self.leased.pop(table_id, None) is None:
            return
        self._configs.pop(table_id, None)
        self._fenced_off.add(table_id)
        log.warning("node %s: lost the lease of table %s; stopping it here", self.node_id, table_id)
        asyncio.get_running_loop().create_task(self.registry.drop(table_id))

    # --- tables: leases and failover ---------------------------------------------------------

    async def _renew_forever(self) -> None:
        interval = self.leases.ttl_ms / 3000
        while True:
            await asyncio.sleep(interval)
            held = list(self.leased.values())
            try:
                renewed = await self.leases.renew_all(held)
            except (RedisError, OSError) as exc:  # Redis away: again next time
                log.warning("node %s: renewing leases failed: %s", self.node_id, exc)
                continue
            for lease, ok in zip(held, renewed):
                if not ok and self.leased.get(lease.table_id) is lease:
                    self._lost(lease.table_id)

    async def _watch_forever(self) -> None:
        while True:
            await asyncio.sleep(self._watch_interval)
            try:
                await self.watch_once()
            except Exception:
                log.exception("node %s: watching the table directory failed", self.node_id)
            try:
                await self.check_presence()
            except Exception:
                log.exception("node %s: reading presence failed", self.node_id)

    async def _sockets(self, accounts: list[int]) -> dict[int, str]:
        """The accounts with a live socket, and the node holding it: presence names a node
        that still listens on its channel (a killed node's entries outlive it by their TTL)."""
        if not accounts:
            return {}
        nodes = [
            None if n is None else str(n)
            for n in await self.redis.mget([self.keys.online(a) for a in accounts])
        ]
        others = sorted({n for n in nodes if n is not None and n != self.node_id})
        alive = {self.node_id}
        if others:
            counts = await self.redis.pubsub_numsub(*[self.keys.channel(n) for n in others])
            alive |= {n for n, (_, count) in zip(others, counts) if int(count) > 0}
        return {
            a: n for a, n in zip(accounts, nodes)
            if n is not None and n in alive and (n != self.node_id or a in self._sinks)
        }

    async def check_presence(self) -> list[tuple[str, int]]:
        """Mark disconnected the seats (at tables this node owns) of players whose socket
        was on another node and whose presence entry is gone (that node closed the socket,
        or died and its entries expired): the same `Disconnected` as a local socket drop.
        A seat so marked is connected again when its player's entry comes back (the
        player logged in again, or the entry had only lapsed). The (table, seat) pairs
        marked disconnected."""
        seated = [
            (live, seat, account)
            for live in self.registry.all() if live.table_id in self.leased
            for seat, account in enumerate(live.accounts())
            if account is not None and account not in live.bots
        ]
        accounts = sorted({account for _, _, account in seated})
        nodes = (
            await self.redis.mget([self.keys.online(a) for a in accounts]) if accounts else []
        )
        now = {a: None if n is None else str(n) for a, n in zip(accounts, nodes)}
        before, self._seen = self._seen, {a: n for a, n in now.items() if n is not None}
        marked_before, self._marked = self._marked, set()
        marked = []
        for live, seat, account in seated:
            key = (live.table_id, account)
            if now[account] is not None:
                if key in marked_before:
                    live.table.submit(Connected(seat))
                continue
            held_by = before.get(account)
            if key in marked_before:
                self._marked.add(key)
            elif held_by is not None and held_by != self.node_id and account not in self._sinks:
                live.table.submit(Disconnected(seat))
                self._marked.add(key)
                marked.append((live.table_id, seat))
        return marked

    def _away(self, table_id: str, account_id: int) -> int | None:
        """The account's socket is gone: its seat at the table is disconnected (the seat)."""
        live = self.registry.get(table_id)
        seat = live.seat_of(account_id) if live is not None else None
        if live is not None and seat is not None:
            live.table.submit(Disconnected(seat))
        return seat

    async def watch_once(self) -> list[str]:
        """Take over every listed table that no node holds; the tables taken."""
        listed = [
            str(t) for t in await self.redis.hkeys(self.keys.directory)
            if str(t) not in self.leased
        ]
        if not listed:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in listed:
                pipe.exists(self.keys.lease(table_id))
            held = await pipe.execute()
        taken = []
        for table_id, exists in zip(listed, held):
            if exists:
                continue
            lease = await self.leases.acquire(table_id)
            if lease is None:
                continue  # another node was quicker
            if await self.adopt(lease):
                taken.append(table_id)
        return taken

    async def adopt(self, lease: Lease) -> bool:
        """Serve a table from its journal, under `lease` (taken already)."""
        table_id = lease.table_id
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(self.keys.config(table_id))
            pipe.get(self.keys.hand(table_id))
            pipe.lrange(self.keys.actions(table_id), 0, -1)
            config_raw, header_raw, actions_raw = await pipe.execute()
        if config_raw is None:  # listed but never stored, or dissolved half-way
            await self.redis.hdel(self.keys.directory, table_id)
            await self.leases.release(lease)
            return False
        config = TableConfig.model_validate_json(config_raw)
        players = [s.account for s in config.seats if s.account is not None and not s.bot]
        present = await self._sockets(players)  # where each player's socket lives, if anywhere
        self._fenced_off.discard(table_id)
        self.leased[table_id] = lease
        self._configs[table_id] = config
        live = self.registry.create(
            config.variant, config.stake, timers=config.timers.timers(), table_id=table_id
        )
        live.bots = {s.account for s in config.seats if s.account is not None and s.bot}
        # a player is there only with a live socket on some node; one whose socket died
        # with the old owner starts disconnected (the usual disconnect and 托管 rules)
        live.table.seats = [
            SeatState(
                s.account,
                connected=s.account is None or s.bot or s.account in present,
                autoplay=s.autoplay,
                house_bot=s.bot,
            )
            for s in config.seats
        ]
        self.registry.hold_seats(live)  # their claims are the old owner's: kept
        self._seen.update(present)
        ctx = None if config.ctx is None else config.ctx.context()
        hand = None
        if header_raw is not None:
            header = HandHeader.model_validate_json(header_raw)
            hand = AdoptedHand(
                hand_id=header.hand_id,
                hands=header.hands,
                seed=header.seed,
                ctx=header.ctx.context(),
                preset=None if header.preset is None else header.preset.preset(),
                first_seq=header.first_seq,
                actions=[action_of(a) for a in actions_raw],
            )
        try:
            live.table.adopt(config.hands, config.seq, ctx, hand)
        except ValueError:
            # the log does not replay: the hand is lost (no silver moved), the table goes on
            log.exception("table %s: its hand cannot be restored", table_id)
            live.table.adopt(config.hands + 1, config.seq, ctx, None)
        if not config.paused:  # an administrator's pause outlives the old owner
            live.table.submit(AdminResume())
        self._store(live, clear_hand=hand is None)
        self.adopted.append(table_id)
        log.warning(
            "node %s: took over table %s (token %d, %s)", self.node_id, table_id, lease.token,
            f"hand {hand.hand_id} at action {len(hand.actions)}" if hand else "between hands",
        )
        return True

    async def _boards_forever(self) -> None:
        assert self.boards is not None
        while True:
            try:
                await self.boards.rebuild_if_due(self.node_id)
            except Exception:
                log.exception("node %s: rebuilding the leaderboards failed", self.node_id)
            await asyncio.sleep(5)

    async def board(self, name: str, limit: int, offset: int) -> list[BoardEntry] | None:
        if self.boards is None:
            return None
        return await self.boards.page(name, limit, offset)

    async def forget(self, account_ids: list[int]) -> None:
        if self.boards is not None:
            await self.boards.forget(account_ids)

    # --- lobby ------------------------------------------------------------------------------

    async def tables(self) -> list[dict[str, Any]] | None:
        raw = await self.redis.hvals(self.keys.directory)
        return sorted((_load(str(r)) for r in raw), key=lambda s: str(s["id"]))

    async def summary(self, table_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.keys.directory, table_id)
        return None if raw is None else _load(str(raw))

    async def call(
        self,
        op: str,
        table_id: str,
        account_id: int,
        seat: int | None = None,
        *,
        bot: bool = False,
    ) -> tuple[dict[str, Any], int | None]:
        assert op in ("sit", "leave")
        call = Call(
            id=secrets.token_hex(8), reply_node=self.node_id, op=op,  # type: ignore[arg-type]
            table_id=table_id, account=account_id, seat=seat, bot=bot,
        )
        with self._awaiting(call.id) as future:

            def routed(result: object) -> None:
                if not (isinstance(result, int) and result > 0) and not future.done():
                    future.set_exception(
                        RemoteRefused("not_found", f"table {table_id!r} is not served right now")
                    )

            self.writer.put(
                self._route_table,
                [self.keys.lease(table_id), self.keys.directory],
                [self.keys.channel_prefix, call.model_dump_json(), table_id],
                routed,
            )
            reply = await self._reply(future, CALL_TIMEOUT, RemoteRefused(
                "not_found", f"table {table_id!r} did not answer; try again"
            ))
        assert reply.table is not None
        return reply.table, reply.seat

    async def _answer(self, call: Call) -> None:
        live = self.registry.get(call.table_id)
        if live is None:
            reply = Reply(id=call.id, code="not_found", message=f"no table {call.table_id!r}")
        else:
            try:
                seat: int | None = None
                if call.op == "sit":
                    seat = await self.registry.take_seat(
                        call.table_id, call.account, call.seat, bot=call.bot
                    )
                else:
                    self.registry.leave(call.table_id, call.account)
                reply = Reply(id=call.id, table=summary_of(live, self.node_id), seat=seat)
            except TableError as refused:
                reply = Reply(
                    id=call.id, code=refused.code, message=refused.message,
                    details=refused.details,
                )
        self.writer.publish(self.keys.channel(call.reply_node), reply.model_dump_json())

    # --- seat claims and bans ---------------------------------------------------------------

    async def claim_seat(self, account_id: int, table_id: str) -> str:
        try:
            return await self.claims.claim(account_id, table_id)
        except (RedisError, OSError) as exc:  # not claimed: not seated
            log.warning("node %s: claiming a seat failed: %s", self.node_id, exc)
            raise RemoteRefused(
                UNAVAILABLE, "the lobby cannot seat you right now; try again"
            ) from None

    def release_seat(self, account_id: int, table_id: str) -> None:
        keys, args = self.claims.release_args(account_id, table_id)
        self.writer.put(self.claims.release_script, keys, args)

    async def banned(self, account_id: int) -> None:
        """Tell every other node (each listening on its channel) that the account is banned;
        returns once the messages are published."""
        message = Banned(account=account_id, by_node=self.node_id).model_dump_json()
        try:
            nodes = await self._nodes()
        except (RedisError, OSError) as exc:
            log.error("node %s: the ban of account %d reached no other node: %s",
                      self.node_id, account_id, exc)
            return
        for node in nodes:
            if node != self.node_id:
                self.writer.publish(self.keys.channel(node), message)
        await self.writer.flush()

    async def _nodes(self) -> list[str]:
        """The nodes listening on their channel now, in name order."""
        prefix = self.keys.channel_prefix
        pattern = "".join("\\" + c if c in "*?[]\\" else c for c in prefix) + "*"
        return sorted(
            str(c)[len(prefix):] for c in await self.redis.pubsub_channels(pattern)
        )

    # --- administration ---------------------------------------------------------------------

    async def admin(
        self,
        op: table_admin.AdminOp,
        table_id: str = "",
        *,
        seat: int | None = None,
        reveal: bool = False,
    ) -> dict[str, Any]:
        if op == "list":
            return {"tables": await self._admin_list()}
        call = AdminCall(
            id=secrets.token_hex(8), reply_node=self.node_id, op=op, table_id=table_id,
            seat=seat, reveal=reveal,
        )
        with self._awaiting(call.id) as future:
            routed = await self._route_table(
                keys=[self.keys.lease(table_id), self.keys.directory],
                args=[self.keys.channel_prefix, call.model_dump_json(), table_id],
            )
            if routed == -1:
                raise RemoteRefused("not_found", f"no table {table_id!r}")
            if not (isinstance(routed, int) and routed > 0):  # failing over, or owner gone
                raise RemoteRefused(
                    UNAVAILABLE, f"table {table_id!r} is moving to another server; try again"
                )
            reply = await self._admin_reply(future, f"the server of table {table_id!r}")
        assert reply.table is not None
        return reply.table

    async def _admin_list(self) -> list[dict[str, Any]]:
        """Every other node's tables (`admin.snapshot`), nodes in name order."""
        nodes = await self._nodes()
        with contextlib.ExitStack() as calls:
            asked: list[tuple[str, asyncio.Future[Reply]]] = []
            for node in nodes:
                if node == self.node_id:
                    continue
                call = AdminCall(id=secrets.token_hex(8), reply_node=self.node_id, op="list")
                future = calls.enter_context(self._awaiting(call.id))
                asked.append((node, future))
                if await self.redis.publish(self.keys.channel(node), call.model_dump_json()) == 0:
                    future.set_result(Reply(id=call.id, table={"tables": []}))  # it just left
            tables: list[dict[str, Any]] = []
            for node, future in asked:
                reply = await self._admin_reply(future, f"node {node!r}")
                assert reply.table is not None
                tables += reply.table["tables"]
            return tables

    @contextlib.contextmanager
    def _awaiting(self, call_id: str) -> Iterator[asyncio.Future[Reply]]:
        """The future the bus listener resolves with the reply to `call_id`, while it is
        awaited."""
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        try:
            yield future
        finally:
            self._calls.pop(call_id, None)

    @staticmethod
    async def _reply(
        future: asyncio.Future[Reply], timeout: float, late: RemoteRefused
    ) -> Reply:
        """The reply, or `late` raised after `timeout` seconds; a refusal raised as such."""
        try:
            reply = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise late from None
        if reply.code is not None or reply.table is None:
            raise RemoteRefused(reply.code or "internal_error", reply.message, reply.details)
        return reply

    async def _admin_reply(self, future: asyncio.Future[Reply], who: str) -> Reply:
        return await self._reply(future, ADMIN_CALL_TIMEOUT, RemoteRefused(
            UNAVAILABLE, f"{who} did not answer within {ADMIN_CALL_TIMEOUT:g} s; try again"
        ))

    def _answer_admin(self, call: AdminCall) -> None:
        """Run an admin command for another node, in a task of its own (it waits for the
        table's actor; the bus listener goes on meanwhile)."""

        async def answer() -> None:
            try:
                if call.op != "list" and call.table_id in self._fenced_off and (
                    self.registry.get(call.table_id) is None
                ):
                    raise TableError(
                        UNAVAILABLE, f"table {call.table_id!r} is moving to another server"
                    )
                result = await table_admin.run(
                    self.registry, call.op, call.table_id, seat=call.seat, reveal=call.reveal
                )
                reply = Reply(id=call.id, table=result)
            except TableError as refused:
                reply = Reply(id=call.id, code=refused.code, message=refused.message)
            except Exception:
                log.exception("node %s: admin %s of table %s failed", self.node_id, call.op,
                              call.table_id)
                reply = Reply(
                    id=call.id, code="internal_error", message="something went wrong on our side"
                )
            self.writer.publish(self.keys.channel(call.reply_node), reply.model_dump_json())

        task = asyncio.get_running_loop().create_task(answer(), name=f"admin-{call.id}")
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    # --- sockets ----------------------------------------------------------------------------

    def connected(self, account_id: int, sink: Sink) -> None:
        self._sinks[account_id] = sink
        close = Close(account=account_id, code=CLOSE_REPLACED, by_node=self.node_id)
        keys, args = self.presence.arrive_args(account_id, close.model_dump_json())
        self.writer.put(self.presence.arrive_script, keys, args)

    def disconnected(self, account_id: int, sink: Sink) -> None:
        if self._sinks.get(account_id) is not sink:
            return  # replaced by a newer login on another node
        del self._sinks[account_id]
        self.writer.put(
            self.presence.leave_script, [self.keys.online(account_id)], [self.node_id]
        )
        for table_id in self._forwarded.pop(account_id, set()):
            away = Away(account=account_id, table_id=table_id)
            self._to_table(table_id, away.model_dump_json())

    def forward(self, account_id: int, message: ClientMessage) -> bool:
        table_id = message.table_id  # type: ignore[union-attr]  # ping never gets here
        self._forwarded[account_id].add(table_id)
        sent = ToTable(
            account=account_id, table_id=table_id, reply_node=self.node_id,
            message=message.model_dump_json(),
        )

        def routed(result: object) -> None:
            if isinstance(result, int) and result > 0:
                return
            if result == -1:
                error = _error("wrong_table", "you do not sit at that table")
            else:  # the owner died and no node has taken the table over yet
                error = _error("internal", "the table is moving to another server; resume")
            sink = self._sinks.get(account_id)
            if sink is not None:
                sink.deliver(error)

        self._to_table(table_id, sent.model_dump_json(), routed)
        return True

    def deliver(self, account_id: int, message: ServerMessage) -> None:
        payload = ToAccount(account=account_id, message=message.model_dump_json())
        self.writer.put(
            self._route_account,
            [self.keys.online(account_id)],
            [self.keys.channel_prefix, payload.model_dump_json()],
        )

    def _to_table(self, table_id: str, payload: str, done: Any = None) -> None:
        self.writer.put(
            self._route_table,
            [self.keys.lease(table_id), self.keys.directory],
            [self.keys.channel_prefix, payload, table_id],
            done,
        )

    async def _refresh_presence_forever(self) -> None:
        interval = self.presence.ttl_ms / 3000
        while True:
            await asyncio.sleep(interval)
            try:
                await self.presence.refresh(list(self._sinks))
            except (RedisError, OSError) as exc:
                log.warning("node %s: refreshing presence failed: %s", self.node_id, exc)

    # --- the bus ----------------------------------------------------------------------------

    async def _on_message(self, raw: str) -> None:
        message = NODE_MESSAGE.validate_json(raw)
        if isinstance(message, ToAccount):
            sink = self._sinks.get(message.account)
            if sink is not None:
                sink.deliver(SERVER_MESSAGE.validate_json(message.message))
        elif isinstance(message, ToTable):
            self._serve(message)
        elif isinstance(message, Away):
            self._away(message.table_id, message.account)
        elif isinstance(message, Close):
            sink = self._sinks.pop(message.account, None)
            if sink is not None:
                # forgotten first, so that its closing does not mark the account's seats
                # disconnected: the player is connected, on another node
                self.registry.disconnect(message.account, sink)
                sink.close(message.code)
        elif isinstance(message, Banned):
            self.registry.ban_here(message.account)
        elif isinstance(message, Call):
            await self._answer(message)
        elif isinstance(message, AdminCall):
            self._answer_admin(message)
        elif isinstance(message, Reply):
            future = self._calls.get(message.id)
            if future is not None and not future.done():
                future.set_result(message)

    def _serve(self, sent: ToTable) -> None:
        """A client's message forwarded by the node holding its socket."""
        parsed = parse_client(sent.message)
        answer: ServerMessage | None
        if isinstance(parsed, ErrorMessage):
            answer = parsed
        elif self.registry.get(sent.table_id) is None:  # moved on: never forward twice
            answer = _error("internal", "the table is moving to another server; resume")
        else:
            answer = route(parsed, self.registry, sent.account)  # as from a socket here
        if answer is not None:
            payload = ToAccount(account=sent.account, message=answer.model_dump_json())
            self.writer.publish(self.keys.channel(sent.reply_node), payload.model_dump_json())


def _error(code: str, message: str) -> ErrorMessage:
    return ErrorMessage(code=code, message=message)  # type: ignore[arg-type]


def _json(value: dict[str, Any]) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _load(raw: str) -> dict[str, Any]:
    import json

    value = json.loads(raw)
    assert isinstance(value, dict)
    return value

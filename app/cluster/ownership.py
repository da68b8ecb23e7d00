"""Table ownership and failover: a table opened here is leased (`lease.Leases`) and listed
in the directory; its configuration and the hand in play are journaled (`journal`) through
the ordered writer, every write fenced by the lease's token (this is the tables' hand
observer). Leases are renewed every third of their TTL (one that expired with nobody
acquiring it since is set again); a lease another node took, or a write the fence refuses,
stops the table here at once. `watch_once` looks for listed tables without a lease at this
look and the one before (their owner died or left; a live owner sets a lease that expired
in a pause of the whole machine again within a look), takes the lease (a new token) and
restores the table and its hand by replay (`adopt`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from app.cluster.context import NodeContext
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
from app.cluster.lease import Lease, Leases
from app.cluster.routing import Routing
from app.cluster.writer import Done
from app.ops import metrics
from app.rules.actions import Action
from app.rules.context import TableContext
from app.rules.state import Preset
from app.tables.actor import AdoptedHand, HandObserver, TableActor
from app.tables.levels import autoplay_level, bot_level
from app.tables.messages import AdminResume
from app.tables.registry import MIN_BALANCE_PER_STAKE, LiveTable
from app.tables.seats import SeatState
from app.tables.settlement.record import HandRecordData

log = logging.getLogger(__name__)


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
        "timers": asdict(live.timers),  # GET /tables/{id}/players, from any node
        "room": live.room,  # a private room's code: not listed in the lobby
        "bot_level": live.bot_level,  # who plays its house bots (TableOut.bot_level)
    }


def _seats(live: LiveTable) -> list[SeatData]:
    return [
        SeatData(account=s.account, autoplay=s.autoplay, bot=s.account in live.bots,
                 autoplay_level=s.autoplay_level)
        for s in live.table.seats
    ]


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Ownership(HandObserver):
    """The tables this node holds (`leased`), their journal, and the takeover of tables
    whose owner is gone. `routing` tells where the players of an adopted table are."""

    def __init__(
        self, node: NodeContext, leases: Leases, journal: Journal, routing: Routing
    ) -> None:
        self._node = node
        self.leases = leases
        self.journal = journal
        self._routing = routing
        redis = node.redis
        self._start_hand = redis.register_script(START_HAND)
        self._append = redis.register_script(APPEND)
        self._store_table = redis.register_script(STORE_TABLE)
        self._remove_table = redis.register_script(REMOVE_TABLE)
        self.leased: dict[str, Lease] = {}
        self._configs: dict[str, TableConfig] = {}
        self._fenced_off: set[str] = set()  # tables this node lost to a newer owner
        self._unheld: set[str] = set()  # the tables without a lease at the last look
        self.adopted: list[str] = []  # tables this node took over, in order (for operators)

    def observer(self) -> HandObserver | None:
        """The journal: every new table's actor tells it of its hands."""
        return self

    def lost_here(self, table_id: str) -> bool:
        """This node served the table until a newer owner fenced it off."""
        return table_id in self._fenced_off

    # --- the journal ------------------------------------------------------------------------

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
            options=live.options,
            room=live.room,
            creator=live.creator,
            spectators=live.watchers.allowed,
            bot_level=live.bot_level,
            tournament=live.tournament,
        )
        self._store(live, clear_hand=True)
        await self._node.writer.flush()  # listed before the creator is answered

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
        node = self._node
        node.writer.put(self._remove_table, *self.journal.remove_table(table_id, lease.token))
        node.writer.put(self.leases._release, [node.keys.lease(table_id)], [lease.value])

    def hand_started(
        self, table: TableActor, hands: int, seed: bytes, ctx: TableContext, preset: Preset | None
    ) -> None:
        lease = self.leased.get(table.table_id)
        config = self._configs.get(table.table_id)
        live = self._node.registry.get(table.table_id)
        if lease is None or config is None or live is None:
            return
        header = HandHeader(
            hand_id=table.hand_id,
            hands=hands,
            seed=seed.hex(),
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
        summary = summary_of(live, self._node.node_id) | {"status": "playing"}
        keys, args = self.journal.start_hand(lease.token, header, config, _json(summary))
        self._node.writer.put(self._start_hand, keys, args, self._fenced(table.table_id))

    def action_applied(self, table: TableActor, action: Action) -> None:
        lease = self.leased.get(table.table_id)
        if lease is None:
            return
        keys, args = self.journal.append(table.table_id, lease.token, action)
        self._node.writer.put(self._append, keys, args, self._fenced(table.table_id))

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        """For each table, may this node store its hand (its lease is current)? The leases
        are read in one round trip, after the hands' last actions are journaled."""
        leases = [self.leased.get(table_id) for table_id in table_ids]
        held = [lease for lease in leases if lease is not None]
        if held:
            await self._node.writer.flush()
        current = dict(zip((lease.table_id for lease in held),
                           await self.leases.are_current(held), strict=True))
        answers = []
        for table_id, lease in zip(table_ids, leases, strict=True):
            if lease is None:  # a table outside the cluster (admin test mode) is ours alone
                answers.append(table_id not in self._configs
                               and table_id not in self._fenced_off)
            elif current[table_id]:
                answers.append(True)
            else:
                self._lost(table_id)
                answers.append(False)
        return answers

    async def hand_stored(self, live: LiveTable | None, record: HandRecordData) -> None:
        """Store the table after its hand and clear the hand's journal (nothing for a table
        this node does not journal)."""
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
        await self._node.writer.flush()

    def _store(self, live: LiveTable, *, clear_hand: bool) -> None:
        lease = self.leased[live.table_id]
        config = self._configs[live.table_id]
        summary = _json(summary_of(live, self._node.node_id))
        keys, args = self.journal.store_table(lease.token, config, summary, clear_hand=clear_hand)
        self._node.writer.put(self._store_table, keys, args, self._fenced(live.table_id))

    def _fenced(self, table_id: str) -> Done:
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
        metrics.lease_lost()
        log.warning("node %s: lost the lease of table %s; stopping it here",
                    self._node.node_id, table_id)
        asyncio.get_running_loop().create_task(self._node.registry.drop(table_id))

    # --- leases and failover ----------------------------------------------------------------

    def held(self) -> list[Lease]:
        """The leases this node holds (read by the `LeaseKeeper`'s thread)."""
        return list(self.leased.values())

    def lost_lease(self, lease: Lease) -> None:
        """Redis no longer holds `lease` for this node: stop serving its table (unless a
        newer lease of ours replaced it meanwhile)."""
        if self.leased.get(lease.table_id) is lease:
            self._lost(lease.table_id)

    async def release_all(self) -> None:
        """This node stops (its actors have): give every lease back, so that another node
        takes each table over from its journal at once."""
        for lease in list(self.leased.values()):
            try:
                await self.leases.release(lease)
            except Exception:
                log.exception("node %s: releasing %s failed", self._node.node_id,
                              lease.table_id)
        self.leased.clear()

    async def watch_once(self) -> list[str]:
        """Take over every listed table that no node held at this look nor at the one
        before; the tables taken (Redis picks them: `Leases.unheld`). The look between
        lets a live owner whose lease expired while the whole machine stood still (a pause
        longer than the TTL: Redis's clock jumps with it) set it again first."""
        unheld = await self.leases.unheld()
        before, self._unheld = self._unheld, set(unheld)
        taken = []
        for table_id in unheld:
            if table_id in self.leased or table_id not in before:
                continue
            lease = await self.leases.acquire(table_id)
            if lease is None:
                continue  # another node was quicker
            if await self.adopt(lease):
                taken.append(table_id)
        return taken

    async def adopt(self, lease: Lease) -> bool:
        """Serve a table from its journal, under `lease` (taken already)."""
        node = self._node
        table_id = lease.table_id
        async with node.redis.pipeline(transaction=False) as pipe:
            pipe.get(node.keys.config(table_id))
            pipe.get(node.keys.hand(table_id))
            pipe.lrange(node.keys.actions(table_id), 0, -1)
            config_raw, header_raw, actions_raw = await pipe.execute()
        if config_raw is None:  # listed but never stored, or dissolved half-way
            await node.redis.hdel(node.keys.directory, table_id)
            await self.leases.release(lease)
            return False
        config = TableConfig.model_validate_json(config_raw)
        players = [s.account for s in config.seats if s.account is not None and not s.bot]
        # where each player's socket lives, if anywhere
        present = await self._routing.locate(players)
        self._fenced_off.discard(table_id)
        self.leased[table_id] = lease
        self._configs[table_id] = config
        live = node.registry.create(
            config.variant, config.stake, timers=config.timers.timers(), table_id=table_id,
            options=config.options, room=config.room, bot_level=bot_level(config.bot_level),
            tournament=config.tournament,
        )
        live.creator = config.creator
        live.watchers.allowed = config.spectators
        # a player is there only with a live socket on some node; one whose socket died
        # with the old owner starts disconnected (the usual disconnect and 托管 rules)
        seats = [
            SeatState(
                s.account,
                connected=s.account is None or s.bot or s.account in present,
                autoplay=s.autoplay,
                autoplay_level=autoplay_level(s.autoplay_level),
                house_bot=s.bot,
            )
            for s in config.seats
        ]
        hand = self._hand(header_raw, actions_raw)
        ctx = None if config.ctx is None else config.ctx.context()
        try:
            live.table.adopt(config.hands, config.seq, ctx, hand, seats)
        except ValueError:
            # the log does not replay: the hand is lost (no silver moved), the table goes on
            log.exception("table %s: its hand cannot be restored", table_id)
            live.table.adopt(config.hands + 1, config.seq, ctx, None, seats)
        node.registry.hold_seats(live)  # their claims are the old owner's: kept
        if not config.paused:  # an administrator's pause outlives the old owner
            live.table.submit(AdminResume())
        self._store(live, clear_hand=hand is None)
        self.adopted.append(table_id)
        metrics.table_taken_over()
        log.warning(
            "node %s: took over table %s (token %d, %s)", node.node_id, table_id, lease.token,
            f"hand {hand.hand_id} at action {len(hand.actions)}" if hand else "between hands",
        )
        return True

    @staticmethod
    def _hand(header_raw: str | None, actions_raw: list[str]) -> AdoptedHand | None:
        """The journaled hand in play, if any, to replay."""
        if header_raw is None:
            return None
        header = HandHeader.model_validate_json(header_raw)
        return AdoptedHand(
            hand_id=header.hand_id,
            hands=header.hands,
            seed=header.seed_bytes(),
            ctx=header.ctx.context(),
            preset=None if header.preset is None else header.preset.preset(),
            first_seq=header.first_seq,
            actions=[action_of(a) for a in actions_raw],
        )

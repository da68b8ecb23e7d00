"""A hand's settlement, from its end to the ledger, with one owner (DESIGN.md, "One owner per
thing"): `Settlement.settle` takes the hand a table ended and returns once it is stored and
paid, or once it knows another node stores it.

- The hand waits in the `Settler`'s queue and is stored with the others ending then
  (`results.store_hands`: its record and silver in one transaction, the disconnects of the
  seats still away, charging the third in 24 hours on the injectable `wall_clock`);
- before a batch is stored its tables' fence is read (`Fence.may_write`, every lease in one
  read): a table another node owns now is not stored here, and `settle` answers None (that
  node finds the hand in its journal and settles it; docs/cluster.md);
- a store that fails is tried again with backoff (`RETRY_FIRST`, doubling up to
  `RETRY_MAX`) until the database has the hand: a result is never dropped, and a table
  shows none that is not stored (DESIGN.md, "Results are written before they are shown");
- once stored, the one fact "hand H settled" (`HandSettled`: the record, and what each
  seat's balance moved by with the seats' profiles after it) goes to every listener, in the
  order they subscribed (the private rooms, the cluster's journal and leaderboards), each
  awaited before the next, before `settle` returns; a listener that fails is logged and the
  others are told all the same.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.ops import metrics
from app.tables.settlement.penalties import DEFAULT_POLICY, DisconnectPolicy
from app.tables.settlement.record import HandRecordData
from app.tables.settlement.results import Job, Stored, store_hands
from app.tables.settlement.settler import Settler

log = logging.getLogger(__name__)

RETRY_FIRST = 0.2  # seconds before storing a hand is tried again, doubling each time
RETRY_MAX = 5.0  # up to this many seconds between tries


class Fence(Protocol):
    """Whether this node may store a table's hand (the cluster: its lease is current)."""

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        """For each table: may this node store and settle its hand? False when a newer
        owner exists: the stale owner stops instead."""
        ...


class OneProcess:
    """The fence of a server of one process: every table is its own."""

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        return [True] * len(table_ids)


@dataclass(frozen=True, slots=True)
class HandSettled:
    """Hand `record.hand_id` of table `record.table_id`, played at `stake` silver a point, is
    stored and paid: `stored` says what each seat's balance moved by and each seated
    account's profile afterwards."""

    record: HandRecordData
    stake: int
    stored: Stored


Listener = Callable[[HandSettled], Awaitable[None]]


class Settlement:
    """The hands of this node's tables on their way to the ledger (the module's rules)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        policy: DisconnectPolicy = DEFAULT_POLICY,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        batch: int = 32,
        runners: int = 2,
    ) -> None:
        self._sessions = sessions
        self._policy = policy
        self._wall_clock = wall_clock  # when a disconnect happened (the 24-hour window)
        self._settler = Settler(self._store_many, batch=batch, runners=runners)
        self._listeners: list[Listener] = []
        self.fence: Fence = OneProcess()  # the cluster's, when there is one

    def subscribe(self, listener: Listener) -> None:
        """Tell `listener` of every hand settled from now on, after the earlier listeners."""
        self._listeners.append(listener)

    async def settle(
        self,
        record: HandRecordData,
        stake: int,
        *,
        retrying: Callable[[], None] | None = None,
    ) -> Stored | None:
        """Store the hand, trying again until the database has it, then tell the listeners;
        what was stored, or None when a newer owner of the table exists (it stores the hand
        from its journal). `retrying` is called at the first failure (the table says it
        is still settling)."""
        ended_at = self._wall_clock()  # the disconnects' time, the same in every attempt
        ended = time.perf_counter()
        delay = RETRY_FIRST
        failures = 0
        while True:
            try:
                stored = await self._settler.store(Job(record, stake, ended_at))
                break
            except Exception:
                failures += 1
                metrics.settled("failed")
                if failures == 1:
                    log.exception("table %s: storing hand %s failed; retrying until stored",
                                  record.table_id, record.hand_id)
                    if retrying is not None:
                        retrying()
                else:
                    log.warning("table %s: storing hand %s failed %d times; retrying",
                                record.table_id, record.hand_id, failures)
                await asyncio.sleep(delay)
                delay = min(2 * delay, RETRY_MAX)
        if stored is None:
            log.warning("table %s: a newer owner exists; hand %s not stored here",
                        record.table_id, record.hand_id)
            return None
        metrics.hand_stored(time.perf_counter() - ended)
        if record.state is not None and not record.voided:
            metrics.settled(record.state.outcome)
        settled = HandSettled(record, stake, stored)
        for listener in self._listeners:
            try:
                await listener(settled)
            except Exception:  # the hand is stored: the others are told all the same
                log.exception("table %s: a listener of hand %s failed", record.table_id,
                              record.hand_id)
        return stored

    def oldest_wait(self) -> float:
        """Seconds the oldest ended hand waiting for its turn to be stored has waited."""
        return self._settler.oldest_wait()

    async def stop(self, grace: float) -> None:
        """Let the hands being stored finish for up to `grace` seconds, then give up: a
        hand not stored then was never shown (its journal keeps it for the next owner)."""
        await self._settler.stop(grace)

    async def _store_many(self, jobs: Sequence[Job]) -> list[Stored | None | Exception]:
        """The batch's fence (every table's lease, in one read), then its store. A fence
        that cannot be read (Redis away) fails each hand: its caller retries, as a store
        that failed."""
        try:
            ours = await self.fence.may_write([job.record.table_id for job in jobs])
        except Exception as error:  # noqa: BLE001 - each hand fails, its caller retries
            return [error] * len(jobs)
        mine = [job for job, may in zip(jobs, ours, strict=True) if may]
        stored = iter(await store_hands(self._sessions, mine, self._policy))
        return [next(stored) if may else None for may in ours]

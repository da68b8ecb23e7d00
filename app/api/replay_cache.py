"""Replays built once and kept (回放缓存): what `GET /hands/{id}/replay` costs a node.

An attack run found that a replay rebuilt its hand on the event loop for every request
(tens of milliseconds of CPU with `views=true`): five accounts replaying in a loop, within
every request limit, took a node from 0.17 to 0.89 cores and the other tables' hands per
minute down by 42%. A stored hand never changes, so:

- **Kept.** A replay's immutable part (`replay_build.Built`: the events and steps as JSON)
  is kept per (hand, viewer, views) in a least-recently-used cache bounded by its bytes
  (`REPLAY_CACHE_BYTES`). The viewer is the seat whose view it is (None: an
  administrator's view of every seat), never the account asking: the route decides who
  may see which view before it asks here, and a seat's view answers only that seat (or an
  administrator asking for that seat, who is shown exactly the same). What can change (the
  players' names, the silver rows, the admin's audit row) the route reads per request.
- **Built once.** Requests for a replay being built wait for that build (one build, many
  answers); a waiting request that is cancelled leaves the build running and kept.
- **Off the loop.** A build runs in a worker process (`REPLAY_BUILDERS` of them, started
  with the first build). Not a thread: a build is pure Python and holds the GIL, so a
  thread would take its CPU from the loop all the same (bench/bench_replay.py measured it).
  At most `REPLAY_BUILDS_WAITING` builds wait or run at once in this process; one more
  answers 503 `busy` with Retry-After (the node is short of capacity, not the caller at
  fault). A worker that dies is replaced at the next build.
- **Bounded per account.** A build (a miss: neither kept nor being built) spends one of
  the account's `REPLAY_BUILDS_PER_ACCOUNT` per `REPLAY_WINDOW_SECONDS` on this node;
  past that the answer is 429 `rate_limited` with Retry-After and `details.retry_after`.
  A kept or joined answer costs nothing against it.

Counted in this process (as the lobby's bot seats are): each node's CPU is what the
budget protects, and each node keeps its own replays.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app.api import replay_build
from app.api.errors import ApiError
from app.api.ratelimit import MemoryQuota
from app.api.replay_build import Built, StoredHand
from app.ops import metrics
from app.settings import Settings

Key = tuple[str, int | None, bool]
"""(hand id, viewer: a seat or None for every seat's tiles, views)."""

BUSY_RETRY_AFTER = 1  # seconds, as the other `busy` answers (app/api/errors.py)


def worker_pool(builders: int) -> ProcessPoolExecutor:
    """`builders` worker processes, started fresh (spawn: nothing of this process's threads
    or sockets is inherited) when the first build is submitted."""
    return ProcessPoolExecutor(
        max_workers=builders,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=replay_build.warm_up,
    )


class ReplayCache:
    """Replays per `Key`: kept, built once, off the loop, within each account's budget."""

    def __init__(
        self,
        max_bytes: int,
        budget: MemoryQuota,
        executor: Callable[[], Executor] | None,
        waiting: int = 16,
    ) -> None:
        """`executor` makes the executor builds run in (made at the first build, again
        after a process pool broke); None builds on the event loop itself (for comparison
        in bench/bench_replay.py only)."""
        self.max_bytes = max_bytes
        self.budget = budget
        self.waiting = waiting
        self._make_executor = executor
        self._executor: Executor | None = None
        self._kept: OrderedDict[Key, Built] = OrderedDict()
        self._building: dict[Key, asyncio.Future[Built]] = {}
        self.bytes = 0
        self.builds = 0  # how many builds were started (tests count them)

    @classmethod
    def from_settings(cls, settings: Settings) -> ReplayCache:
        builders = settings.replay_builders
        return cls(
            settings.replay_cache_bytes,
            MemoryQuota(settings.replay_builds_per_account, settings.replay_window_seconds),
            lambda: worker_pool(builders),
            waiting=settings.replay_builds_waiting,
        )

    def get(
        self, key: Key, account: int | str, hand: Callable[[], StoredHand]
    ) -> Awaitable[Built]:
        """The replay of `key` for `account` (an account id, or an anonymous reader's
        address as `public_budget_key` writes it): kept, being built, or built now from `hand()`
        (a build of the account's budget: `rate_limited` past it, `busy` when this process
        has `waiting` builds in hand already). Decided at once, before any await, so that
        the caller may refuse before it writes anything."""
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            metrics.replay_answered("kept")
            return _done(kept)
        building = self._building.get(key)
        if building is not None:
            metrics.replay_answered("joined")
            return asyncio.shield(building)
        wait = self.budget.retry_after(str(account), 1)
        if wait is not None:
            metrics.replay_answered("rate_limited")
            raise ApiError(
                "rate_limited",
                f"too many replays built; try again in {wait} s",
                details={"retry_after": wait},
                headers={"Retry-After": str(wait)},
            )
        if len(self._building) >= self.waiting:
            metrics.replay_answered("busy")
            raise ApiError(
                "busy",
                "the server is busy building replays; try again",
                headers={"Retry-After": str(BUSY_RETRY_AFTER)},
            )
        self.budget.spend(str(account), 1)
        self.builds += 1
        metrics.replay_answered("built")
        future = self._building[key] = self._start(key, hand())
        return asyncio.shield(future)

    def _start(self, key: Key, hand: StoredHand) -> asyncio.Future[Built]:
        loop = asyncio.get_running_loop()
        executor = self._executor
        if self._make_executor is None:
            future: asyncio.Future[Built] = loop.create_future()
            try:
                future.set_result(replay_build.build(hand, key[1], key[2]))
            except Exception as failed:  # noqa: BLE001 - the request answers it (500)
                future.set_exception(failed)
        else:
            if executor is None:
                executor = self._executor = self._make_executor()
            future = loop.run_in_executor(executor, replay_build.build, hand, key[1], key[2])
        future.add_done_callback(lambda done: self._finished(key, done, executor))
        return future

    def _finished(
        self, key: Key, done: asyncio.Future[Built], executor: Executor | None
    ) -> None:
        del self._building[key]
        if done.cancelled():
            return
        failed = done.exception()
        broken = isinstance(failed, BrokenProcessPool)
        if broken and executor is not None and executor is self._executor:
            self._executor = None  # a worker died: a new pool at the next build
            executor.shutdown(wait=False, cancel_futures=True)
        if failed is None:
            self._keep(key, done.result())

    def _keep(self, key: Key, built: Built) -> None:
        if built.size > self.max_bytes:
            return  # larger than the whole cache: built again when asked again
        self._kept[key] = built
        self.bytes += built.size
        while self.bytes > self.max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self.bytes -= dropped.size

    def close(self) -> None:
        """Stop the workers (a build in progress is abandoned)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def public_budget_key(address: str) -> str:
    """The budget an anonymous reader of public replays builds against: its address (no
    account id is a string, so the two never share a budget)."""
    return f"address:{address}"


def _done(built: Built) -> asyncio.Future[Built]:
    future: asyncio.Future[Built] = asyncio.get_running_loop().create_future()
    future.set_result(built)
    return future

"""The node's ordered writer: every Redis command a node makes on behalf of its tables and
sockets (journal appends, fenced stores, routed publishes, presence) goes through one
FIFO queue, sent in pipelines by one task. Order is kept: a hand's actions are journaled
in the order they were applied, and a seat's messages arrive in the order they were sent.
`put` never blocks (the actor calls it from inside a step).

Gathered commands (`gather`): items of one kind that a batch sends as a single script
call, after the batch's other commands, in the order they were queued. The routed messages
for accounts whose sockets are elsewhere go this way: one call and one PUBLISH per node
per batch instead of a script and a PUBLISH per message (a seat's messages keep their
order; they may go after a command queued behind them in the same batch, never before one
queued ahead of them).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

from app.ops import metrics
from app.ops.tasks import cancel_and_wait

log = logging.getLogger(__name__)

Done = Callable[[object], None]
BATCH = 512
RETRIES = 5


@dataclass(frozen=True, slots=True, eq=False)
class Gather:
    """A kind of gathered command: `script` is called with every item's key as KEYS (in
    order) and `head` then every item's argument as ARGV."""

    script: AsyncScript
    head: tuple[str, ...]


@dataclass(slots=True)
class _Op:
    script: AsyncScript | None
    keys: Sequence[str]
    args: Sequence[EncodableT]
    done: Done | None
    flushed: asyncio.Future[None] | None = None
    gather: Gather | None = None


class Writer:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._queue: asyncio.Queue[_Op] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="cluster-writer")

    async def stop(self) -> None:
        """Send what is queued, then stop."""
        if self._task is None:
            return
        await self.flush()
        await cancel_and_wait([self._task])
        self._task = None

    def put(
        self,
        script: AsyncScript,
        keys: Sequence[str],
        args: Sequence[EncodableT],
        done: Done | None = None,
    ) -> None:
        """Queue one script call; `done` gets its result (or the exception) once sent."""
        self._queue.put_nowait(_Op(script, keys, args, done))

    def gather(self, kind: Gather, key: str, arg: str) -> None:
        """Queue one item of a gathered command (module docstring)."""
        self._queue.put_nowait(_Op(None, (key,), (arg,), None, gather=kind))

    def publish(self, channel: str, payload: str) -> None:
        self._queue.put_nowait(_Op(None, [channel], [payload], None))

    async def flush(self) -> None:
        """Return once everything queued before this call has been sent."""
        if self._task is None or self._task.done():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Op(None, [], [], None, future))
        await future

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            await self._send(batch)

    async def _send(self, batch: list[_Op]) -> None:
        commands = [op for op in batch if op.flushed is None and op.gather is None]
        gathered: dict[Gather, tuple[list[str], list[EncodableT]]] = {}
        for op in batch:
            if op.gather is not None:
                keys, args = gathered.setdefault(op.gather, ([], []))
                keys.extend(op.keys)
                args.extend(op.args)
        commands.extend(
            _Op(kind.script, keys, [*kind.head, *args], None)
            for kind, (keys, args) in gathered.items()
        )
        results: list[object] = []
        for attempt in range(RETRIES):
            try:
                results = await self._execute(commands) if commands else []
                break
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                log.warning("cluster writer: Redis unreachable (%s), attempt %d", exc, attempt + 1)
                await asyncio.sleep(0.1 * 2**attempt)
        else:
            log.error("cluster writer: %d commands dropped, Redis unreachable", len(commands))
            metrics.writer_dropped(len(commands))
            results = [ConnectionError("Redis unreachable")] * len(commands)
        for op, result in zip(commands, results):
            if op.done is not None:
                try:
                    op.done(result)
                except Exception:
                    log.exception("cluster writer: a completion failed")
        for op in batch:
            if op.flushed is not None and not op.flushed.done():
                op.flushed.set_result(None)

    async def _execute(self, commands: list[_Op]) -> list[object]:
        """One pipeline. Scripts go by EVALSHA without asking Redis whether it knows them
        first (a round trip per batch); a script it forgot (a restart, SCRIPT FLUSH) is
        loaded and the refused commands sent again, in their order."""
        results = await self._pipeline(commands)
        missing = [i for i, r in enumerate(results) if isinstance(r, NoScriptError)]
        if missing:
            for script in {id(commands[i].script): commands[i].script for i in missing}.values():
                assert script is not None
                await self._redis.script_load(script.script)
            again = await self._pipeline([commands[i] for i in missing])
            for i, result in zip(missing, again):
                results[i] = result
        return results

    async def _pipeline(self, commands: list[_Op]) -> list[object]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for op in commands:
                if op.script is None:
                    pipe.publish(op.keys[0], str(op.args[0]))
                else:
                    pipe.evalsha(op.script.sha, len(op.keys), *op.keys, *op.args)
            return list(await pipe.execute(raise_on_error=False))

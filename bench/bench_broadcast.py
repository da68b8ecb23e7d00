"""The server's cost per action on the send path: the registry and its tables in one process,
sinks in place of sockets.

    python -m bench.bench_broadcast [tables] [seconds] [--profile] [--models]

`tables` tables of four seats play for `seconds`; every seat's sink turns each message into
the text a socket would write (as `app.api.ws.Connection` does) and a bot answers each
prompt at once through the table's inbox (the load test's bot: 胡 when offered, pass three
times in four in a claim window, else a random legal action). It prints the actions
applied per second of this process's CPU and the CPU microseconds per action (everything
the server does for one action: the rules step, redaction, prompts, conversion to JSON),
and with ``--profile`` the functions that cost most. With ``--models`` the sinks take
models only (`deliver`), the send path as it was before events and prompts were written
straight to text (`deliver_encoded`): the baseline. The database is a temporary SQLite
file: hands are settled as in production, which the per-action figure includes.
"""

from __future__ import annotations

import asyncio
import cProfile
import json
import logging
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from app.api.ws import Connection
from app.loadtest.clients import choose_answer
from app.protocol import PromptMessage, ServerMessage
from app.protocol.actions import WireAction, to_rules_action
from app.protocol.encode import Encoded
from app.store import accounts, ledger, migrate
from app.store.db import Database
from app.tables import wire as wire_module
from app.tables.messages import PlayerAction
from app.tables.registry import TableRegistry
from app.tables.timers import Timers

LONG = Timers(discard=300, claim=300, decide=300, ready=0.0)


_WIRE_ACTION: TypeAdapter[WireAction] = TypeAdapter(WireAction)


class _Socket:
    """What `Connection.pump` writes to: keeps the byte count only."""

    def __init__(self) -> None:
        self.bytes = 0
        self.frames = 0

    async def send_text(self, text: str) -> None:
        self.bytes += len(text)
        self.frames += 1

    async def close(self, code: int) -> None:
        pass


class ModelSink:
    """One seat: a real `Connection` writing to a counting socket, and a bot that answers
    each prompt at once. Given models only (the send path before `deliver_encoded`)."""

    def __init__(self, registry: TableRegistry, table_id: str, seat: int, rng: random.Random,
                 counter: dict[str, int]) -> None:
        self.socket = _Socket()
        self.connection = Connection(self.socket, 1 << 30, 60.0)  # type: ignore[arg-type]
        self.registry = registry
        self.table_id = table_id
        self.seat = seat
        self.rng = rng
        self.counter = counter
        self.writer = asyncio.create_task(self.connection.pump())

    def deliver(self, message: ServerMessage) -> None:
        self.connection.deliver(message)
        if isinstance(message, PromptMessage):
            self._look({"type": "prompt", "seq": message.seq,
                        "legal_actions": [a.model_dump() for a in message.legal_actions]})

    def close(self, code: int) -> None:
        self.connection.close(code)

    def _look(self, message: dict[str, Any]) -> None:
        if message.get("type") == "prompt":
            action = choose_answer(message["legal_actions"], self.rng)
            self.counter["actions"] += 1
            self.registry.require(self.table_id).table.submit(
                PlayerAction(
                    self.seat, to_rules_action(_WIRE_ACTION.validate_python(action), self.seat),
                    message["seq"],
                ),
            )



class EncodedSink(ModelSink):
    """The same seat given events and prompts as text, as the socket's `Connection` is."""

    def deliver_encoded(self, encoded: Encoded) -> None:
        self.connection.deliver_encoded(encoded)
        if encoded.type == "prompt":
            self._look(json.loads(encoded.text))


async def funded(db: Database, n: int, prefix: str = "b") -> list[int]:
    """`n` accounts named `prefix` and a number, each with the signup grant of 10 million."""
    ids: list[int] = []
    async with db.sessions() as session:
        async with session.begin():
            made = [await accounts.create(session, f"{prefix}{i}", "!") for i in range(n)]
        for account in made:
            await ledger.grant_signup(session, account.id, 10_000_000)
            ids.append(account.id)
    return ids


def run(tables: int, seconds: float, profile: bool, models: bool = False) -> dict[str, float]:
    """Play `tables` tables for `seconds`; the figures (see the module's docstring)."""
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        migrate.upgrade(url)
        return asyncio.run(_play(url, tables, seconds, profile, models))


class _Timed:
    """Wraps the registry's timeout choice (the greedy bot's move, sent in every turn
    prompt as ``timeout_action``) to count the CPU it takes."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.inner = wire_module._timeout_choice

    def __call__(self, *args: Any) -> Any:
        started = time.process_time()
        try:
            return self.inner(*args)
        finally:
            self.seconds += time.process_time() - started


async def _play(
    url: str, tables: int, seconds: float, profile: bool, models: bool
) -> dict[str, float]:
    if True:
        db = Database.connect(url)
        registry = TableRegistry(db.sessions)
        ids = await funded(db, 4 * tables)
        counter = {"actions": 0}
        sinks: list[ModelSink] = []
        kind = ModelSink if models else EncodedSink
        rng = random.Random(7)
        for t in range(tables):
            live = registry.create("lishui", 1, timers=LONG)
            for seat in range(4):
                account = ids[4 * t + seat]
                sink = kind(registry, live.table_id, seat, rng, counter)
                sinks.append(sink)
                registry.connections.connect(account, sink)
                await registry.sit(live.table_id, account, seat)
        await asyncio.sleep(1.0)  # the first hands are dealt
        timed = _Timed()
        wire_module._timeout_choice = timed  # type: ignore[assignment]
        profiler = cProfile.Profile() if profile else None
        start_actions = counter["actions"]
        cpu0, wall0 = time.process_time(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        await asyncio.sleep(seconds)
        if profiler is not None:
            profiler.disable()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        wire_module._timeout_choice = timed.inner
        actions = counter["actions"] - start_actions
        frames = sum(s.socket.frames for s in sinks)
        await registry.stop()
        for sink in sinks:
            sink.writer.cancel()
        await db.close()
    if profiler is not None:
        stats = pstats.Stats(profiler)
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(25)
    result = {
        "actions": actions,
        "cpu_s": cpu,
        "wall_s": wall,
        "actions_per_cpu_s": actions / cpu,
        "us_per_action": cpu / actions * 1e6,
        "frames_per_action": frames / max(1, actions),
        "bot_us_per_action": timed.seconds / actions * 1e6,
    }
    return result


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tables = int(args[0]) if args else 20
    seconds = float(args[1]) if len(args) > 1 else 10.0
    models = "--models" in sys.argv
    result = run(tables, seconds, "--profile" in sys.argv, models)
    print(
        f"{'models' if models else 'encoded'}: {tables} tables, {result['wall_s']:.1f} s: {result['actions']:.0f} actions, "
        f"{result['actions_per_cpu_s']:.0f} actions per CPU second, "
        f"{result['us_per_action']:.0f} us of CPU per action "
        f"({result['frames_per_action']:.1f} frames written per action), of which "
        f"{result['bot_us_per_action']:.0f} us computing the turn prompts' timeout_action"
    )


if __name__ == "__main__":
    main()

"""What many hands ending at once cost the other tables' turns: `python -m bench.bench_escapes
[--tables N] [--think MIN-MAX] [--per-pass K ...] [--database-url URL]`.

One process, one event loop, like a server node: `--tables` tables of four seats, each seat a
real `Connection` writing to a counting socket and a bot that answers each prompt after a
think time (the load test's bot), the hands stored as in production. After a warm-up one
seat of every other table leaves at the same moment (an escape: the hand ends and is
stored, as the load test's burst does), and the other tables play on. Each run is one
setting of `ENDINGS_PER_PASS` (`--per-pass`, 0: no limit, how endings ran until now), in
turn and in the same process, and reports:

- the other tables' turn actions: from the action handed to the table to its first event
  handed to the seat's connection (what the server's `mahjong_action_broadcast_seconds`
  times, plus the wait for the action's socket read), before the burst and in the window
  after it;
- how late a callback due every 2 ms runs in the window (how long a pass of the loop is;
  its worst includes the burst's own arrival: every leave handed to its table in one pass);
- the burst's tables: from the leave to `escaped` reaching the other seats, and to
  `hand_ended` (stored): what the lane costs the tables that ended.

PostgreSQL by default; the database named in --database-url is emptied.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import text

from app.api.ws import Connection
from app.loadtest.clients import choose_answer
from app.ops import memory
from app.protocol.actions import WireAction, to_rules_action
from app.protocol.encode import Encoded
from app.store.db import Database
from app.store.migrate import upgrade
from app.tables.messages import Leave, PlayerAction
from app.tables.registry import TableRegistry
from app.tables.timers import Timers
from bench.bench_broadcast import funded

_WIRE_ACTION: TypeAdapter[WireAction] = TypeAdapter(WireAction)
TIMERS = Timers(discard=60, claim=60, decide=60, ready=2.0)
TICK = 0.002


class _Socket:
    def __init__(self) -> None:
        self.frames = 0

    async def send_text(self, text: str) -> None:
        self.frames += 1

    async def close(self, code: int) -> None:
        pass


@dataclass
class Figures:
    turns: list[tuple[float, float]] = field(default_factory=list)  # (when, latency)
    escaped: list[float] = field(default_factory=list)
    ended: list[float] = field(default_factory=list)


class Seat:
    """One seat: a `Connection` to a counting socket and a bot thinking `think` seconds."""

    def __init__(self, registry: TableRegistry, table_id: str, seat: int, rng: random.Random,
                 think: tuple[float, float], figures: Figures) -> None:
        self.connection = Connection(_Socket(), 1 << 30, 60.0)  # type: ignore[arg-type]
        self.writer = asyncio.create_task(self.connection.pump())
        self.registry, self.table_id, self.seat = registry, table_id, seat
        self.rng, self.think, self.figures = rng, think, figures
        self.seated = True
        self.in_burst = False
        self.sent_at: float | None = None
        self.left_at: float | None = None  # a tablemate of this seat left then
        self._prompt: int | None = None

    def deliver(self, message: Any) -> None:  # only `table_state` and the like: not timed
        self.connection.deliver(message)

    def deliver_encoded(self, encoded: Encoded) -> None:
        self.connection.deliver_encoded(encoded)
        if encoded.type == "prompt":
            self._on_prompt(json.loads(encoded.text))
            return
        now = time.perf_counter()
        self._prompt = None
        if self.sent_at is not None:
            self.figures.turns.append((now, now - self.sent_at))
            self.sent_at = None
        if self.left_at is not None and '"kind":"escaped"' in encoded.text:
            self.figures.escaped.append(now - self.left_at)
        elif self.left_at is not None and '"kind":"hand_ended"' in encoded.text:
            self.figures.ended.append(now - self.left_at)
            self.left_at = None

    def close(self, code: int) -> None:
        self.connection.close(code)

    def _on_prompt(self, message: dict[str, Any]) -> None:
        if not self.seated:
            return
        seq = self._prompt = int(message["seq"])
        legal = message["legal_actions"]
        action = choose_answer(legal, self.rng)
        turn = not any(a["type"] == "pass" for a in legal)
        asyncio.get_running_loop().call_later(
            self.rng.uniform(*self.think), self._answer, seq, action, turn)

    def _answer(self, seq: int, action: dict[str, Any], turn: bool) -> None:
        if self._prompt != seq or not self.seated:
            return
        now = time.perf_counter()
        if turn and not self.in_burst:
            self.sent_at = now
        rules_action = to_rules_action(_WIRE_ACTION.validate_python(action), self.seat)
        self.registry.require(self.table_id).table.submit(PlayerAction(self.seat, rules_action, seq,
                                                           received=now))


def _q(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


async def _lateness(stop: asyncio.Event, out: list[tuple[float, float]]) -> None:
    loop = asyncio.get_running_loop()
    due = loop.time() + TICK
    while not stop.is_set():
        await asyncio.sleep(max(0.0, due - loop.time()))
        now = loop.time()
        out.append((time.perf_counter(), max(0.0, now - due)))
        due = max(due + TICK, now)


async def one_run(db: Database, ids: list[int], tables: int, think: tuple[float, float],
                  per_pass: int, warm: float, window: float) -> dict[str, float]:
    registry = TableRegistry(db.sessions, endings_per_pass=per_pass)
    figures = Figures()
    rng = random.Random(7)
    seats: list[Seat] = []
    for t in range(tables):
        live = registry.create("lishui", 1, timers=TIMERS)
        for s in range(4):
            seat = Seat(registry, live.table_id, s, rng, think, figures)
            seats.append(seat)
            registry.connections.connect(ids[4 * t + s], seat)
            await registry.sit(live.table_id, ids[4 * t + s], s)
    await asyncio.sleep(warm)
    stop = asyncio.Event()
    late: list[tuple[float, float]] = []
    ticker = asyncio.create_task(_lateness(stop, late))
    await asyncio.sleep(2.0)
    burst = [seats[4 * t:4 * t + 4] for t in range(0, tables, 2)]
    at = time.perf_counter()
    for table in burst:  # every leave arrives at once, as a burst of frames would
        leaver = table[0]
        leaver.seated = False
        for seat in table:
            seat.in_burst = True
            seat.sent_at = None
            if seat is not leaver:
                seat.left_at = at
        account = ids[seats.index(leaver)]  # a socket's leave goes to the table's inbox
        registry.require(leaver.table_id).table.submit(Leave(table.index(leaver), account))
    await asyncio.sleep(window)
    stop.set()
    await ticker
    await registry.stop()
    for seat in seats:
        seat.writer.cancel()
    before = [v for when, v in figures.turns if when < at]
    after = [v for when, v in figures.turns if at <= when < at + window]
    lag = [v for when, v in late if at <= when < at + window]
    return {
        "turns_before": len(before), "before_p50": _q(before, 0.5), "before_p99": _q(before, 0.99),
        "turns": len(after), "p50": _q(after, 0.5), "p99": _q(after, 0.99),
        "max": _q(after, 1.0), "lag_p99": _q(lag, 0.99), "lag_max": _q(lag, 1.0),
        "escaped_p50": _q(figures.escaped, 0.5), "escaped_max": _q(figures.escaped, 1.0),
        "ended_p50": _q(figures.ended, 0.5), "ended_max": _q(figures.ended, 1.0),
        "ended": len(figures.ended),
    }


async def main(url: str, tables: int, think: tuple[float, float], per_pass: list[int],
               warm: float, window: float) -> None:
    logging.disable(logging.CRITICAL)
    memory.tune()  # the collector as a server process sets it (python -m app)
    db = Database.connect(url)
    try:
        async with db.sessions() as s, s.begin():
            await s.execute(text("DROP SCHEMA public CASCADE"))
            await s.execute(text("CREATE SCHEMA public"))
    finally:
        await db.close()
    await asyncio.to_thread(upgrade, url)
    db = Database.connect(url)
    try:
        print(f"{tables} tables, think {think[0]:.1f}-{think[1]:.1f} s, "
              f"{(tables + 1) // 2} escapes at once\n", flush=True)
        print("| ENDINGS_PER_PASS | other tables' turns before: p50 / p99 ms "
              "| in the window: p50 / p99 / max ms | loop late p99 / max ms "
              "| escaped shown p50 / max ms | hand_ended shown p50 / max ms (seats) |")
        print("|---:|---:|---:|---:|---:|---:|")
        results = {}
        for k in per_pass:
            ids = await funded(db, 4 * tables, f"e{k}x")
            r = results[k] = await one_run(db, ids, tables, think, k, warm, window)
            print(f"| {k or 'no limit'} | {r['before_p50']:.1f} / {r['before_p99']:.1f} "
                  f"| {r['p50']:.1f} / {r['p99']:.1f} / {r['max']:.0f} "
                  f"| {r['lag_p99']:.1f} / {r['lag_max']:.0f} "
                  f"| {r['escaped_p50']:.0f} / {r['escaped_max']:.0f} "
                  f"| {r['ended_p50']:.0f} / {r['ended_max']:.0f} ({r['ended']:.0f}) |",
                  flush=True)
        if 0 in results and len(results) > 1:
            base = results[0]
            for k, r in results.items():
                if k:
                    print(f"\nper pass {k} against no limit: the other tables' p99 in the window "
                          f"{r['p99'] / max(base['p99'], 1e-9):.2f}x, the loop's worst pass "
                          f"{r['lag_max'] / max(base['lag_max'], 1e-9):.2f}x")
    finally:
        await db.close()


def _range(value: str) -> tuple[float, float]:
    low, _, high = value.partition("-")
    return float(low), float(high or low)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.bench_escapes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url",
                        default="postgresql://postgres@127.0.0.1:5432/bench_escapes")
    parser.add_argument("--tables", type=int, default=600)
    parser.add_argument("--think", type=_range, default=(1.0, 4.0), help="seconds, MIN-MAX")
    parser.add_argument("--per-pass", type=int, nargs="+", default=[0, 2])
    parser.add_argument("--warm", type=float, default=8.0)
    parser.add_argument("--window", type=float, default=10.0)
    args = parser.parse_args()
    asyncio.run(main(args.database_url, args.tables, args.think, args.per_pass, args.warm,
                     args.window))

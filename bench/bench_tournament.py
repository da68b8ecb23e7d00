"""A tournament's rounds at scale on one machine: `python -m bench.bench_tournament
[--seats 256] [--baseline 16] [--rounds 2] [--database-url URL]`.

One process, one event loop, like a server node: the registry, the rooms and the
tournaments' director wired as app/main.py wires them (no HTTP). An event of `--seats` seats
where a quarter are people (accounts with a socket that puts every table they are seated
at on 托管, as the issue's test does) and house bots fill the rest; `--rounds` Swiss rounds
of one hand, no final table, bots at instant pace, the director looking every 50 ms. For
each round it reports:

- seating: from the round's draw (the director's transaction) to every table of the round
  dealt its first hand (its room opened, its four entrants seated wherever they are, the
  house bots funded);
- standings: from the round's last table done (its results recorded) to every person told
  where the event stands (the `tournament` message in their socket); and how long reading
  the standings of that many entrants takes (`view.shown`, also what
  GET /tournaments/{id}/standings answers).

The baseline event (`--baseline` seats) runs first in the same process; the ratios compare
the two. SQLite in a temporary directory by default; a --database-url is emptied.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from app.protocol import ServerMessage
from app.protocol.tournaments import TournamentMessage
from app.rooms.service import Rooms
from app.rules.wall import commitment
from app.store import house, ledger
from app.store.db import Database
from app.store.migrate import upgrade
from app.store.models import Account, Tournament
from app.tables.messages import Autoplay
from app.tables.registry import TableRegistry
from app.tables.timers import BotPace
from app.tournaments import events, rounds, view
from app.tournaments.director import Tournaments
from bench.bench_broadcast import funded

POLL = 0.05  # the director's look, seconds
WATCH = 0.002  # how often the bench looks at the tables


@dataclass
class Figures:
    drawn: list[float] = field(default_factory=list)  # each round's draw
    dealt: list[float] = field(default_factory=list)  # each round's tables all dealt
    last_done: dict[int, float] = field(default_factory=dict)  # round -> its last table done
    told: dict[int, list[float]] = field(default_factory=dict)  # round drawn -> each told
    shown: list[float] = field(default_factory=list)  # seconds per view.shown
    finished: bool = False


class Person:
    """A person's socket: every table they are seated at goes on 托管; the `tournament`
    messages are timed."""

    def __init__(self, registry: TableRegistry, figures: Figures) -> None:
        self.registry, self.figures = registry, figures

    def deliver(self, message: ServerMessage) -> None:
        if message.type == "seated":
            live = self.registry.get(message.table_id)
            if live is not None:
                live.table.submit(Autoplay(message.seat, True))
        elif isinstance(message, TournamentMessage):
            self.figures.told.setdefault(message.tournament.round, []).append(time.perf_counter())

    def close(self, code: int) -> None:
        pass


def _timed(module: Any, name: str, after: Callable[[Any, tuple[Any, ...]], None]) -> None:
    original = getattr(module, name)

    async def timed(*args: Any) -> Any:
        out = await original(*args)
        after(out, args)
        return out

    setattr(module, name, timed)


async def _event(db: Database, seats: int, rounds_: int, people: list[int]) -> int:
    async with db.sessions() as s, s.begin():
        boss = Account(username=f"op{secrets.token_hex(4)}", password_hash="!", role="admin",
                       balance=0)
        s.add(boss)
        await s.flush()
        boss_id = boss.id
    seed = secrets.token_bytes(32)
    start = datetime.now(UTC) + timedelta(seconds=2)
    async with db.sessions() as s:
        made = await events.create(s, Tournament(
            name="bench", variant="lishui", options="{}", stake=1,
            timers=json.dumps({"discard": 30, "claim": 10, "decide": 10, "ready": 1}),
            fee=100, rake_bp=0, guarantee=0, seats=seats, rounds=rounds_,
            length_unit="hands", length=1, final_table=False, prize_shares="[50, 30, 20]",
            starts_at=start, status="open", seed=seed.hex(), seed_revealed=False,
            commitment=commitment(seed), bot_level="standard", created_by=boss_id))
        for account in people:
            await events.register(s, made.id, account, datetime.now(UTC))
    return made.id


async def run_event(db: Database, seats: int, rounds_: int, figures: Figures) -> None:
    """Play one event, timed into `figures`."""
    registry = TableRegistry(db.sessions, bot_pace=BotPace.from_ms(0, 0))
    rooms = Rooms(registry, db.sessions)
    director = Tournaments(registry, rooms, db.sessions, node_id="bench",
                           bot_pool_size=10 * seats, poll=POLL)
    people = await funded(db, seats // 4, prefix=f"p{secrets.token_hex(3)}-")
    for account in people:
        registry.connections.connect(account, Person(registry, figures))
    event = await _event(db, seats, rounds_, people)
    director.start()
    try:
        dealt: set[str] = set()  # the tables seen dealt (a table closes after its round)
        expected = seats // 4
        while not figures.finished:
            dealt.update(live.table_id for live in registry.all()
                         if live.tournament == event and live.table.hand_id)
            if len(dealt) == expected * (len(figures.dealt) + 1):
                figures.dealt.append(time.perf_counter())
            await asyncio.sleep(WATCH)
    finally:
        await director.stop()
        await registry.stop()
        await rooms.stop()


def _instrument(figures_of: Callable[[], Figures]) -> None:
    def drew(out: Any, args: tuple[Any, ...]) -> None:
        if out is True or getattr(out, "drawn", False):
            figures_of().drawn.append(time.perf_counter())

    def marked(out: Any, args: tuple[Any, ...]) -> None:
        _, _, round_number, _, status, *_ = args
        if out and status == "done":
            figures_of().last_done[round_number] = time.perf_counter()

    _timed(rounds, "begin", drew)
    _timed(rounds, "advance", drew)
    _timed(rounds, "mark", marked)
    _timed(rounds, "finish", lambda out, args: setattr(figures_of(), "finished", True))
    original = view.shown

    async def shown(*args: Any) -> Any:
        started = time.perf_counter()
        out = await original(*args)
        figures_of().shown.append(time.perf_counter() - started)
        return out

    view.shown = shown  # type: ignore[assignment]


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:8.1f} ms"


def report(name: str, figures: Figures, rounds_: int) -> dict[str, float]:
    seating = [d - s for s, d in zip(figures.drawn, figures.dealt, strict=False)]
    telling = [max(figures.told.get(r + 1, [0.0])) - figures.last_done[r]
               for r in range(1, rounds_) if r in figures.last_done]
    print(f"{name}:")
    for r, seconds in enumerate(seating, start=1):
        print(f"  round {r}: draw -> every table dealt {_ms(seconds)}")
    for r, seconds in enumerate(telling, start=1):
        print(f"  round {r} -> {r + 1}: last table done -> every person told {_ms(seconds)}")
    print(f"  standings read (view.shown): median {_ms(statistics.median(figures.shown))}, "
          f"max {_ms(max(figures.shown))} over {len(figures.shown)}")
    return {"seating": max(seating), "telling": max(telling) if telling else 0.0,
            "shown": statistics.median(figures.shown)}


async def main_async(seats: int, baseline: int, rounds_: int, url: str | None) -> None:
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        url = url or f"sqlite:///{tmp}/bench.db"
        if not url.startswith("sqlite"):
            db = Database.connect(url)
            async with db.engine.begin() as conn:
                await conn.execute(text("DROP SCHEMA public CASCADE"))
                await conn.execute(text("CREATE SCHEMA public"))
            await db.close()
        await asyncio.to_thread(upgrade, url)
        db = Database.connect(url)
        try:
            async with db.sessions() as s:
                async with s.begin():
                    house_id = await house.account_id(s)
                await ledger.adjust(s, house_id, 10**9, "the bench's float", admin_id=house_id)
            current: list[Figures] = []
            _instrument(lambda: current[-1])
            results = {}
            for name, n in (("baseline", baseline), ("event", seats)):
                current.append(Figures())
                await run_event(db, n, rounds_, current[-1])
                results[name] = report(f"{name}: {n} seats, {n // 4} people, {rounds_} rounds",
                                       current[-1], rounds_)
            print("ratios (event / baseline):")
            for key, label in (("seating", "draw -> every table dealt, slowest round"),
                               ("telling", "last table done -> every person told"),
                               ("shown", "standings read, median")):
                base = results["baseline"][key]
                ratio = results["event"][key] / base if base else float("nan")
                print(f"  {label}: {ratio:5.1f}x")
        finally:
            await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=256)
    parser.add_argument("--baseline", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    asyncio.run(main_async(args.seats, args.baseline, args.rounds, args.database_url))


if __name__ == "__main__":
    main()

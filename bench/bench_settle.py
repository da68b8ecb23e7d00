"""What a burst of hand settlements costs the other tables: `python -m bench.bench_settle
[--database-url URL] [--hands N] [--burst N]`.

One process, one event loop, like a server node: a "table" task stands for the other tables'
play (a callback due every 2 ms; how late it runs is the delay an action would see), while
a burst of real hands (greedy self-play of 丽水, four funded accounts each) is stored.
Runs, in turn and in the same process: hands stored one after the other (the CPU one store
costs), a burst all at once with no limit (how the registry stored before issue 18), the
same burst a hand per transaction through a gate of 16 (a semaphore: how it stored until
the batches), and through the registry's `Settler` as configured now (`STORE_BATCH` hands
a batch, `STORE_CONCURRENCY` batches at once, `results.store_hands`).
Each burst reports the delay of the other tables' callbacks (p50 / p99 / max) and how long
the burst took to be stored (what the ending tables wait), and the last line the batches
against the gate of 16. PostgreSQL by default (the DATABASE_URL of `.ci/run`'s machine); a
database named in --database-url is emptied.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

from sqlalchemy import func, select

from app.rules.context import TableContext
from app.rules.selfplay import bot_factory, play_hand
from app.rules.variants import get_ruleset
from app.settings import Settings
from app.store import ledger
from app.store.db import Database
from app.store.migrate import upgrade
from app.store.models import Account, LedgerEntry
from app.tables.settlement.penalties import DisconnectPolicy
from app.tables.settlement.record import HandRecordData
from app.tables.settlement.results import Job, Stored, store_hand, store_hands
from app.tables.settlement.settler import Settler

TICK = 0.002  # the other tables' "action" every 2 ms
LISHUI = get_ruleset("lishui")


def _records(n: int, seats: list[list[int]], tag: str) -> list[HandRecordData]:
    out = []
    for i in range(n):
        run = play_hand(LISHUI, 1000 + i, TableContext(), bot_factory("greedy"), check=False)
        out.append(HandRecordData(
            table_id=f"bench-{tag}-{i}", hand_id=f"bench-{tag}-{i}", variant="lishui",
            seed=(1000 + i).to_bytes(32, "big"), ctx=run.state.ctx, seats=tuple(seats[i]),
            actions=run.actions, events=run.events, settlement=run.state.settlement,
            state=run.state,
        ))
    return out


async def _accounts(db: Database, n: int) -> list[int]:
    async with db.sessions() as s, s.begin():
        base = (await s.execute(select(func.count()).select_from(Account))).scalar_one()
        made = [Account(username=f"b{base + i}", password_hash="!", balance=0) for i in range(n)]
        s.add_all(made)
        await s.flush()
        ids = [a.id for a in made]
    async with db.sessions() as s:
        for account_id in ids:
            await ledger.grant_signup(s, account_id, 100_000)
    return ids


async def _lateness(stop: asyncio.Event, out: list[float]) -> None:
    """The other tables: a callback due every TICK; how late each one ran."""
    loop = asyncio.get_running_loop()
    due = loop.time() + TICK
    while not stop.is_set():
        await asyncio.sleep(max(0.0, due - loop.time()))
        now = loop.time()
        out.append(max(0.0, now - due))
        due = max(due + TICK, now)


def _q(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


async def _burst(
    name: str, records: list[HandRecordData], store: Callable[[HandRecordData], Awaitable[None]]
) -> tuple[float, float]:
    stop = asyncio.Event()
    late: list[float] = []
    ticker = asyncio.create_task(_lateness(stop, late))
    await asyncio.sleep(0.2)
    late.clear()
    cpu, started = time.process_time(), time.perf_counter()
    stored_at: list[float] = []

    async def one(record: HandRecordData) -> None:
        await store(record)
        stored_at.append(time.perf_counter() - started)

    await asyncio.gather(*(one(r) for r in records))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    stop.set()
    await ticker
    print(
        f"| {name} | {len(records)} | {wall * 1000:,.0f} | {cpu / len(records) * 1000:.1f} | "
        f"{_q(stored_at, 0.5):,.0f} / {_q(stored_at, 1.0):,.0f} | "
        f"{_q(late, 0.5):.1f} / {_q(late, 0.99):.1f} / {_q(late, 1.0):.1f} |",
        flush=True,
    )
    return cpu / len(records), _q(late, 0.99)


GATE = 16  # hands stored at once, a transaction each, before the batches


async def main(url: str, hands: int, burst: int, settings: Settings) -> None:
    await asyncio.to_thread(upgrade, url)
    db = Database.connect(url)
    policy = DisconnectPolicy()
    ended = datetime.now(UTC)
    try:
        total = hands + 3 * burst
        print(f"making {4 * total} accounts and {total} hands ...", flush=True)
        ids = await _accounts(db, 4 * total)
        seats = [ids[4 * i:4 * i + 4] for i in range(total)]
        tag = os.urandom(3).hex()
        records = _records(total, seats, tag)

        async def plain(record: HandRecordData) -> None:
            await store_hand(db.sessions, record, 10, ended, policy)

        gate = asyncio.Semaphore(GATE)

        async def gated(record: HandRecordData) -> None:
            async with gate:
                await plain(record)

        async def store_many(jobs: Sequence[Job]) -> list[Stored | None | Exception]:
            return [*await store_hands(db.sessions, jobs, policy)]

        settler = Settler(store_many, batch=settings.store_batch,
                          runners=settings.store_concurrency)

        async def batched(record: HandRecordData) -> None:
            await settler.store(Job(record, 10, ended))

        print("\n| run | hands | wall ms | CPU ms / hand | stored p50 / last ms "
              "| other tables late p50 / p99 / max ms |")
        print("|---|---:|---:|---:|---:|---:|")
        one_by_one = records[:hands]
        cpu, started = time.process_time(), time.perf_counter()
        for record in one_by_one:
            await plain(record)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"| one after the other | {hands} | {wall * 1000:,.0f} | "
              f"{cpu / hands * 1000:.1f} | - | - |", flush=True)
        bursts = [records[hands + i * burst:hands + (i + 1) * burst] for i in range(3)]
        await _burst("burst, no limit", bursts[0], plain)
        before = await _burst(f"burst, a hand at a time, gate of {GATE}", bursts[1], gated)
        now = await _burst(
            f"burst, batches of {settings.store_batch}, {settings.store_concurrency} at once",
            bursts[2], batched,
        )
        print(f"\nbatches / gate of {GATE}: CPU per hand {now[0] / before[0]:.2f}x, "
              f"other tables' p99 {now[1] / before[1]:.2f}x")
        async with db.sessions() as s:
            sums = dict((await s.execute(
                select(LedgerEntry.account_id, func.sum(LedgerEntry.delta))
                .group_by(LedgerEntry.account_id))).all())
            balances = dict((await s.execute(select(Account.id, Account.balance))).all())
        assert all(balances[a] == sums.get(a, 0) for a in ids), "a balance left its ledger"
    finally:
        await db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.bench_settle", description=__doc__)
    parser.add_argument("--database-url",
                        default="postgresql://postgres@127.0.0.1:5432/bench_settle")
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--burst", type=int, default=300)
    args = parser.parse_args()
    asyncio.run(main(args.database_url, args.hands, args.burst, Settings()))

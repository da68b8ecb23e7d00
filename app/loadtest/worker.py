"""A load client process: the bots of a share of the tables (then as many echo clients),
driven step by step by the run's coordinator (app/loadtest/run.py) over a pipe.

One Python process drives a few thousand sockets before its own event loop, not the server,
sets the latency it sees; the coordinator therefore spreads the tables over several of
these (`--client-processes`), each on its own event loop, and adds up what they count.

Steps (the coordinator's `Command`, each answered with a `Done` of what it found):
``tables`` (create each table), ``sockets`` (open every bot's socket, on the path that names
its table unless told otherwise, and say hello), ``seats`` (sit three bots of each table, or
all of them when house bots take some seats), ``fourth`` (sit the fourth, or have the
table's first bot call the house's bots into the empty seats: the tables start),
``measure`` (count from
a wall-clock moment for a number of seconds, with a `Tick` of the counts every second,
and, if asked, a burst: at a given moment one bot of a share of the tables leaves, an
escape that ends the hand (a table between hands when the moment comes is left as soon as
its next hand is dealt, within `HAND_WAIT`), and sits again 5-10 seconds later), ``leave`` (every bot gets up
and closes), ``echo_open`` (as many echo clients, connected to the echo server), ``echo``
(they echo for a number of seconds, with ticks) and ``stop``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, TypeVar

import httpx
from websockets.exceptions import InvalidStatus

from app.loadtest.clients import EchoClient, GameBot
from app.loadtest.stats import Meter
from app.ops import memory

SETUP_CONCURRENCY = 16  # tables being set up at once, per process
KEEPALIVE_EXPIRY = 2.0  # seconds an idle pooled connection is kept (the server: 5)
BUSY_PATIENCE = 60.0  # seconds a POST answered 503 is tried again for, after each Retry-After
LAG_PERIOD = 0.01  # seconds between the looks at how late the event loop is
HAND_WAIT = 3.0  # seconds a burst's leave waits for its table to be in a hand (an escape)
# fill-bots refusals that waiting does not cure in a load run: the server was not given
# the bots (BOT_POOL_SIZE, HOUSE_FLOAT; bench/load.md)
FILL_FINAL = frozenset({"house_funds_low", "no_bots_free"})
# ... and how often a fill is called again when a bot it chose was seated meanwhile by a fill
# on another server process (its seat stays empty, or the remote sit is refused
# seated_elsewhere: calling the bots again fills it)
FILL_TRIES = 5
FILL_BACKOFF = (0.1, 0.5)  # seconds before the next call, drawn, times the calls made

T = TypeVar("T")


@dataclass(frozen=True)
class Share:
    """What one client process plays: tables `first`, `first + 1`, ... of the run."""

    index: int
    url: str  # the server's http base URL
    first: int  # the run-wide number of its first table
    tokens: list[list[str]]  # per table, the access tokens of its load clients' seats
    variant: str
    stake: int
    think: tuple[float, float]  # seconds, uniform; (0, 0): at once
    seed: int
    players: int = 4  # load clients per table (seats 0, 1, ...); the house's bots take the rest
    bot_level: str = "standard"  # who plays the house bots' seats (POST /tables bot_level)


@dataclass(frozen=True)
class Command:
    step: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Done:
    step: str
    failures: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Tick:
    """The counts of one second of a phase (deltas), from one process."""

    second: int
    sent: int
    received: int
    hands: int
    open: int
    dropped: int
    errors: int
    latencies: list[float]  # every action's, seconds
    steady: list[float]  # those of tables outside the burst
    lag: float  # the longest this process's event loop was late in the second (seconds)


async def bounded(limit: int, jobs: Sequence[Callable[[], Awaitable[T]]]) -> list[T | BaseException]:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await job()

    return await asyncio.gather(*(one(job) for job in jobs), return_exceptions=True)


async def post(
    http: httpx.AsyncClient, path: str, what: str, final: frozenset[str] = frozenset(),
    **kwargs: Any,
) -> dict[str, object]:
    """POST as a client would: a 503 (a node shedding new work, a table's node slow to
    answer) is tried again after its Retry-After, for up to `BUSY_PATIENCE` seconds,
    unless its error code is one of `final`."""
    give_up = time.monotonic() + BUSY_PATIENCE
    while True:
        response = await http.post(path, **kwargs)
        if response.status_code != 503 or time.monotonic() > give_up:
            break
        if _error_code(response) in final:
            break
        await asyncio.sleep(float(response.headers.get("retry-after", "1")))
    if response.status_code >= 400:
        raise RuntimeError(f"{what}: HTTP {response.status_code} {response.text[:300]}")
    body: dict[str, object] = response.json()
    return body


def _error_code(response: httpx.Response) -> str | None:
    """The stable code of an error answer (`{"error": {"code": ...}}`), if it has one."""
    try:
        return str(response.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return None


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Client:
    """The state of one client process."""

    def __init__(self, share: Share, conn: Connection) -> None:
        self.share, self.conn = share, conn
        self.meter = Meter()
        rng = random.Random(share.seed)
        self.players = n = share.players  # load clients per table: bots n * t ... n * t + n - 1
        # one bot per table counts its hands: seat 1, which no burst takes away (seat 0 when
        # it is the table's only load client)
        counter = 1 if n > 1 else 0
        self.bots = [
            GameBot(self.meter, random.Random(rng.random()), counts_hands=i % n == counter,
                    think=share.think)
            for i in range(n * len(share.tokens))
        ]
        self.tables: dict[int, str] = {}  # local table number -> table id
        self.echoes: list[EchoClient] = []
        self.lag = 0.0
        self.http = httpx.AsyncClient(
            base_url=share.url, timeout=60,
            # a kept-alive connection is let go well before the server's keep-alive (5 s)
            # closes it: a request sent on it as the server closes it fails with a
            # ReadError, which a POST retried after a 503's Retry-After of 5 s met
            limits=httpx.Limits(max_connections=SETUP_CONCURRENCY * 2,
                                keepalive_expiry=KEEPALIVE_EXPIRY),
        )
        # requests in flight at once, the rest wait here: httpx's pool looks at every
        # queued request for every one it assigns, so the 625 re-sits of a burst queued in
        # it took 70% of this process's CPU and stalled its loop for seconds
        self.rest = asyncio.Semaphore(SETUP_CONCURRENCY * 2)

    def token(self, bot: int) -> str:
        return self.share.tokens[bot // self.players][bot % self.players]

    def table_bots(self, t: int) -> list[GameBot]:
        """The load clients of local table `t`, by seat."""
        return self.bots[self.players * t:self.players * (t + 1)]

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            command: Command = await loop.run_in_executor(None, self.conn.recv)
            if command.step == "stop":
                break
            handler = getattr(self, f"step_{command.step}")
            done: Done = await handler(**command.args)
            self.conn.send(done)
        await self.http.aclose()

    # --- the steps ----------------------------------------------------------------------

    async def step_sockets(self, ws_url: str, table_path: bool) -> Done:
        async def join(i: int) -> None:
            bot = self.bots[i]
            path = f"/ws/{bot.table_id}" if table_path else "/ws"
            try:
                await bot.join(ws_url + path, self.token(i))
            except InvalidStatus as refused:
                raise RuntimeError(f"socket refused: HTTP {refused.response.status_code}") from None

        results = await bounded(SETUP_CONCURRENCY * 4, [
            partial(join, i) for i in range(len(self.bots))
        ])
        return Done("sockets", _failures(results), {"open": self.meter.open})

    async def step_tables(self) -> Done:
        async def open_table(t: int) -> None:
            created = await post(
                self.http, "/tables", "create a table",
                json={"variant": self.share.variant, "stake": self.share.stake,
                      "timers": {"ready": 1}, "bot_level": self.share.bot_level},
                headers=bearer(self.token(self.players * t)),
            )
            table_id = str(created["id"])
            for seat, bot in enumerate(self.table_bots(t)):
                bot.table_id, bot.seat = table_id, seat
            self.tables[t] = table_id

        results = await bounded(SETUP_CONCURRENCY, [
            partial(open_table, t) for t in range(len(self.share.tokens))
        ])
        return Done("tables", _failures(results), {"tables": len(self.tables)})

    async def step_seats(self) -> Done:
        """Three load clients of each table sit (all of them when fewer: the house's bots
        fill the rest in the next step)."""
        sitting = min(self.players, 3)

        async def some(t: int) -> None:
            if not all(b.ws is not None for b in self.table_bots(t)):
                raise RuntimeError("a socket of the table is not open")
            for seat in range(sitting):
                await self._sit(self.players * t + seat)

        results = await bounded(SETUP_CONCURRENCY, [partial(some, t) for t in sorted(self.tables)])
        return Done("seats", _failures(results), {"seated": sitting * len(results)})

    async def step_fourth(self) -> Done:
        """The last seats fill and the tables start: the fourth load client sits, or the
        table's first one calls the house's bots into the empty seats."""
        if self.players == 4:
            last = [partial(self._sit, 4 * t + 3) for t in sorted(self.tables)]
        else:
            last = [partial(self._fill_bots, self.players * t) for t in sorted(self.tables)]
        results = await bounded(SETUP_CONCURRENCY, last)
        return Done("fourth", _failures(results), {"playing": len(results) - len(_failures(results))})

    async def _fill_bots(self, i: int) -> None:
        """Load client `i` (seated) calls the house's bots into its table's empty seats,
        again (up to `FILL_TRIES` times) while a bot it was given is taken meanwhile."""
        bot = self.bots[i]
        taken: object = None
        for attempt in range(1, FILL_TRIES + 1):
            try:
                async with self.rest:
                    table = await post(self.http, f"/tables/{bot.table_id}/fill-bots",
                                       "fill-bots", FILL_FINAL, headers=bearer(self.token(i)))
                taken = table.get("seats_taken")
                if taken == 4:
                    return
            except RuntimeError as refused:
                if '"seated_elsewhere"' not in str(refused) or attempt == FILL_TRIES:
                    raise
            await asyncio.sleep(random.uniform(*FILL_BACKOFF) * attempt)  # the other fill goes on
        raise RuntimeError(f"fill-bots: {taken} of 4 seats taken at table {bot.table_id} "
                           f"after {FILL_TRIES} calls")

    async def _sit(self, i: int) -> None:
        bot = self.bots[i]
        bot.seated = True  # before the answer: the table may prompt us at once
        try:
            async with self.rest:
                await post(self.http, f"/tables/{bot.table_id}/sit", "sit",
                           json={"seat": bot.seat}, headers=bearer(self.token(i)))
        except RuntimeError as refused:
            # a retry after a 503 (the table's node answered too late) finds the seat taken
            # by the first try: seated, as a client would conclude
            if "seated_elsewhere" in str(refused) and f'"{bot.table_id}"' in str(refused):
                return
            if '"already_seated"' in str(refused):  # this table: the first try sat
                return
            bot.seated = False
            raise

    async def step_measure(
        self, start: float, seconds: float, burst_at: float | None = None,
        burst_every: int = 2, back_after: float = 5.0,
    ) -> Done:
        """Count from wall-clock `start` for `seconds`. With `burst_at` (wall clock): the
        run-wide tables whose number is a multiple of `burst_every` have their seat 0 (a
        load client, never a house bot) leave then (an escape), and sit again `back_after`
        seconds later."""
        burst = [t for t in self.tables if (self.share.first + t) % burst_every == 0]
        if burst_at is not None:
            for t in burst:
                for bot in self.table_bots(t):
                    bot.in_burst = True
        await _until(start)
        self.meter.restart()
        for bot in self.bots:
            bot.hands = 0
        failures: list[str] = []
        tasks = []
        if burst_at is not None:
            tasks.append(asyncio.create_task(self._burst(burst, burst_at, back_after, failures)))
        await self._ticks(start, seconds)
        await asyncio.gather(*tasks)
        m = self.meter
        return Done("measure", failures, {
            "errors": dict(m.errors), "late": dict(m.late), "sizes": m.sizes,
            "burst_tables": len(burst) if burst_at is not None else 0,
            "idle_tables": sum(not any(b.hands for b in self.table_bots(t)) for t in self.tables),
        })

    async def _burst(self, burst: list[int], at: float, back_after: float,
                     failures: list[str]) -> None:
        await _until(at)

        async def escape(bot: GameBot) -> None:  # a table between hands deals first
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(bot.in_hand.wait(), HAND_WAIT)
            if bot.counts_hands and bot.in_hand.is_set():  # the table's only load client:
                self.meter.hands += 1  # its escape ends a hand it will not see end
                bot.hands += 1
            await bot.leave()

        await asyncio.gather(*(escape(self.bots[self.players * t]) for t in burst))
        rng = random.Random(self.share.seed + 2)

        async def back(t: int) -> None:  # people come back one by one, not all at once
            await _until(at + back_after * rng.uniform(1, 2))
            await self._sit(self.players * t)

        failures += _failures(await asyncio.gather(*(back(t) for t in burst),
                                                   return_exceptions=True))

    async def _lag(self) -> None:
        """How late this process's event loop runs a 10 ms timer: a client that is itself
        behind would add its own delay to every latency it measures."""
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + LAG_PERIOD
            await asyncio.sleep(LAG_PERIOD)
            self.lag = max(self.lag, loop.time() - due)

    async def _ticks(self, start: float, seconds: float) -> None:
        lag = asyncio.create_task(self._lag())
        try:
            await self._tick_every_second(start, seconds)
        finally:
            lag.cancel()

    async def _tick_every_second(self, start: float, seconds: float) -> None:
        m = self.meter
        last = [0, 0, 0, 0, 0]
        taken = [0, 0]
        for second in range(int(seconds)):
            self.lag = 0.0
            await _until(start + second + 1)
            counts = [m.sent, m.received, m.hands, m.dropped, sum(m.errors.values())]
            deltas = [a - b for a, b in zip(counts, last, strict=True)]
            last = counts
            self.conn.send(Tick(
                second, deltas[0], deltas[1], deltas[2], m.open, deltas[3], deltas[4],
                m.latencies[taken[0]:], m.steady[taken[1]:], self.lag,
            ))
            taken = [len(m.latencies), len(m.steady)]

    async def step_leave(self) -> Done:
        seated = [b for b in self.bots if b.table_id]
        await asyncio.gather(*(b.leave() for b in seated), return_exceptions=True)
        await asyncio.gather(*(b.close() for b in self.bots), return_exceptions=True)
        return Done("leave")

    async def step_echo_open(self, url: str, sizes: list[int]) -> Done:
        """As many echo clients as this process had bots, each sending messages of the
        sizes in `sizes` (drawn from the game's own)."""
        self.meter = Meter()
        rng = random.Random(self.share.seed + 1)
        self.echoes = [EchoClient(self.meter, random.Random(rng.random()), sizes)
                       for _ in self.bots]
        opened = await bounded(SETUP_CONCURRENCY * 4, [partial(e.open, url) for e in self.echoes])
        return Done("echo_open", _failures(opened), {"open": self.meter.open})

    async def step_echo(self, start: float, seconds: float) -> Done:
        live = [e for e in self.echoes if e.ws is not None]
        await _until(start)
        self.meter.restart()
        runs = asyncio.gather(*(e.run(start + int(seconds)) for e in live),
                              return_exceptions=True)
        await self._ticks(start, seconds)
        await runs
        await asyncio.gather(*(e.close() for e in self.echoes), return_exceptions=True)
        return Done("echo", [], {"errors": dict(self.meter.errors)})


async def _until(wall: float) -> None:
    delay = wall - time.time()
    if delay > 0:
        await asyncio.sleep(delay)


def _failures(results: Sequence[object]) -> list[str]:
    return [repr(r) for r in results if isinstance(r, BaseException)]


async def _serve(share: Share, conn: Connection) -> None:
    # the collector on a clock, as the server's (app/ops/memory.py)
    async with memory.clock_running(memory.DEFAULT_EVERY, memory.DEFAULT_FULL_EVERY):
        await Client(share, conn).serve()


def main(share: Share, conn: Connection) -> None:
    """The process's entry point (multiprocessing, spawned)."""
    memory.tune()  # the clients' own collector pauses would show as latency, like the server's
    try:
        import uvloop

        uvloop.run(_serve(share, conn))
    except ImportError:
        asyncio.run(_serve(share, conn))
    finally:
        conn.close()

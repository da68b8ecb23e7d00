"""What a load run counts, and the report it prints."""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel

SIZE_SAMPLE = 20_000  # message sizes kept (a reservoir) to size the echo run's messages


def percentile(values: list[float], q: float) -> float | None:
    """The `q` quantile (0..1) by the nearest-rank method; None with no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Meter:
    """Counters shared by every client of one phase (one event loop: no locks)."""

    sent: int = 0
    received: int = 0
    hands: int = 0
    open: int = 0  # connections open now
    opened: int = 0
    dropped: int = 0  # closed by the server or the network while the run went on
    latencies: list[float] = field(default_factory=list)  # seconds
    steady: list[float] = field(default_factory=list)  # those of tables outside a burst
    errors: Counter[str] = field(default_factory=Counter)
    late: Counter[str] = field(default_factory=Counter)
    sizes: list[int] = field(default_factory=list)
    _seen_sizes: int = 0
    _rng: random.Random = field(default_factory=lambda: random.Random(7))

    def size(self, n: int) -> None:
        """Keep a uniform sample of message sizes (reservoir sampling)."""
        self._seen_sizes += 1
        if len(self.sizes) < SIZE_SAMPLE:
            self.sizes.append(n)
            return
        slot = self._rng.randrange(self._seen_sizes)
        if slot < SIZE_SAMPLE:
            self.sizes[slot] = n

    def restart(self) -> None:
        """Start counting afresh (after the set-up): connections stay as they are."""
        self.sent = self.received = self.hands = self.dropped = 0
        self.latencies = []
        self.steady = []
        self.errors = Counter()
        self.late = Counter()


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 2)


class PhaseReport(BaseModel):
    connections: int  # connections open at the end of the measured window
    dropped: int
    seconds: float
    messages: int  # sent plus received by the clients
    messages_per_s: float
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    latency_samples: int


class ServerLatency(BaseModel):
    """A server histogram over a window (from /metrics, every process added up)."""

    count: int
    p50_ms: float | None
    p99_ms: float | None


class BotDecisions(BaseModel):
    """How long the house bots of one level took to choose over the measured window
    (`mahjong_bot_decision_seconds`, every server process added up): to the microsecond."""

    count: int
    p50_ms: float | None
    p99_ms: float | None


class Latency(BaseModel):
    """Client-side action-to-broadcast latency over some actions."""

    samples: int
    p50_ms: float | None
    p99_ms: float | None


class BatchReport(BaseModel):
    """The settler's batches over a window: how many, their sizes (hands), their wait for
    the event loop to have room and their store."""

    batches: int
    hands_p50: float | None
    hands_p99: float | None
    room: ServerLatency
    store: ServerLatency


class BurstReport(BaseModel):
    """A settlement burst: one seat of `tables` tables left at `at_second` (an escape each,
    settled at once); the other tables' actions over the window and outside it."""

    at_second: int
    window_seconds: int
    tables: int
    others_client: Latency  # the other tables' actions in the window, client side
    others_outside_client: Latency  # the same tables' actions outside the window
    server: ServerLatency | None  # every action the server handled in the window
    settle: ServerLatency | None  # hand end to stored, for hands stored in the window
    shown: ServerLatency | None = None  # hand end to its result shown at the table
    batches: BatchReport | None = None  # how the settler stored them
    # the server histogram of each second of the window (None: a scrape failed)
    server_by_second: list[ServerLatency | None] = []
    # the whole-heap collections of each second of the window, all processes together
    whole_heap_by_second: list[ServerLatency | None] = []


class MachineReport(BaseModel):
    """The server's memory (VmRSS of all its processes) at four moments, what that makes per
    client and per live table, and the CPU used while measuring (cores: CPU seconds per
    second; core_busy: each core of the machine, 0..1)."""

    rss_idle_mib: float | None  # started, nothing connected
    rss_sockets_mib: float | None  # every client's socket open and said hello
    rss_playing_mib: float | None  # every table playing (after the warm-up)
    rss_end_mib: float | None
    kib_per_client: float | None  # (sockets - idle) / clients
    kib_per_table: float | None  # (playing - sockets) / tables
    server_cores: float | None
    client_cores: float | None
    core_busy: list[float] | None


class Report(BaseModel):
    url: str
    tables: int
    clients: int
    think_ms: tuple[float, float]
    server_processes: int | None  # None: not spawned by the run
    client_processes: int
    setup_seconds: float
    game: PhaseReport
    hands: int
    idle_tables: int = 0  # tables that finished no hand in the measured window
    errors: int
    error_codes: dict[str, int]
    late_answers: dict[str, int]  # answers that crossed a newer event (stale, not your turn)
    server: ServerLatency | None
    burst: BurstReport | None
    machine: MachineReport
    echo: PhaseReport | None
    ratio: float | None  # game messages/s over echo messages/s
    mean_message_bytes: float | None
    table_path: bool = True  # the sockets opened /ws/<table_id> (else /ws)
    house_bots: int = 0  # seats per table the server's house bots played (not clients)
    bot_level: str | None = None  # their level, with house bots
    bot_decisions: dict[str, BotDecisions] = {}  # by level: their choices, server side
    handoffs: dict[str, int] | None = None  # the server's mahjong_ws_handoffs_total by way
    busy_spells: int = 0  # times a server process began to shed new work (503 busy)
    shed: dict[str, int] = {}  # requests it refused meanwhile, by what they asked
    gc_collected: dict[str, int] = {}  # objects the server's collector freed, by generation

    def text(self) -> str:
        game = self.game
        think = "at once" if self.think_ms[1] == 0 else (
            f"think {self.think_ms[0]:g}-{self.think_ms[1]:g} ms")
        processes = (
            f"{self.server_processes} server process{'es' if self.server_processes != 1 else ''}, "
            if self.server_processes is not None else ""
        )
        house = (
            f" (+{self.house_bots} {self.bot_level} house bot"
            f"{'s' if self.house_bots > 1 else ''} a table)" if self.house_bots else ""
        )
        lines = [
            (
                f"load run against {self.url}: {self.tables} tables, {self.clients} clients"
                f"{house}, "
                f"{think}, {processes}{self.client_processes} client "
                f"process{'es' if self.client_processes != 1 else ''} "
                f"(set up in {self.setup_seconds:.1f} s)"
            ),
            f"  connections held      {game.connections} (dropped {game.dropped}), "
            f"on {'/ws/<table_id>' if self.table_path else '/ws'}"
            + (f"; handed to the table's process: {self.handoffs}" if self.handoffs else ""),
            f"  hands finished        {self.hands} (tables that finished none: {self.idle_tables})",
            f"  shedding              {self.busy_spells} busy spells; refused {self.shed or 0}",
            f"  collector freed       {self.gc_collected or 0} objects (by generation)",
            (
                f"  messages              {game.messages} in {game.seconds:.1f} s = "
                f"{game.messages_per_s:,.0f} msgs/s"
            ),
            (
                f"  action -> broadcast   p50 {_fmt(game.latency_p50_ms)}  p99 "
                f"{_fmt(game.latency_p99_ms)}  (client side, {game.latency_samples} actions)"
            ),
        ]
        if self.server is not None:
            lines.append(_histogram_line("  server histogram    ", self.server, "actions"))
        for level, bots in sorted(self.bot_decisions.items()):
            lines.append(
                f"  house bots decide     {level}: p50 {_fmt_us(bots.p50_ms)}  p99 "
                f"{_fmt_us(bots.p99_ms)}  ({bots.count} decisions, server side)"
            )
        if self.burst is not None:
            b = self.burst
            lines.append(
                f"  settlement burst      {b.tables} tables' hands ended at {b.at_second} s; "
                f"the next {b.window_seconds} s:"
            )
            lines.append(
                f"    other tables        p50 {_fmt(b.others_client.p50_ms)}  p99 "
                f"{_fmt(b.others_client.p99_ms)}  (client side, {b.others_client.samples} "
                f"actions; outside the window p50 {_fmt(b.others_outside_client.p50_ms)}  p99 "
                f"{_fmt(b.others_outside_client.p99_ms)})"
            )
            if b.server is not None:
                lines.append(_histogram_line("    server histogram  ", b.server, "actions"))
            if b.server_by_second:
                lines.append(
                    "    server p99 by second (ms): "
                    + " ".join("-" if s is None or s.p99_ms is None else f"{s.p99_ms:.0f}"
                               for s in b.server_by_second)
                )
            if any(s is not None and s.count for s in b.whole_heap_by_second):
                lines.append(
                    "    whole-heap collections by second (p50 ms): "
                    + " ".join("." if s is None or not s.count else f"{s.p50_ms:.0f}"
                               for s in b.whole_heap_by_second)
                )
            if b.settle is not None:
                lines.append(_histogram_line("    hand end -> stored", b.settle, "hands"))
            if b.shown is not None:
                lines.append(_histogram_line("    hand end -> shown ", b.shown, "hands"))
            if b.batches is not None:
                k = b.batches
                lines.append(
                    f"    settler batches     {k.batches}: hands p50 {k.hands_p50} p99 "
                    f"{k.hands_p99}; wait for room p50 {_fmt(k.room.p50_ms)} p99 "
                    f"{_fmt(k.room.p99_ms)}; store p50 {_fmt(k.store.p50_ms)} p99 "
                    f"{_fmt(k.store.p99_ms)}"
                )
        codes = ", ".join(f"{k} {v}" for k, v in sorted(self.error_codes.items())) or "none"
        late = ", ".join(f"{k} {v}" for k, v in sorted(self.late_answers.items())) or "none"
        lines.append(f"  errors                {self.errors} ({codes})")
        lines.append(f"  late answers          {late}")
        m = self.machine
        if m.rss_idle_mib is not None:
            lines.append(
                f"  server memory (RSS)   idle {m.rss_idle_mib} MiB, sockets open "
                f"{m.rss_sockets_mib} MiB, playing {m.rss_playing_mib} MiB, end "
                f"{m.rss_end_mib} MiB: {m.kib_per_client} KiB per client, "
                f"{m.kib_per_table} KiB per table"
            )
        if m.server_cores is not None or m.core_busy is not None:
            lines.append(
                f"  CPU                   server {m.server_cores} cores, clients "
                f"{m.client_cores} cores; each core busy {m.core_busy}"
            )
        if self.echo is not None:
            echo = self.echo
            lines.append(
                f"  echo server           {echo.connections} connections, "
                f"{echo.messages_per_s:,.0f} msgs/s, round trip p50 {_fmt(echo.latency_p50_ms)}"
                f"  p99 {_fmt(echo.latency_p99_ms)}"
            )
        if self.ratio is not None:
            lines.append(f"  game / echo msgs/s    {self.ratio:.2f}")
        return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def _fmt_us(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} ms"


def _histogram_line(label: str, latency: ServerLatency, what: str) -> str:
    """`label  p50 X ms  p99 Y ms  (N what)`: a server histogram over a window."""
    return (f"{label}  p50 {_fmt(latency.p50_ms)}  p99 {_fmt(latency.p99_ms)}  "
            f"({latency.count} {what})")


def histogram_quantile(buckets: list[tuple[float, float]], q: float) -> float | None:
    """Prometheus' `histogram_quantile` over cumulative `(upper bound, count)` buckets
    (linear within the bucket); None with no observations."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    total = buckets[-1][1]
    target = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in buckets:
        if count >= target:
            if math.isinf(bound):
                return lower_bound
            width = count - lower_count
            share = (target - lower_count) / width if width > 0 else 1.0
            return lower_bound + (bound - lower_bound) * share
        lower_bound, lower_count = bound, count
    return lower_bound

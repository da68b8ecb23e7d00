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

    @classmethod
    def of(cls, meter: Meter, seconds: float) -> PhaseReport:
        messages = meter.sent + meter.received
        return cls(
            connections=meter.open,
            dropped=meter.dropped,
            seconds=round(seconds, 2),
            messages=messages,
            messages_per_s=round(messages / seconds, 1) if seconds > 0 else 0.0,
            latency_p50_ms=ms(percentile(meter.latencies, 0.50)),
            latency_p99_ms=ms(percentile(meter.latencies, 0.99)),
            latency_samples=len(meter.latencies),
        )


class ServerLatency(BaseModel):
    """The server's own action-to-broadcast histogram over the window (from /metrics)."""

    count: int
    p50_ms: float | None
    p99_ms: float | None


class Report(BaseModel):
    url: str
    tables: int
    clients: int
    setup_seconds: float
    game: PhaseReport
    hands: int
    errors: int
    error_codes: dict[str, int]
    late_answers: dict[str, int]  # answers that crossed a newer event (stale, not your turn)
    server: ServerLatency | None
    echo: PhaseReport | None
    ratio: float | None  # game messages/s over echo messages/s
    mean_message_bytes: float | None

    def text(self) -> str:
        game = self.game
        lines = [
            (
                f"load run against {self.url}: {self.tables} tables, {self.clients} clients "
                f"(set up in {self.setup_seconds:.1f} s)"
            ),
            f"  connections held      {game.connections} (dropped {game.dropped})",
            f"  hands finished        {self.hands}",
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
            lines.append(
                f"  server histogram      p50 {_fmt(self.server.p50_ms)}  p99 "
                f"{_fmt(self.server.p99_ms)}  ({self.server.count} actions)"
            )
        codes = ", ".join(f"{k} {v}" for k, v in sorted(self.error_codes.items())) or "none"
        late = ", ".join(f"{k} {v}" for k, v in sorted(self.late_answers.items())) or "none"
        lines.append(f"  errors                {self.errors} ({codes})")
        lines.append(f"  late answers          {late}")
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

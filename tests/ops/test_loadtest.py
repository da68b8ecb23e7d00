"""The load test: a short real run against a spawned server (two tables, real sockets, the
echo yardstick), its guard rails, and the pieces its figures come from."""

from __future__ import annotations

import io
import multiprocessing
import pstats
import random
import socket
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from app.loadtest import worker
from app.loadtest.__main__ import _think, main
from app.loadtest.clients import GameBot, Pace
from app.loadtest.run import Options, run
from app.loadtest.servers import (
    LoopbackOnly,
    free_port,
    free_ports,
    game_server_env,
    require_loopback,
)
from app.loadtest.stats import Meter, histogram_quantile, percentile
from app.settings import Settings


async def test_a_short_run_plays_hands_without_errors_and_reports_a_burst_apart() -> None:
    """Four tables over two client processes; at 2 s half of them lose a player at once
    (their hands end together), and the other tables' actions in the window after it are
    reported apart, with the time those hands took to be stored."""
    out = io.StringIO()
    report = await run(
        Options(tables=4, seconds=8, echo_seconds=1, client_processes=2, think_ms=(50, 150),
                burst_at=2, burst_window=5, burst_every=2),
        out,
    )
    assert report.clients == 16 and report.client_processes == 2
    assert report.game.connections == 16 and report.game.dropped == 0
    assert report.hands > 0
    assert report.house_bots == 0 and report.bot_decisions == {}  # no house bot sat
    assert report.game.messages > 0 and report.game.messages_per_s > 0
    assert report.game.latency_samples > 0
    assert report.game.latency_p50_ms is not None and report.game.latency_p99_ms is not None
    assert report.game.latency_p50_ms <= report.game.latency_p99_ms
    assert report.errors == 0, report.error_codes
    assert report.server is not None and report.server.count > 0  # read from /metrics
    assert report.echo is not None and report.echo.connections == 16
    assert report.echo.messages_per_s > 0 and report.ratio is not None and report.ratio > 0
    progress = out.getvalue()
    assert "[game" in progress and "conns 16/16" in progress and "[echo" in progress
    # the echo does not share the machine with the game server's teardown
    assert progress.index("game server stopped") < progress.index("[echo")
    text = report.text()
    assert "hands finished" in text and "game / echo msgs/s" in text
    assert "settlement burst" in text
    burst = report.burst
    assert burst is not None and burst.tables == 2 and burst.window_seconds == 5
    assert burst.others_client.samples > 0 and burst.others_outside_client.samples > 0
    assert burst.settle is not None and burst.settle.count >= 2  # the escapes, stored
    assert burst.shown is not None and burst.shown.count >= 2  # ... and shown
    assert burst.batches is not None and burst.batches.batches >= 1
    assert "hand end -> shown" in text and "settler batches" in text
    machine = report.machine  # read off /proc: the spawned server's memory and CPU
    assert machine.rss_idle_mib and machine.rss_playing_mib
    assert machine.rss_playing_mib >= machine.rss_idle_mib
    assert machine.server_cores is not None and machine.server_cores > 0
    assert machine.core_busy and all(0 <= b <= 1 for b in machine.core_busy)


def test_house_bots_are_0_to_3_seats_of_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    for seats in (-1, 4):
        with pytest.raises(ValidationError, match="--house-bots is the seats per table"):
            Options(house_bots=seats)
    assert main(["--spawn", "--house-bots", "4"]) == 2  # refused before anything starts
    assert "--house-bots is the seats per table the house's bots play: 0-3, not 4" in (
        capsys.readouterr().err)
    assert Options(house_bots=3).clients == 10 and Options(house_bots=0).clients == 40
    with pytest.raises(ValidationError):
        Options(bot_level="grandmaster")  # type: ignore[arg-type]


async def test_a_fill_is_called_again_while_a_bot_was_taken_and_never_when_the_house_cannot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two server processes may hand one idle bot to two tables at once: the table that
    lost it is filled by calling again. A house that cannot fund the bots (or has none
    free) is not a busy server: the run hears it at once, not after a minute of retries."""
    monkeypatch.setattr(worker, "FILL_BACKOFF", (0.0, 0.0))
    answers: list[httpx.Response] = []
    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        return answers.pop(0)

    def refused(status: int, code: str) -> httpx.Response:
        return httpx.Response(status, json={"error": {"code": code, "message": code}})

    share = worker.Share(0, "http://127.0.0.1:1", 0, [["token-a", "token-b", "token-c"]],
                         "lishui", 1, (0.0, 0.0), 1, players=3, bot_level="expert")
    mine, _ = multiprocessing.Pipe()
    client = worker.Client(share, mine)
    await client.http.aclose()
    client.http = httpx.AsyncClient(base_url=share.url, transport=httpx.MockTransport(answer))
    client.bots[0].table_id = "t1"
    answers += [httpx.Response(200, json={"seats_taken": 3}),
                refused(409, "seated_elsewhere"), httpx.Response(200, json={"seats_taken": 4})]
    await client._fill_bots(0)
    assert calls == ["/tables/t1/fill-bots"] * 3 and answers == []
    calls.clear()
    answers.append(refused(503, "house_funds_low"))
    with pytest.raises(RuntimeError, match="house_funds_low"):
        await client._fill_bots(0)
    assert len(calls) == 1
    await client.http.aclose()


async def test_house_bots_in_a_seat_of_every_table_are_timed_and_profiled(tmp_path: Path) -> None:
    """One seat of each table is the house's expert bot (called by the table's first
    client), on a server run under cProfile: every table plays, only the load clients are
    counted as clients, the report has the bots' decision time read from the server's
    /metrics, and the profile has the hands played and the expert's choices."""
    stats_file = tmp_path / "server.prof"
    out = io.StringIO()
    report = await run(
        Options(tables=2, seconds=3, echo=False, profile_server=stats_file, house_bots=1,
                bot_level="expert"),
        out,
    )
    assert report.errors == 0, report.error_codes
    assert report.clients == 6 and report.game.connections == 6  # 3 load clients a table
    assert report.hands >= 2 and report.idle_tables == 0  # every table finished a hand
    assert report.house_bots == 1 and report.bot_level == "expert"
    assert set(report.bot_decisions) == {"expert"}  # the tables' level, and only it
    expert = report.bot_decisions["expert"]
    assert expert.count > 0
    assert expert.p50_ms is not None and expert.p99_ms is not None
    assert 0 < expert.p50_ms <= expert.p99_ms
    assert "1 expert house bot each" in out.getvalue()
    assert "house bots decide     expert: p50" in report.text()
    stats = pstats.Stats(str(stats_file))
    profiled = stats.stats  # type: ignore[attr-defined]
    assert {"_on_action", "encoded_message", "pump"} <= {name for (_, _, name) in profiled}
    assert any(path.endswith("expert.py") for (path, _, _) in profiled)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://localhost:1/", "http://[::1]:80"])
def test_loopback_targets_are_accepted(url: str) -> None:
    assert require_loopback(url) == url.rstrip("/")


@pytest.mark.parametrize(
    "url", ["http://example.com:8000", "http://10.0.0.7", "http://8.8.8.8", "ftp://127.0.0.1"]
)
def test_other_targets_are_refused(url: str) -> None:
    with pytest.raises(LoopbackOnly):
        require_loopback(url)


def test_the_command_refuses_remote_urls_and_unbounded_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "http://93.184.216.34", "--tables", "1", "--seconds", "1"]) == 2
    assert "loopback" in capsys.readouterr().err
    assert main(["--spawn", "--tables", "5001"]) == 2
    assert main(["--spawn", "--server-processes", "2"]) == 2  # needs PostgreSQL and Redis
    assert main(["--spawn", "--seconds", "0"]) == 2
    with pytest.raises(ValidationError):
        Options(tables=0)


def test_bots_take_a_win_and_mostly_pass_claims() -> None:
    bot = GameBot(Meter(), random.Random(3), counts_hands=False)
    legal = [{"type": "pass"}, {"type": "pung"}, {"type": "hu"}]
    assert bot.choose(legal) == {"type": "hu"}
    claims = [bot.choose([{"type": "pass"}, {"type": "pung"}]) for _ in range(400)]
    passes = sum(c["type"] == "pass" for c in claims)
    assert 240 < passes < 360  # three in four
    discards = [{"type": "discard", "tile": t} for t in ("1m", "5p", "9s")]
    chosen = {bot.choose(discards)["tile"] for _ in range(100)}
    assert chosen == {"1m", "5p", "9s"}


def test_pace_keeps_a_socket_under_the_server_limit() -> None:
    pace = Pace(limit=3)
    for t in (0.0, 0.1, 0.2):
        assert pace.wait(t) == 0.0
        pace.sent(t)
    assert pace.wait(0.5) == pytest.approx(0.5)  # the first send leaves the window at 1.0
    assert pace.wait(1.05) == 0.0


def test_percentiles() -> None:
    assert percentile([], 0.5) is None
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50 and percentile(values, 0.99) == 99
    # 10 observations up to 1 ms, 10 more up to 2 ms: the median is at 1 ms
    buckets = [(0.001, 10.0), (0.002, 20.0), (float("inf"), 20.0)]
    assert histogram_quantile(buckets, 0.5) == pytest.approx(0.001)
    assert histogram_quantile(buckets, 0.75) == pytest.approx(0.0015)
    assert histogram_quantile([(0.001, 0.0), (float("inf"), 0.0)], 0.5) is None


def test_a_free_port_is_never_one_an_outgoing_connection_can_take() -> None:
    """Servers under test start on `free_port()`: a port from bind-to-0 is in the range the
    kernel gives outgoing connections, and a client of another test could take it before
    the server bound it ("address already in use", seen in CI)."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports = [free_port() for _ in range(200)] + [free_ports(3) + i for i in range(3)]
    assert all(port < low for port in ports), [p for p in ports if p >= low]
    assert len(set(ports)) > 150  # drawn at random, not one fixed port
    with socket.socket() as s:
        s.bind(("127.0.0.1", ports[0]))  # and free


def test_the_house_bots_pace_reaches_the_spawned_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--bot-delay-ms` (an operator's BOT_DELAY_MS) is what the spawned server reads as
    its setting. Without it, house bots wait as long as the load clients think (the same
    uniform draw before every answer) and a run without house bots has the server play at
    once, as before; a range the setting would refuse is refused before anything starts."""

    def server_reads(options: Options) -> tuple[int, int]:
        env = game_server_env(tmp_path, free_port(), bot_delay_ms=options.bot_delay)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return Settings(_env_file=None).bot_delay_ms  # type: ignore[call-arg]

    # as the command line gives it: the operator's string
    assert server_reads(Options(house_bots=1, bot_delay_ms="600,1400")) == (600, 1400)  # type: ignore[arg-type]
    assert server_reads(Options(bot_delay_ms="800")) == (800, 800)  # type: ignore[arg-type]
    assert server_reads(Options(house_bots=1, think_ms=_think("1000-4000"))) == (1000, 4000)
    assert server_reads(Options(house_bots=2, think_ms=_think("300"))) == (150, 450)
    assert server_reads(Options(house_bots=1)) == (0, 0)  # the clients answer at once too
    assert server_reads(Options(think_ms=(1000, 4000))) == (0, 0)  # no house bots: at once
    for bad in ("1400,600", "20000", "-5"):
        assert main(["--spawn", "--house-bots", "1", "--bot-delay-ms", bad]) == 2
        assert "bad options" in capsys.readouterr().err
    assert main(["--url", "http://127.0.0.1:1", "--bot-delay-ms", "600,1400"]) == 2
    assert "with --spawn only" in capsys.readouterr().err


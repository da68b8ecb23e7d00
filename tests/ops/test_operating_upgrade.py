"""docs/operating.md, "Upgrading": a rolling upgrade, one node of two at a time, while
tables play. Slow: about 25-45 s on the 2-core machine (four server starts).

Two nodes of the old build (`BUILD_COMMIT=old`) share PostgreSQL, at the old release's
schema (migration 0011), and Redis, behind a proxy (tests/ops/balancer.py) through which
the players connect. Two tables play, each with two players and two house bots, one table
opened on each node. The runbook's steps, as written: its migration block runs once while
both old nodes serve (0012, an expand migration: new columns, a CHECK widened); then each node in turn is
taken out of the proxy while a hand is under way at its table, stopped with SIGTERM, and
replaced by a node of the new build (`BUILD_COMMIT=new`, a new NODE_ID) that joins the proxy
once `/ready` answers. Afterwards: every hand dealt was stored exactly once (the hands in
play at the steps went on, on the stopping node or the next, never dealt again), the silver
reconciles, the new schema and the new build are in use, and no player's socket saw an
error besides its reconnects and the answers every client takes in its stride (`BENIGN`).

One error is let through, named (docs/operating.md, "Rolling restarts", known gap): a
player whose socket the stopping node closed is away until it is back on another node, and
a seat still away when its hand ends (RULES.md 1, a disconnect counted) or when the next
deal is due is freed. Such a player's resume is answered `wrong_table`. The test accepts
it only within `RECONNECT_SECONDS` of a SIGTERM and only when the seat was indeed free (the
player sits down again, as a client does, and is seated); it prints each.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.cluster.keys import Keys
from app.loadtest.clients import LATE_CODES
from app.settings import Settings
from app.store import migrate
from tests.cluster.conftest import LEASE_MS
from tests.cluster.processes import (
    Node,
    Player,
    play,
    register,
    start_node,
    stop_all,
    wait_answering,
    wait_up,
)
from tests.conftest import POSTGRES_URL
from tests.ops.balancer import Balancer
from tests.ops.operating import (
    fund_house,
    make_admin,
    node_env,
    run_block,
    scratch_database,
    seat_with_bots,
    silver,
)
from tests.outage import check_hands_paid
from tests.waits import until

REDIS_URL = os.environ.get("TEST_REDIS_URL")
pytestmark = [
    pytest.mark.skipif(POSTGRES_URL is None, reason="TEST_DATABASE_URL is not set"),
    pytest.mark.skipif(REDIS_URL is None, reason="TEST_REDIS_URL is not set"),
]

OLD_SCHEMA = "0011"  # the running release's head; the new release brings 0012
# the house bots' pace: the test's players answer every prompt at once, and a table of
# bots at full speed prompts them past the 20 messages a second a socket may send
BOT_DELAY_MS = "100"
# a node's exit status after SIGTERM: uvicorn shuts down gracefully, then re-raises the
# signal (the status a service manager expects of a process stopped by SIGTERM)
STOPPED = (0, -signal.SIGTERM)
# answers in the error shape that every client takes in its stride: a late answer to a
# prompt that has passed (LATE_CODES), and `no_hand` to a resume that reaches a table taken
# over between two hands (it waits for the deal; the browser says nothing)
BENIGN = LATE_CODES | {"no_hand"}
RECONNECT_SECONDS = 3.0  # a socket closed by a stopping node is back on another within


@pytest.fixture
def database() -> Iterator[str]:
    """A database of this test's own at the old release's schema, with its first admin."""
    with scratch_database("upgrade") as url:
        migrate.upgrade(url, OLD_SCHEMA)
        make_admin(Settings(database_url=url))
        yield url


class Timeline(list[str]):
    """A player's error codes (`Player.errors`) that also notes when each came (in
    `errors`, and in `events` for the failure's message)."""

    def __init__(self, name: str, cluster: Cluster) -> None:
        super().__init__()
        self.name = name
        self.cluster = cluster

    def append(self, code: str) -> None:
        self.cluster.errors.append((time.monotonic(), self.name, code))
        self.cluster.note(f"{self.name}: {code}")
        super().append(code)


class Cluster:
    """The nodes the test started, by name, and how to start another."""

    def __init__(self, database: str, prefix: str, tmp_path: Path) -> None:
        assert REDIS_URL is not None
        self.env = node_env(database, REDIS_URL=REDIS_URL, REDIS_PREFIX=prefix,
                            LEASE_MS=str(LEASE_MS), WATCH_INTERVAL_MS="200",
                            BOT_DELAY_MS=BOT_DELAY_MS)
        self.prefix = prefix
        self.tmp_path = tmp_path
        self.nodes: dict[str, Node] = {}
        self.timings: list[str] = []  # what the steps took, printed
        self.events: list[tuple[float, str]] = []  # steps and players' errors, when
        self.errors: list[tuple[float, str, str]] = []  # when, player, code
        self.stops: list[float] = []  # when each SIGTERM was sent
        self.freed: set[str] = set()  # players whose seat had been freed, seated again

    def note(self, what: str) -> None:
        self.events.append((time.monotonic(), what))

    def timeline(self) -> str:
        start = min((at for at, _ in self.events), default=0.0)
        return "\n".join(f"{at - start:6.2f}s {what}" for at, what in sorted(self.events))

    def start(self, name: str, build: str) -> Node:
        node = start_node(name, self.env | {"BUILD_COMMIT": build}, self.tmp_path)
        self.nodes[name] = node
        return node

    def logs(self) -> str:
        return "\n".join(f"--- {name}:\n{node.log.read_text()[-3000:]}"
                         for name, node in self.nodes.items())

    def stop_all(self) -> None:
        stop_all([node.process for node in self.nodes.values()])


@pytest.fixture
def cluster(database: str, tmp_path: Path) -> Iterator[Cluster]:
    """The nodes' cluster under a Redis key prefix of its own, its keys deleted after."""
    assert REDIS_URL is not None
    redis = SyncRedis.from_url(REDIS_URL, decode_responses=True)
    try:
        redis.ping()
    except RedisError as exc:  # set but unreachable: fail, never skip
        pytest.fail(f"TEST_REDIS_URL is set but Redis cannot be reached: {exc}")
    running = Cluster(database, f"test-upgrade-{os.urandom(4).hex()}:", tmp_path)
    try:
        yield running
    finally:
        running.stop_all()
        for key in redis.scan_iter(match=f"{running.prefix}*", count=500):
            redis.delete(key)
        redis.close()


async def _sit_again(http: httpx.AsyncClient, players: list[Player], stop: asyncio.Event,
                     cluster: Cluster) -> None:
    """What a client does when told it no longer sits at its table (`wrong_table`): sit
    down again; a seat that takes them had been freed (the errors stay, for the test)."""
    handled = dict.fromkeys((p.name for p in players), 0)
    while not stop.is_set():
        for player in players:
            count = player.errors.count("wrong_table")
            if count > handled[player.name]:
                handled[player.name] = count
                sat = await http.post(f"/tables/{player.table_id}/sit", headers=player.headers)
                if sat.status_code == 200:
                    cluster.freed.add(player.name)
                    cluster.note(f"{player.name} seated again: the seat had been freed")
        await asyncio.sleep(0.2)


def _unexplained(cluster: Cluster) -> list[str]:
    """The players' errors that are neither `BENIGN` nor a seat freed while its socket moved
    (a `wrong_table` within `RECONNECT_SECONDS` of a SIGTERM, the seat found free)."""
    return [
        f"{name}: {code}" for at, name, code in cluster.errors
        if code not in BENIGN and not (
            code == "wrong_table" and name in cluster.freed
            and any(0 <= at - stop <= RECONNECT_SECONDS for stop in cluster.stops)
        )
    ]


def _under_way(players: list[Player], table_id: str) -> str | None:
    """A hand of the table that has gone some way and is not over, seen by its players."""
    for player in players:
        if player.table_id != table_id:
            continue
        for hand, seen in player.seen.items():
            if seen >= 8 and hand not in player.ended and hand not in player.over:
                return hand
    return None


def _ended(players: list[Player]) -> dict[str, list[int]]:
    return {hand: list(event["net"]) for p in players for hand, event in p.ended.items()}


async def _replace(cluster: Cluster, balancer: Balancer, old: str, new: str,
                   players: list[Player], table_id: str) -> None:
    """The runbook's step for one node: out of the proxy, SIGTERM (while a hand is under
    way at `table_id`, which it owns), wait for its exit, start the new build, in once
    ready; then the hand that was under way is seen to end."""
    await until(lambda: _under_way(players, table_id), 30, f"a hand under way at {old}")
    hand = _under_way(players, table_id)
    node = cluster.nodes[old]
    balancer.nodes.remove(node.address)
    cluster.note(f"SIGTERM to {old}")
    cluster.stops.append(time.monotonic())
    node.process.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    code = await asyncio.to_thread(node.process.wait, 30)
    assert code in STOPPED, f"{old} exited with {code}:\n{node.log.read_text()}"
    cluster.timings.append(f"{old} exited {time.monotonic() - sent:.1f}s after SIGTERM")
    replacement = cluster.start(new, "new")
    started = time.monotonic()
    await asyncio.to_thread(wait_answering, f"http://{replacement.address}/ready",
                            replacement.process, replacement.log, f"node {new}")
    cluster.timings.append(f"{new} ready {time.monotonic() - started:.1f}s after its start")
    balancer.nodes.append(replacement.address)
    cluster.note(f"{new} in the proxy")
    await until(lambda: hand in _ended(players), 40, f"hand {hand}, under way at {old}'s stop")


async def _lease_owner(prefix: str, table_id: str) -> str:
    assert REDIS_URL is not None
    redis = Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        return str((await redis.get(Keys(prefix).lease(table_id))) or "").split("|")[0]
    finally:
        await redis.aclose()


async def _rows(url: str, query: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return list(await conn.fetch(query))
    finally:
        await conn.close()


async def _upgrade_while_playing(cluster: Cluster, database: str, players_out: list[Player]
                                 ) -> tuple[list[str], dict[str, int]]:
    """Start the old nodes, seat two tables, play, and run the runbook's upgrade; the
    tables, and the silver supply read afterwards."""
    a, b = cluster.start("a", "old"), cluster.start("b", "old")
    for node in (a, b):
        await asyncio.to_thread(wait_up, node)
    stop = asyncio.Event()
    async with (
        Balancer().running() as balancer,
        httpx.AsyncClient(base_url=f"http://{a.address}") as http_a,
        httpx.AsyncClient(base_url=f"http://{b.address}") as http_b,
        httpx.AsyncClient(base_url=f"http://{balancer.address}") as http,
    ):
        balancer.nodes = [a.address, b.address]
        await fund_house(http, 1_000_000)
        players = [await register(http_a, f"roller{i}", balancer.address) for i in range(4)]
        players_out += players
        for player in players:
            player.errors = Timeline(player.name, cluster)
        tables = [await seat_with_bots(http_a, players[:2]),
                  await seat_with_bots(http_b, players[2:])]
        tasks = [asyncio.create_task(play(p, balancer.address, stop)) for p in players]
        tasks.append(asyncio.create_task(_sit_again(http, players, stop, cluster)))
        try:
            await until(lambda: len(_ended(players)) >= 2, 60, "hands before the upgrade")
            # the new release's migrations, once, while the old nodes serve
            path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
            run_block("upgrade-migrate", {"DATABASE_URL": database, "PATH": path})
            await _replace(cluster, balancer, "a", "a2", players, tables[0])
            await _replace(cluster, balancer, "b", "b2", players, tables[1])
            after = set(_ended(players))
            await until(lambda: all(any(h.startswith(t) for h in set(_ended(players)) - after)
                                    for t in tables), 60, "a hand at each table on new nodes")
        except AssertionError as failed:
            raise AssertionError(f"{failed}\n{cluster.logs()}") from None
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return tables, await silver(http)


async def test_a_rolling_upgrade_loses_no_hand(cluster: Cluster, database: str) -> None:
    players: list[Player] = []
    async with asyncio.timeout(150):
        tables, supply = await _upgrade_while_playing(cluster, database, players)

    ended = _ended(players)
    await check_hands_paid(database, ended, 1, ended)  # once each, paid, balances = ledger
    stored = {r["id"] for r in await _rows(database, "SELECT id FROM hand_records")}
    for table_id in tables:
        dealt = sorted({h for p in players for h in p.seen if h.startswith(f"{table_id}-")},
                       key=lambda h: int(h.rsplit("-", 1)[1]))
        assert dealt == [f"{table_id}-{n}" for n in range(1, len(dealt) + 1)], dealt
        # every hand dealt at the table was stored; only the last may still be in play
        at_table = {h for h in stored if h.startswith(f"{table_id}-")}
        assert set(dealt[:-1]) <= at_table <= set(dealt), (dealt, sorted(at_table))
        owner = await _lease_owner(cluster.prefix, table_id)
        assert owner in ("a2", "b2"), owner
    assert supply["unexplained"] == 0, supply

    unexplained = _unexplained(cluster)
    assert not unexplained, (
        f"players saw errors: {unexplained}\n{cluster.timeline()}\n{cluster.logs()}")
    assert all(p.reconnects >= 1 for p in players)  # each socket was on a stopped node

    async with httpx.AsyncClient(base_url=f"http://{cluster.nodes['b2'].address}") as http:
        levels = await http.get("/quick-match/levels")
        events = await http.get("/tournaments?status=running")
        scraped = await http.get("/metrics")
    assert 'commit="new"' in next(  # the node in service is the new build
        line for line in scraped.text.splitlines() if line.startswith("mahjong_build_info{"))
    # the migration step ran: the events are read with the new release's columns (0012)
    assert events.status_code == 200 and events.json() == [], events.text
    assert levels.status_code == 200, levels.text
    assert [level["key"] for level in levels.json()["levels"]] == [
        "beginner", "intermediate", "advanced"]
    took_over = [line.split("took over table ", 1)[1] for node in cluster.nodes.values()
                 for line in node.log.read_text().splitlines() if "took over table" in line]
    print(f"\n{'; '.join(cluster.timings)}; takeovers: {took_over}; "
          f"seats freed while their sockets moved: {sorted(cluster.freed)}; "
          f"reconnects: {[p.reconnects for p in players]}; hands ended: {len(ended)}")

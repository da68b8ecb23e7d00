"""/metrics over a real hand: one player on a socket with three bots, against a real server;
the connection gauge, the message counters, the live-table gauges, the action-to-broadcast
histogram and the settlement counter all move the way an operator would read them."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.loadtest.servers import free_port
from app.tables.levels import BOT_LEVELS
from tests.live import live_server, sqlite_settings
from tests.ops.nodes import fresh_node
from tests.ops.nodes import scrape as fresh_scrape
from tests.wsclient import table_socket

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A real server on 127.0.0.1 over a migrated SQLite file; its host:port."""
    with live_server(sqlite_settings(tmp_path / "metrics.db")) as (port, _):
        yield f"127.0.0.1:{port}"


async def scrape(http: httpx.AsyncClient) -> Samples:
    response = await http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_metrics_follow_a_hand(server: str) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server}") as http:
        body = {"username": "metered", "password": "correct horse battery"}
        assert (await http.post("/auth/register", json=body)).status_code == 201
        token = (await http.post("/auth/login", json=body)).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        table = await http.post("/tables", json={"variant": "lishui", "stake": 1}, headers=headers)
        table_id = table.json()["id"]
        before = await scrape(http)
        assert value(before, "mahjong_live_tables", status="waiting") == 1
        assert value(before, "mahjong_live_tables", status="playing") == 0

        sent: dict[str, int] = {"action": 0, "turn": 0}
        received: dict[str, int] = {}
        playing: Samples = {}
        async with table_socket(server, token) as ws:

            async def send(message: dict[str, Any]) -> None:
                await ws.send(json.dumps(message))

            async def receive() -> dict[str, Any]:
                message: dict[str, Any] = json.loads(await ws.recv())
                received[message["type"]] = received.get(message["type"], 0) + 1
                return message

            await send({"type": "ping", "nonce": "n"})
            assert (await receive())["type"] == "pong"  # registered: the gauge counts it
            during = await scrape(http)
            assert value(during, "mahjong_ws_connections") == value(
                before, "mahjong_ws_connections"
            ) + 1
            sat = await http.post(f"/tables/{table_id}/sit", headers=headers)
            assert sat.status_code == 200
            filled = await http.post(f"/tables/{table_id}/fill-bots", headers=headers)
            assert filled.status_code == 200
            last_seq = 0
            while True:
                message = await receive()
                if message["type"] == "event":
                    last_seq = message["seq"]
                    if message["event"]["kind"] == "hand_ended":
                        break
                    if not playing:  # (a prompt's scrape, below, if one comes first)
                        # the hand's first event: read while it is in play, in case the
                        # bots end it before this seat is ever asked anything
                        playing = await scrape(http)
                elif message["type"] == "prompt":
                    legal = message["legal_actions"]
                    # prefer an action that changes the hand (a discard, a claim, a win)
                    action = next((a for a in legal if a["type"] != "pass"), legal[0])
                    await send({"type": "action", "table_id": table_id, "seq": last_seq,
                                "action": action})
                    sent["action"] += 1
                    # a turn's action (a discard, a kong, 自摸) is played at once; a claim
                    # may wait for the other seats of its window, whose last answer plays it
                    sent["turn"] += all(a["type"] != "pass" for a in legal)
                elif message["type"] == "error" and message["code"] != "stale":
                    # (stale: a claim offer withdrawn because a bot's 胡 or 碰 took the tile
                    # before this client, busy reading the metrics, answered it)
                    raise AssertionError(f"unexpected error {message}")
        # the hand ends before its settlement: wait for the ledger's write to be counted
        deadline = time.monotonic() + 10
        while True:
            after = await scrape(http)
            settled = sum(
                v - value(before, name, **dict(labels))
                for (name, labels), v in after.items() if name == "mahjong_settlements_total"
            )
            if (settled >= 1 and value(after, "mahjong_ws_connections")
                    == value(before, "mahjong_ws_connections")) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)

    assert settled == 1
    outcome = next(
        dict(labels)["outcome"] for (name, labels), v in after.items()
        if name == "mahjong_settlements_total" and v > value(before, name, **dict(labels))
    )
    assert outcome in ("win", "draw")
    assert value(playing, "mahjong_live_tables", status="playing") == 1
    assert value(after, "mahjong_ws_connections") == value(before, "mahjong_ws_connections")

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("mahjong_ws_messages_total", direction="in", type="action") == sent["action"]
    assert grew("mahjong_ws_messages_total", direction="in", type="ping") == 1
    for kind in ("event", "prompt", "pong"):
        assert grew("mahjong_ws_messages_total", direction="out", type=kind) == received[kind]
    # every turn's action publishes events at once; a claim or a pass may not
    observed = grew("mahjong_action_broadcast_seconds_count")
    assert 0 < sent["turn"] <= observed <= sent["action"]
    assert grew("mahjong_action_broadcast_seconds_bucket", le="+Inf") == observed
    assert grew("mahjong_action_broadcast_seconds_sum") > 0
    assert ("mahjong_inbox_depth", (("stat", "max"),)) in after
    # the hand was stored in a batch of one, then shown
    assert grew("mahjong_settle_batch_hands_count") == 1
    assert grew("mahjong_settle_batch_hands_bucket", le="1.0") == 1
    assert grew("mahjong_settle_batch_seconds_count", step="store") == 1
    assert grew("mahjong_settle_batch_seconds_sum", step="store") > 0
    assert grew("mahjong_result_shown_seconds_count") == 1
    assert (grew("mahjong_result_shown_seconds_sum")
            >= grew("mahjong_settle_batch_seconds_sum", step="store"))


async def test_metrics_can_live_on_a_private_port_only(tmp_path: Path) -> None:
    private = free_port()
    settings = sqlite_settings(tmp_path / "private.db", metrics_port=private)
    with live_server(settings) as (port, _):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as public:
            assert (await public.get("/metrics")).status_code == 404
            body = {"username": "metered", "password": "correct horse battery"}
            assert (await public.post("/auth/register", json=body)).status_code == 201
            token = (await public.post("/auth/login", json=body)).json()["access_token"]
            created = await public.post("/tables", json={"variant": "lishui", "stake": 1},
                                        headers={"Authorization": f"Bearer {token}"})
            assert created.status_code == 201
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{private}") as monitoring:
            samples = await scrape(monitoring)  # the same process: its live table is seen
            assert value(samples, "mahjong_live_tables", status="waiting") == 1
            assert (await monitoring.get("/variants")).status_code == 404


# --- what a fresh node shows, and the edge's counts --------------------------------------------

FROM_THE_START = [
    ("mahjong_http_requests_total", {"method": "POST", "route": "/auth/login", "status": "200"}),
    ("mahjong_http_request_duration_seconds_count", {"method": "GET", "route": "/tables"}),
    ("mahjong_rate_limited_total", {"limit": "requests"}),
    ("mahjong_rate_limited_total", {"limit": "ws_connects"}),
    ("mahjong_login_failures_total", {"reason": "bad_credentials"}),
    ("mahjong_table_takeovers_total", {}),
    ("mahjong_leases_lost_total", {}),
    ("mahjong_writer_dropped_commands_total", {}),
    ("mahjong_db_pool_checked_out", {}),
    ("mahjong_db_pool_overflow", {}),
    ("mahjong_redis_errors_total", {"client": "main"}),
    ("mahjong_redis_errors_total", {"client": "leases"}),
    ("mahjong_redis_errors_total", {"client": "bus"}),
    ("mahjong_settlements_total", {"outcome": "failed"}),
    ("mahjong_settlements_total", {"outcome": "win"}),
    *(("mahjong_bot_decision_seconds_count", {"level": level}) for level in BOT_LEVELS),
]


def test_every_series_is_there_at_zero_before_any_traffic(tmp_path: Path) -> None:
    """A fresh node's first scrape (only /health asked before, to see it up) has every series
    an operator's rate or alert reads, at 0, and says what it runs."""
    with fresh_node(tmp_path, BUILD_COMMIT="0123456789ab") as node:
        samples = fresh_scrape(node.url)
    for name, labels in FROM_THE_START:
        key = (name, tuple(sorted(labels.items())))
        assert samples.get(key) == 0.0, (name, labels, samples.get(key))
    build = {dict(labels)["commit"]: (dict(labels)["version"], v)
             for (name, labels), v in samples.items() if name == "mahjong_build_info"}
    assert build == {"0123456789ab": (metadata.version("zjmahjong"), 1.0)}
    # SQLite: one connection, none overflowing
    assert value(samples, "mahjong_db_pool_size") == value(samples, "mahjong_db_pool_max") == 1
    assert ("mahjong_loop_lag_seconds", ()) in samples  # measured from the start
    assert value(samples, "mahjong_ready", check="database") == 1
    assert value(samples, "mahjong_ready", check="redis") == 1  # skipped: no REDIS_URL


async def test_requests_are_counted_by_route_template_and_status(server: str) -> None:
    raw = f"/no/such/page-{secrets.token_hex(8)}"
    async with httpx.AsyncClient(base_url=f"http://{server}") as http:
        before = await scrape(http)
        assert (await http.post(f"/tables/{secrets.token_hex(6)}/sit")).status_code == 401
        assert (await http.get(raw)).status_code == 404
        assert (await http.get("/variants")).status_code == 200
        after = await scrape(http)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    sit = {"method": "POST", "route": "/tables/{table_id}/sit"}
    assert grew("mahjong_http_requests_total", status="401", **sit) == 1
    assert grew("mahjong_http_request_duration_seconds_count", **sit) == 1
    assert grew("mahjong_http_requests_total", method="GET", route="unrouted", status="404") == 1
    assert grew("mahjong_http_requests_total", method="GET", route="/variants", status="200") == 1
    assert grew("mahjong_http_request_duration_seconds_sum", method="GET", route="/variants") > 0
    routes = {dict(labels).get("route") for name, labels in after}
    assert raw not in routes and not any("page-" in str(r) for r in routes)


async def test_429s_are_counted_by_the_limit_that_gave_them(tmp_path: Path) -> None:
    """The edge's request limit (`requests`), the login's own limit (its route), and the
    logins refused for a wrong password. (Scraped on the monitoring port: the public one's
    requests are what is limited.)"""
    private = free_port()
    settings = sqlite_settings(tmp_path / "limits.db", login_attempts=2, requests_per_address=12,
                               metrics_port=private)
    with live_server(settings) as (port, _):
        async with (httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http,
                    httpx.AsyncClient(base_url=f"http://127.0.0.1:{private}") as monitoring):
            before = await scrape(monitoring)
            body = {"username": "guessed", "password": "correct horse battery"}
            assert (await http.post("/auth/register", json=body)).status_code == 201
            wrong = body | {"password": "wrong horse battery"}
            answers = [(await http.post("/auth/login", json=wrong)).status_code for _ in range(3)]
            assert answers == [401, 401, 429]  # the username's attempts from this address
            statuses = [(await http.get("/variants")).status_code for _ in range(10)]
            assert statuses.count(429) == 2  # 12 requests an address may make in the window
            after = await scrape(monitoring)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("mahjong_login_failures_total", reason="bad_credentials") == 2
    assert grew("mahjong_rate_limited_total", limit="/auth/login") == 1
    assert grew("mahjong_rate_limited_total", limit="requests") == 2
    assert grew("mahjong_http_requests_total", method="GET", route="/variants", status="429") == 2

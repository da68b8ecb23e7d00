"""Request limits in a cluster: two nodes on one Redis count an address's requests
together, so a client cannot get twice its bar by spreading its requests over the nodes
(real uvicorn servers; app/api/throttle.py)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

import httpx
from fastapi import FastAPI
from redis.asyncio import Redis

from tests.api.helpers import assert_error
from tests.live import live_server, sqlite_settings

BAR = 10
FLOODER = {"X-Forwarded-For": "203.0.113.7"}  # the test servers trust 127.0.0.1 as a proxy


async def test_two_nodes_count_an_address_against_one_bar(
    tmp_path: Path, redis_url: str, prefix: str, redis: Redis
) -> None:
    def node(name: str) -> AbstractContextManager[tuple[int, FastAPI]]:
        return live_server(sqlite_settings(
            tmp_path / "shared.db", redis_url=redis_url, redis_prefix=prefix, node_id=name,
            requests_per_address=BAR,
        ))

    with node("a") as (port_a, _), node("b") as (port_b, _):
        a, b = f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}"
        async with httpx.AsyncClient() as http:
            for url in [a] * (BAR // 2) + [b] * (BAR - BAR // 2):
                assert (await http.get(f"{url}/variants", headers=FLOODER)).status_code == 200
            for url in (a, b):  # the bar is used up on both nodes
                answer = await http.get(f"{url}/variants", headers=FLOODER)
                assert_error(answer, 429, "rate_limited")
                assert int(answer.headers["Retry-After"]) >= 1
            other = {"X-Forwarded-For": "203.0.113.8"}
            assert (await http.get(f"{b}/variants", headers=other)).status_code == 200
    # the counters were kept in Redis, under the cluster's key prefix
    assert [key async for key in redis.scan_iter(match=f"{prefix}limits*")]

"""Overload sheds instead of stalling (app/ops/pressure.py): a node loaded until its event
loop falls behind refuses new work (a table, a room, a sit, a quick-match join: 503 `busy`
with Retry-After) while the tables already playing go on, says so in /metrics, and takes
new work again by itself once the load is gone."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import httpx
from fastapi import FastAPI

from app.main import create_app
from app.settings import Settings
from app.store.db import Database
from app.tables.timers import Timers
from tests.api.helpers import assert_error, player
from tests.funded import funded_accounts
from tests.live import UNTHROTTLED
from tests.outage import shown_ended
from tests.sinks import Sink
from tests.waits import until

FAST = Timers(discard=60, claim=60, decide=60, ready=0.01)  # bots at once, the next hand at once
TABLES = 4


def _metric(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert found is not None, name
    return float(found.group(1))


def _busy_answer(response: httpx.Response) -> dict[str, Any]:
    error = assert_error(response, 503, "busy")
    assert int(response.headers["retry-after"]) == error["details"]["retry_after"] >= 1
    return error


async def test_a_loaded_node_sheds_new_work_keeps_playing_and_recovers(
    database_url: str, db: Database
) -> None:
    settings = Settings(
        database_url=database_url, jwt_secret="test-secret-" + "x" * 32, argon2_time_cost=1,
        argon2_memory_kib=1024, argon2_parallelism=1, bot_delay_ms="0",
        shed_lag=0.25, shed_window=1.0, shed_calm=1.0, **UNTHROTTLED,
    )
    app: FastAPI = create_app(settings)
    async with app.router.lifespan_context(app):
        registry, pressure = app.state.tables, app.state.tables.pressure
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            await until(lambda: not pressure.busy, 30, "the node calm after its start")
            _, owner = await player(http, "shedowner")
            _, guest = await player(http, "shedguest")
            opened = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                     headers=owner)
            assert opened.status_code == 201, opened.text
            waiting = opened.json()["id"]

            # tables already playing: bots as fast as they go
            accounts = await funded_accounts(db, 4 * TABLES, "shed")
            sinks = {a: Sink() for a in accounts}
            tables = []
            for t in range(TABLES):
                live = registry.create("lishui", 1, timers=FAST)
                tables.append(live)
                for account in accounts[4 * t: 4 * t + 4]:
                    registry.connections.connect(account, sinks[account])
                    await registry.sit(live.table_id, account, bot=True)
            await until(lambda: len(shown_ended(sinks.values())) >= TABLES, 60, "hands played")

            # more work than the node can do: its loop is held half a second at a time (a
            # stand-in for more tables than its core can serve; far over the limit, so that
            # a test machine's own load neither makes nor unmakes the difference)
            hogging = asyncio.Event()

            async def hog() -> None:
                while not hogging.is_set():
                    time.sleep(0.5)  # noqa: ASYNC251 - holding the loop is the point
                    await asyncio.sleep(0.02)

            load = asyncio.create_task(hog())
            await until(lambda: pressure.busy, 30, "the node shedding")
            assert "lag" in pressure.state.why

            # new work is refused, each with how long to wait
            _busy_answer(await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                         headers=owner))
            _busy_answer(await http.post(f"/tables/{waiting}/sit", headers=guest))
            _busy_answer(await http.post("/rooms", headers=owner, json={
                "variant": "lishui", "stake": 1, "length": {"unit": "hands", "count": 4}}))
            _busy_answer(await http.post("/quick-match", headers=guest,
                                         json={"variant": "lishui", "level": "beginner"}))
            metrics = (await http.get("/metrics")).text
            assert _metric(metrics, "mahjong_node_busy") == 1
            assert _metric(metrics, "mahjong_busy_spells_total") >= 1
            assert _metric(metrics, "mahjong_loop_lag_seconds") > 0.25
            for what in ("table", "sit", "room", "quick_match"):
                assert _metric(metrics, f'mahjong_shed_requests_total{{what="{what}"}}') >= 1

            # the tables already playing go on: more hands are stored and shown meanwhile
            before = len(shown_ended(sinks.values()))
            await until(lambda: len(shown_ended(sinks.values())) > before + len(tables), 60,
                        "hands shown while the node sheds")

            # the load goes; the node takes work again by itself
            hogging.set()
            await load
            await until(lambda: not pressure.busy, 30, "the node calm again")
            metrics = (await http.get("/metrics")).text
            assert _metric(metrics, "mahjong_node_busy") == 0
            sat = await http.post(f"/tables/{waiting}/sit", headers=guest)
            assert sat.status_code == 200, sat.text
            again = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                    headers=owner)
            assert again.status_code == 201, again.text

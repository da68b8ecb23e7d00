"""A tournament played to its end on a real server (issue: tournaments, "How it is judged"):
64 seats, 16 people registered whose clients put every table they are seated at on 托管,
48 house bots, three Swiss rounds of two hands and a final table, bots at instant pace.
The rounds are drawn by the standings, the final table seats the four best players, the
prizes are the pool by the prize table, every player's silver changed by exactly their
hands, their prize and their fee, and the supply is explained throughout."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from app.store.db import Database
from app.store.models import HandRecord, LedgerEntry, TournamentTable
from tests.api.helpers import make_admin, player
from tests.live import live_server, sqlite_settings
from tests.wsclient import open_socket

PEOPLE = 16
FEE = 100
SHARES = [50, 30, 20]
HANDS_PER_ROUND = 2


async def _on_tuoguan(address: str, token: str, stop: asyncio.Event) -> set[str]:
    """A player's client that asks 托管 at every table it is seated at; the tables."""
    tables: set[str] = set()
    ws = await open_socket(address, token)
    try:
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                continue
            message = json.loads(raw)
            table_id = message.get("table_id")
            if message.get("type") == "seated" and table_id not in tables:
                tables.add(table_id)
                await ws.send(json.dumps({"type": "autoplay", "table_id": table_id, "on": True}))
    finally:
        await ws.close()
    return tables


async def _silver(http: httpx.AsyncClient, boss: dict[str, str]) -> dict[str, Any]:
    body = (await http.get("/admin/silver", headers=boss)).json()
    assert body["unexplained"] == 0, body
    return dict(body)


async def test_a_64_seat_event_of_three_swiss_rounds_and_a_final_pays_its_pool(
    tmp_path: Path,
) -> None:
    database = tmp_path / "event.db"
    settings = sqlite_settings(database, bot_delay_ms=(0, 0), tournament_poll_seconds=0.1)
    with live_server(settings) as (port, _):
        db = Database.connect(settings.database_url)
        address = f"127.0.0.1:{port}"
        try:
            async with asyncio.timeout(240), httpx.AsyncClient(base_url=f"http://{address}") as http:
                boss_id, boss = await player(http, "boss")
                await make_admin(db, boss_id)
                supply = (await _silver(http, boss))["total"]
                people = [await player(http, f"entrant{n}") for n in range(PEOPLE)]
                made = await http.post("/admin/tournaments", headers=boss, json={
                    "name": "冬至杯", "variant": "lishui", "stake": 1, "fee": FEE,
                    "rake_bp": 1000, "seats": 64, "rounds": 3, "final_table": True,
                    "length": {"unit": "hands", "count": HANDS_PER_ROUND},
                    "prize_shares": SHARES, "bot_level": "standard",
                    "timers": {"discard": 5, "claim": 2, "decide": 2, "ready": 1},
                    "starts_at": (datetime.now(UTC) + timedelta(seconds=4)).isoformat(),
                })
                assert made.status_code == 201, made.text
                event = made.json()["id"]
                for _, headers in people:
                    done = await http.post(f"/tournaments/{event}/register", headers=headers)
                    assert done.status_code == 201, done.text
                before = {a: int((await http.get("/me", headers=h)).json()["balance"])
                          for a, h in people}
                stop = asyncio.Event()
                clients = [asyncio.create_task(_on_tuoguan(
                    address, h["Authorization"].removeprefix("Bearer "), stop)) for _, h in people]
                while (await http.get(f"/tournaments/{event}")).json()["status"] != "finished":
                    await _silver(http, boss)  # explained at every moment of the event
                    await asyncio.sleep(0.5)
                stop.set()
                seen = await asyncio.gather(*clients)
                final = (await http.get(f"/tournaments/{event}/standings")).json()
                read = (await http.get(f"/tournaments/{event}")).json()
                after = {a: int((await http.get("/me", headers=h)).json()["balance"])
                         for a, h in people}
                silver = await _silver(http, boss)

            # every person was seated at each of their tables, wherever they were connected
            tables = final["tables"]
            assert [t["round"] for t in tables] == [1] * 16 + [2] * 16 + [3] * 16 + [4]
            assert all(t["status"] == "done" for t in tables)
            for (account, _), theirs in zip(people, seen, strict=True):
                assert theirs == {t["table_id"] for t in tables if account in t["accounts"]}
                assert 3 <= len(theirs) <= 4
            async with db.sessions() as s:
                hands = (await s.execute(select(HandRecord))).scalars().all()
                rows = (await s.execute(select(LedgerEntry))).scalars().all()
                drawn = (await s.execute(select(TournamentTable))).scalars().all()
            played = {t["table_id"] for t in tables}
            per_table: dict[str, int] = {}
            for hand in hands:
                if hand.table_id in played and not hand.voided:
                    per_table[hand.table_id] = per_table.get(hand.table_id, 0) + 1
            assert per_table == dict.fromkeys(played, HANDS_PER_ROUND)

            # round 2 seats the leaders of round 1 at table 1; the final the four best people
            points: dict[str, dict[int, int]] = {}
            for t in drawn:
                for entrant, (p, _) in json.loads(t.results or "{}").items():
                    points.setdefault(str(t.round), {})[int(entrant)] = p
            leaders = json.loads(next(t.seats for t in drawn if (t.round, t.number) == (2, 1)))
            assert min(points["1"][e] for e in leaders) >= max(
                p for e, p in points["1"].items() if e not in leaders)
            standings = final["standings"]
            assert [s["place"] for s in standings] == list(range(1, 65))
            finalists = next(t for t in tables if t["round"] == 4)["accounts"]
            swiss = {s["account_id"]: s["points"] for s in standings}
            humans = {a for a, _ in people}
            assert set(finalists) <= humans
            assert min(swiss[a] for a in finalists) >= max(
                swiss[a] for a in humans - set(finalists))
            assert {s["account_id"] for s in standings[:4]} == set(finalists)
            assert [s["final_points"] for s in standings[:4]] == sorted(
                (s["final_points"] for s in standings[:4]), reverse=True)

            # the pool (fees less the 10% rake) by the prize table, to the first three places
            pool = PEOPLE * FEE - PEOPLE * FEE // 10
            assert read["status"] == "finished" and read["seed"] is not None
            prizes = [s["prize"] for s in standings[:3]]
            assert prizes == [pool * 50 // 100, pool * 30 // 100, pool * 20 // 100]
            assert sum(prizes) == pool
            assert all(s["prize"] in (0, None) for s in standings[3:])
            assert all(s["prize"] is None for s in standings if s["bot"])

            # each person's silver: exactly their hands, their prize and their fee
            event_hands = {h.id for h in hands if h.table_id in played}
            for account, _ in people:
                mine = [r for r in rows if r.account_id == account]
                hand_silver = sum(r.delta for r in mine if r.hand_id in event_hands)
                prize = next(s["prize"] or 0 for s in standings if s["account_id"] == account)
                assert after[account] - before[account] == hand_silver + prize
                assert sum(r.delta for r in mine) == after[account]  # the ledger sums to it
                assert [r.reason for r in mine if r.hand_id is None and r.delta < 0] == [
                    "tournament_fee"]
            assert silver["events"] == 0 and silver["total"] == supply + PEOPLE * 10_000
        finally:
            await db.close()

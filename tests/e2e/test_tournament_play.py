"""A tournament played to its end on a real server (issue: tournaments, "How it is judged"):
64 seats, 16 people registered whose clients put every table they are seated at on 托管,
48 house bots, three Swiss rounds of two hands and a final table, bots at instant pace.
What holds at its end is `tests.tournaments.played.check_event`; the supply is explained
at every look while it plays."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import select

from app.store.db import Database
from app.store.models import HandRecord
from tests.api.helpers import make_admin, player
from tests.live import live_server, sqlite_settings
from tests.tournaments.played import (
    SIGNUP_GRANT,
    Person,
    balance,
    check_event,
    finished,
    make_event,
    on_tuoguan,
    silver,
    told_the_end,
)

ROUNDS, HANDS = 3, 2


async def test_a_64_seat_event_of_three_swiss_rounds_and_a_final_pays_its_pool(
    tmp_path: Path,
) -> None:
    settings = sqlite_settings(tmp_path / "event.db", bot_delay_ms=(0, 0),
                               tournament_poll_seconds=0.1)
    with live_server(settings) as (port, _):
        db = Database.connect(settings.database_url)
        address = f"127.0.0.1:{port}"
        try:
            async with asyncio.timeout(240), httpx.AsyncClient(base_url=f"http://{address}") as http:
                boss_id, boss = await player(http, "boss")
                await make_admin(db, boss_id)
                supply = (await silver(http, boss))["total"]
                people = [Person(*await player(http, f"entrant{n}")) for n in range(16)]
                event = await make_event(http, boss, seats=64, rounds=ROUNDS, hands=HANDS,
                                         start_in=4)
                for person in people:
                    done = await http.post(f"/tournaments/{event}/register", headers=person.headers)
                    assert done.status_code == 201, done.text
                before = {p.account: await balance(http, p) for p in people}
                stop = asyncio.Event()
                clients = [asyncio.create_task(on_tuoguan(p, [address], stop)) for p in people]
                await finished(http, boss, event)
                await told_the_end(people)
                stop.set()
                await asyncio.gather(*clients)
                await check_event(http, boss, db, event, people, before, rounds=ROUNDS,
                                  hands=HANDS)
                assert (await silver(http, boss))["events"] == 0
                assert (await silver(http, boss))["total"] == supply + 16 * SIGNUP_GRANT
        finally:
            await db.close()


async def test_a_round_of_one_quan_plays_until_the_deal_has_passed_four_times(
    tmp_path: Path,
) -> None:
    """Each round one 圈: every table plays until the deal has passed four times (its last
    hand ends the 圈), however many hands that takes."""
    settings = sqlite_settings(tmp_path / "quan.db", bot_delay_ms=(0, 0),
                               tournament_poll_seconds=0.1)
    with live_server(settings) as (port, _):
        db = Database.connect(settings.database_url)
        try:
            async with asyncio.timeout(120), httpx.AsyncClient(
                    base_url=f"http://127.0.0.1:{port}") as http:
                boss_id, boss = await player(http, "boss")
                await make_admin(db, boss_id)
                ann = Person(*await player(http, "entrant"))
                made = await http.post("/admin/tournaments", headers=boss, json={
                    "name": "一圈赛", "variant": "lishui", "stake": 1, "fee": 0, "seats": 8,
                    "rounds": 1, "length": {"unit": "quan", "count": 1}, "prize_shares": [1],
                    "timers": {"discard": 5, "claim": 2, "decide": 2, "ready": 1},
                    "starts_at": (datetime.now(UTC) + timedelta(seconds=2)).isoformat()})
                assert made.status_code == 201, made.text
                event = made.json()["id"]
                assert made.json()["length"] == {"unit": "quan", "count": 1}
                done = await http.post(f"/tournaments/{event}/register", headers=ann.headers)
                assert done.status_code == 201, done.text
                stop = asyncio.Event()
                client = asyncio.create_task(on_tuoguan(ann, [f"127.0.0.1:{port}"], stop))
                await finished(http, boss, event)
                stop.set()
                await client
                tables = (await http.get(f"/tournaments/{event}/standings")).json()["tables"]
            async with db.sessions() as s:
                for table in tables:
                    hands = (await s.execute(select(HandRecord).where(
                        HandRecord.table_id == table["table_id"]))).scalars().all()
                    ends = [bool(json.loads(h.result).get("round_end")) for h in sorted(
                        hands, key=lambda h: int(h.id.rsplit("-", 1)[1]))]
                    assert len(ends) >= 4 and ends[-1] and not any(ends[:-1])
        finally:
            await db.close()

"""A tournament played to its end on a real server (issue: tournaments, "How it is judged"):
64 seats, 16 people registered whose clients put every table they are seated at on 托管,
48 house bots, three Swiss rounds of two hands and a final table, bots at instant pace.
What holds at its end is `tests.tournaments.played.check_event`; the supply is explained
at every look while it plays."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from app.store.db import Database
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

"""While a player's tournament runs, the event alone seats them: sitting at a lobby table,
joining a private room and queueing for quick match are refused (`in_tournament`, naming
the event) and change nothing; once the event is over (or for a player who only watched it
register and left), they sit anywhere again."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
from sqlalchemy import update

from app.store.db import Database
from app.store.models import Tournament, TournamentEntry
from tests.api.helpers import assert_error, fund_house, player
from tests.tournaments.event_kit import made


async def test_a_player_whose_tournament_runs_sits_nowhere_else(
    client: httpx.AsyncClient, db: Database
) -> None:
    await fund_house(db)
    ann_id, ann = await player(client, "ann")
    _, bo = await player(client, "bob")
    event = await made(db, status="running")
    async with db.sessions() as s, s.begin():
        s.add(TournamentEntry(tournament_id=event.id, account_id=ann_id, status="playing",
                              number=0, bot=False, registrations=1,
                              registered_at=datetime.now(UTC)))
    opened = await client.post("/tables", json={"variant": "lishui", "stake": 1}, headers=bo)
    table_id = opened.json()["id"]
    room = await client.post("/rooms", json={"variant": "lishui", "stake": 1,
                                             "length": {"count": 4}}, headers=bo)
    code = room.json()["code"]

    refused = await client.post(f"/tables/{table_id}/sit", headers=ann)
    assert_error(refused, 409, "in_tournament")
    assert refused.json()["error"]["details"] == {"tournament_id": event.id}
    assert_error(await client.post(f"/rooms/{code}/join", headers=ann), 409, "in_tournament")
    assert_error(await client.post("/quick-match", json={"variant": "lishui", "level": "novice"},
                                   headers=ann), 409, "in_tournament")
    listed = {t["id"]: t["seats"] for t in (await client.get("/tables", headers=bo)).json()}
    assert ann_id not in listed[table_id]

    # a forfeit keeps the seats the event's; the end frees the player
    async with db.sessions() as s, s.begin():
        await s.execute(update(TournamentEntry).values(status="forfeited"))
    assert_error(await client.post(f"/tables/{table_id}/sit", headers=ann), 409, "in_tournament")
    async with db.sessions() as s, s.begin():
        await s.execute(update(Tournament).values(status="finished"))
    sat = await client.post(f"/tables/{table_id}/sit", headers=ann)
    assert sat.status_code == 200, sat.text

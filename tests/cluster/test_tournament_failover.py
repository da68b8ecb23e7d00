"""A tournament on two real server processes (one PostgreSQL or SQLite database, one
Redis) whose directing node is killed with SIGKILL in the middle of round 2: the other node
takes the event's lease and the tables over, the people's clients reconnect to it, and the
event finishes with the guarantees of one that was never interrupted
(`tests.tournaments.played.check_event`): no hand lost, every standing and prize right,
every silver explained."""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import select

from app.store.db import Database
from app.store.models import Tournament, TournamentTable
from tests.api.helpers import fund_house, make_admin, player
from tests.cluster.processes import Node
from tests.tournaments.played import (
    Person,
    balance,
    check_event,
    finished,
    make_event,
    on_tuoguan,
    told_the_end,
)

ROUNDS, HANDS = 3, 1


@pytest.fixture
def node_env() -> dict[str, str]:
    return {"BOT_DELAY_MS": "0", "TOURNAMENT_POLL_SECONDS": "0.1",
            "TOURNAMENT_LEASE_SECONDS": "1.5"}


async def _event(db: Database, event: int) -> Tournament:
    async with db.sessions() as s:
        found = await s.get(Tournament, event)
        assert found is not None
        return found


async def test_an_event_finishes_after_its_directing_node_is_killed_mid_round(
    nodes: tuple[Node, Node], cluster_database: str, redis: Redis, prefix: str
) -> None:
    db = Database.connect(cluster_database)
    await fund_house(db)  # the nodes start with no float: the house bots need one
    a, b = nodes
    stop = asyncio.Event()
    try:
        async with (
            asyncio.timeout(180),
            httpx.AsyncClient(base_url=f"http://{a.address}") as http_a,
            httpx.AsyncClient(base_url=f"http://{b.address}") as http_b,
        ):
            boss_id, boss = await player(http_a, "boss")
            await make_admin(db, boss_id)
            people, homes = [], []
            for n in range(16):  # half of them connected to each node
                home, other = (a, b) if n % 2 == 0 else (b, a)
                http = http_a if home is a else http_b
                people.append(Person(*await player(http, f"entrant{n}")))
                homes.append([home.address, other.address])
            event = await make_event(http_a, boss, seats=64, rounds=ROUNDS, hands=HANDS,
                                     start_in=4)
            for person in people:
                done = await http_a.post(f"/tournaments/{event}/register", headers=person.headers)
                assert done.status_code == 201, done.text
            before = {p.account: await balance(http_a, p) for p in people}
            clients = [asyncio.create_task(on_tuoguan(p, addresses, stop))
                       for p, addresses in zip(people, homes, strict=True)]

            # round 2 under way: kill the node that directs the event (and owns its tables)
            while (tournament := await _event(db, event)).round < 2:
                await asyncio.sleep(0.05)
            directing = a if tournament.director == "a" else b
            survivor, http = (b, http_b) if directing is a else (a, http_a)
            directing.process.send_signal(signal.SIGKILL)
            directing.process.wait(10)
            async with db.sessions() as s:
                at_kill = (await s.execute(select(TournamentTable.status).where(
                    TournamentTable.tournament_id == event, TournamentTable.round == 2)
                )).scalars().all()
            assert set(at_kill) != {"done"}  # killed mid-round: a table of round 2 still plays

            await finished(http, boss, event)
            await told_the_end(people)
            stop.set()
            await asyncio.gather(*clients)
            assert (await _event(db, event)).director == survivor.name
            moved = [p for p, addresses in zip(people, homes, strict=True)
                     if addresses[0] == directing.address]
            assert all(p.reconnects >= 1 for p in moved)
            await check_event(http, boss, db, event, people, before, rounds=ROUNDS, hands=HANDS,
                              every_move_told=False)
    finally:
        stop.set()
        await db.close()

"""Two real server processes on PostgreSQL and Redis; the database refuses connections for
a few seconds, and the node owning the tables is killed (SIGKILL) in the middle of that
outage, while the results of the hands that ended meanwhile are still unstored. The other
node takes the tables over from their journals, stores those hands once the database is
back, and only then shows them. Afterwards every hand any player saw end has exactly one
record and its ledger rows, and the ledger sums to every balance."""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest

from tests.cluster.processes import Node, Player, play, register
from tests.conftest import POSTGRES_URL
from tests.outage import check_hands_paid, refusing_connections
from tests.waits import until

pytestmark = pytest.mark.skipif(POSTGRES_URL is None, reason="needs TEST_DATABASE_URL")

TABLES = 2
TIMERS = {"discard": 5, "claim": 2, "decide": 2, "ready": 1}


def _ended(players: list[Player]) -> dict[str, list[int]]:
    return {h: list(e["net"]) for p in players for h, e in p.ended.items()}


async def _sit_again(http: httpx.AsyncClient, players: list[Player], stop: asyncio.Event) -> None:
    """What a client does when told it no longer sits at its table (`wrong_table`): sit
    down again. A player whose socket died with A, still away when the hand that ended
    during the outage is stored, has left the table by the rules (RULES.md 1) and may
    only be back once its socket is: the database it signs in with was down."""
    while not stop.is_set():
        for player in players:
            if "wrong_table" in player.errors:
                player.errors.clear()
                await http.post(f"/tables/{player.table_id}/sit", headers=player.headers)
        await asyncio.sleep(0.2)


def _pending(players: list[Player]) -> set[str]:
    """Hands seen won or drawn whose result (hand_ended) nobody was shown."""
    return {h for p in players for h in p.over} - set(_ended(players))


async def test_hands_pending_on_a_killed_owner_are_stored_and_shown_by_the_next(
    nodes: tuple[Node, Node], cluster_database: str
) -> None:
    a, b = nodes
    stop = asyncio.Event()
    players: list[Player] = []
    async with (
        asyncio.timeout(120),
        httpx.AsyncClient(base_url=f"http://{a.address}") as http_a,
        httpx.AsyncClient(base_url=f"http://{b.address}") as http_b,
    ):
        for t in range(TABLES):
            # two players of each table on A (their sockets die with it), two on B
            homes = (a, a, b, b)
            table = [await register(http_a, f"p{t}{i}", home.address)
                     for i, home in enumerate(homes)]
            created = await http_a.post("/tables", json={
                "variant": "lishui", "stake": 1, "timers": TIMERS}, headers=table[0].headers)
            assert created.status_code == 201, created.text
            for player in table:
                sat = await http_a.post(f"/tables/{created.json()['id']}/sit",
                                        headers=player.headers)
                assert sat.status_code == 200, sat.text
                player.table_id = created.json()["id"]
            players += table
        tasks = [asyncio.create_task(play(p, b.address, stop)) for p in players]
        tasks.append(asyncio.create_task(_sit_again(http_b, players, stop)))
        try:
            await until(lambda: len(_ended(players)) >= 2 * TABLES, 60, "hands before")
            async with refusing_connections(cluster_database):
                await asyncio.sleep(0.5)  # what A stored just before is shown by now
                before = set(_ended(players))
                # a hand is over on A, its result waiting there to be stored
                await until(lambda: _pending(players), 20, "a hand over during the outage")
                pending = _pending(players)
                a.process.send_signal(signal.SIGKILL)
                a.process.wait(5)
                # B takes the tables over and cannot store that hand either
                await until(lambda: "retrying until stored" in b.log.read_text(), 20,
                            "B to try to store a pending hand")
                assert set(_ended(players)) == before  # nothing shown while away
            # the database is back: B stores the pending hands, shows them, plays on
            await until(lambda: len(set(_ended(players)) - before) >= 2 * TABLES, 60,
                        "hands after the outage")
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    assert "took over table" in b.log.read_text()
    ended = _ended(players)
    assert pending <= set(ended)  # shown once B had stored them
    await check_hands_paid(cluster_database, ended, 1, ended)
    # every seat saw the same end of each hand it saw end
    for hand_id in ended:
        seen = {str(p.ended[hand_id]) for p in players if hand_id in p.ended}
        assert len(seen) == 1, hand_id

"""A tournament played to its end over real servers, for the e2e and cluster tests: people
whose clients put each table they are seated at on 托管 (reconnecting to another node when
their socket drops), the event made by an operator, and the checks that hold at its end:
every table played its hands, the draws follow the standings, the prizes are the pool by
the prize table, each person's silver changed by exactly their hands, their prize and their
fee, and the supply is explained."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import websockets
from sqlalchemy import select

from app.store.db import Database
from app.store.models import HandRecord, LedgerEntry, TournamentTable
from tests.wsclient import open_socket

FEE = 100
SHARES = [50, 30, 20]
SIGNUP_GRANT = 10_000


@dataclass
class Person:
    account: int
    headers: dict[str, str]
    tables: set[str] = field(default_factory=set)  # the tables they were seated at
    told: list[dict[str, Any]] = field(default_factory=list)  # `tournament` messages' events
    reconnects: int = 0

    @property
    def token(self) -> str:
        return self.headers["Authorization"].removeprefix("Bearer ")


async def on_tuoguan(person: Person, addresses: list[str], stop: asyncio.Event) -> None:
    """The person's client: asks 托管 at every table it is seated at (told `seated`); when
    its socket drops it connects to the next address and goes on."""
    turn = 0
    while not stop.is_set():
        try:
            ws = await open_socket(addresses[turn % len(addresses)], person.token)
        except (OSError, websockets.WebSocketException):
            turn += 1
            await asyncio.sleep(0.2)
            continue
        try:
            while not stop.is_set():
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                except TimeoutError:
                    continue
                table_id = message.get("table_id")
                if message.get("type") == "tournament":
                    person.told.append(message["tournament"])
                if message.get("type") == "seated":
                    person.tables.add(table_id)
                    await ws.send(json.dumps(
                        {"type": "autoplay", "table_id": table_id, "on": True}))
        except websockets.ConnectionClosed:
            person.reconnects += 1
            turn += 1
        finally:
            await ws.close()


async def make_event(http: httpx.AsyncClient, boss: dict[str, str], *, seats: int,
                     rounds: int, hands: int, start_in: float) -> int:
    made = await http.post("/admin/tournaments", headers=boss, json={
        "name": "冬至杯", "variant": "lishui", "stake": 1, "fee": FEE, "rake_bp": 1000,
        "seats": seats, "rounds": rounds, "final_table": True,
        "length": {"unit": "hands", "count": hands}, "prize_shares": SHARES,
        "timers": {"discard": 5, "claim": 2, "decide": 2, "ready": 1},
        "starts_at": (datetime.now(UTC) + timedelta(seconds=start_in)).isoformat(),
    })
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


async def silver(http: httpx.AsyncClient, boss: dict[str, str]) -> dict[str, Any]:
    body = (await http.get("/admin/silver", headers=boss)).json()
    assert body["unexplained"] == 0, body
    return dict(body)


async def balance(http: httpx.AsyncClient, person: Person) -> int:
    return int((await http.get("/me", headers=person.headers)).json()["balance"])


async def finished(http: httpx.AsyncClient, boss: dict[str, str], event: int) -> None:
    """Wait for the event's end, the supply explained at every look."""
    while (await http.get(f"/tournaments/{event}")).json()["status"] != "finished":
        await silver(http, boss)
        await asyncio.sleep(0.5)


async def told_the_end(people: list[Person]) -> None:
    """Wait until every person's client has been told the event's end."""
    async with asyncio.timeout(10):
        while not all(p.told and p.told[-1]["status"] == "finished" for p in people):
            await asyncio.sleep(0.05)


async def check_event(
    http: httpx.AsyncClient, boss: dict[str, str], db: Database, event: int,
    people: list[Person], before: dict[int, int], *, rounds: int, hands: int,
    every_move_told: bool = True,
) -> None:
    """What holds once the event is over (see the module's docstring). `every_move_told`:
    each person got a `tournament` message at every move (a killed director may take one
    with it; the last is told by its successor)."""
    final = (await http.get(f"/tournaments/{event}/standings")).json()
    read = (await http.get(f"/tournaments/{event}")).json()
    after = {p.account: await balance(http, p) for p in people}
    await silver(http, boss)
    assert read["status"] == "finished" and read["seed"] is not None
    seats = read["seats"]

    # every table of every round (and the final) played its hands, and each person was
    # told of every table they sat at
    tables = final["tables"]
    assert [t["round"] for t in tables] == [
        r for r in range(1, rounds + 1) for _ in range(seats // 4)] + [rounds + 1]
    assert all(t["status"] == "done" for t in tables)
    for person in people:
        assert person.tables == {t["table_id"] for t in tables if person.account in t["accounts"]}
    async with db.sessions() as s:
        records = (await s.execute(select(HandRecord))).scalars().all()
        rows = (await s.execute(select(LedgerEntry))).scalars().all()
        drawn = (await s.execute(select(TournamentTable).where(
            TournamentTable.tournament_id == event))).scalars().all()
    played = {t["table_id"] for t in tables}
    per_table: dict[str, int] = {}
    for record in records:
        if record.table_id in played and not record.voided:
            per_table[record.table_id] = per_table.get(record.table_id, 0) + 1
    assert per_table == dict.fromkeys(played, hands)

    # round 2 seats round 1's leaders at table 1; the final table the four best people
    first = {int(e): p for t in drawn if t.round == 1
             for e, (p, _) in json.loads(t.results or "{}").items()}
    leaders = json.loads(next(t.seats for t in drawn if (t.round, t.number) == (2, 1)))
    assert min(first[e] for e in leaders) >= max(p for e, p in first.items() if e not in leaders)
    standings = final["standings"]
    assert [s["place"] for s in standings] == list(range(1, seats + 1))
    finalists = next(t for t in tables if t["round"] == rounds + 1)["accounts"]
    swiss = {s["account_id"]: s["points"] for s in standings}
    humans = {p.account for p in people}
    assert set(finalists) <= humans
    assert min(swiss[a] for a in finalists) >= max(swiss[a] for a in humans - set(finalists))
    assert {s["account_id"] for s in standings[:4]} == set(finalists)
    at_final = [s["final_points"] for s in standings[:4]]
    assert at_final == sorted(at_final, reverse=True)

    # the pool (the fees less the 10% rake) by the prize table, to places 1-3
    pool = len(people) * FEE - len(people) * FEE // 10
    prizes = [s["prize"] for s in standings[:3]]
    assert prizes == [pool * share // sum(SHARES) for share in SHARES]
    assert sum(prizes) == pool
    assert all(not s["prize"] for s in standings[3:])
    assert all(s["prize"] is None for s in standings if s["bot"])

    # each person was told the event's moves: the start, every round drawn, the end
    for person in people:
        theirs = {t["round"]: t["table_id"] for t in tables if person.account in t["accounts"]}
        told = person.told if every_move_told else person.told[-1:]
        if every_move_told:
            assert [m["round"] for m in told] == [*range(1, rounds + 2), rounds + 1]
            assert [m["table_id"] for m in told[:-1]] == [
                theirs.get(r) for r in range(1, rounds + 2)]
        last = told[-1]
        assert last["status"] == "finished" and last["table_id"] is None
        assert last["standings"] == standings

    # each person's silver: exactly their hands and their prize, after their fee
    event_hands = {r.id for r in records if r.table_id in played}
    for person in people:
        mine = [r for r in rows if r.account_id == person.account]
        hand_silver = sum(r.delta for r in mine if r.hand_id in event_hands)
        prize = next(s["prize"] or 0 for s in standings if s["account_id"] == person.account)
        assert after[person.account] - before[person.account] == hand_silver + prize
        assert sum(r.delta for r in mine) == after[person.account]  # the ledger sums to it
        assert [r.reason for r in mine if r.hand_id is None and r.delta < 0] == [
            "tournament_fee"]

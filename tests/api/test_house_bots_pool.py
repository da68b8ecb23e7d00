"""A fill of house bots costs about the seats it fills: it reads a page of the bot pool and
looks up only those bots' seats, never every table, however large the pool and the lobby;
every table is read only when no bot is free (to reap the tables only bots sit at)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import house_bots
from app.main import create_app
from app.settings import Settings
from app.store import accounts, house
from app.store.db import Database
from app.store.models import Account, Tournament, TournamentEntry
from app.tables.registry import TableRegistry
from tests.api.helpers import assert_error, fund_house, player
from tests.tournaments.event_kit import NOW, made

POOL = 300
TABLES = 12


@asynccontextmanager
async def _server(settings: Settings, **changes: Any) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    application = create_app(settings.model_copy(update=changes))
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield application, http


class OtherNodes:
    """The seat claims of a cluster whose other nodes seat `elsewhere` (the tables there are
    not this test's concern: only that those accounts sit somewhere)."""

    def __init__(self, elsewhere: set[int]) -> None:
        self.elsewhere = elsewhere
        self.asked: list[int] = []

    async def claim_seat(self, account_id: int, table_id: str) -> str:
        return "table-on-another-node" if account_id in self.elsewhere else table_id

    def release_seat(self, account_id: int, table_id: str) -> None:
        return

    async def seated(self, account_ids: Sequence[int]) -> set[int]:
        self.asked += account_ids
        return self.elsewhere & set(account_ids)

    async def banned(self, account_id: int) -> None:
        return


class Reads:
    """What a fill reads: the pool's rows and the listings of every table."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, registry: TableRegistry) -> None:
        self.rows = 0
        self.listings = 0
        bots, every_table = house.bots, house_bots.every_table

        async def counted_bots(session: AsyncSession, *args: Any) -> list[house.Bot]:
            found = await bots(session, *args)
            self.rows += len(found)
            return found

        async def counted_tables(registry: TableRegistry) -> list[dict[str, Any]]:
            self.listings += 1
            return await every_table(registry)

        monkeypatch.setattr(house, "bots", counted_bots)
        monkeypatch.setattr(house_bots, "every_table", counted_tables)
        for name in ("seated_accounts", "all"):  # this node's every table
            method = getattr(registry, name)

            def counted(*args: Any, method: Any = method) -> Any:
                self.listings += 1
                return method(*args)

            monkeypatch.setattr(registry, name, counted)

    def clear(self) -> None:
        self.rows = self.listings = 0


async def _bots(db: Database, n: int) -> list[int]:
    """`n` bot accounts of the pool, made as a fill makes them (0 silver)."""
    async with db.sessions() as s, s.begin():
        made = [await accounts.create(s, f"{house.BOT_PREFIX}{i}", house.NO_PASSWORD)
                for i in range(1, n + 1)]
        return [a.id for a in made]


async def _count_bots(db: Database) -> int:
    async with db.sessions() as s:
        return int((await s.execute(select(func.count()).select_from(Account)
                                    .where(Account.username.startswith("bot-")))).scalar_one())


async def test_a_fill_reads_a_page_of_the_pool_and_no_table(
    settings: Settings, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _server(settings, bot_pool_size=POOL, bot_seats_per_hour=10_000) as (app, http):
        await fund_house(db)
        pool = await _bots(db, POOL)
        tables = []
        for i in range(TABLES):  # a lobby of tables, each with a player
            _, headers = await player(http, f"player{i}")
            opened = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                     headers=headers)
            assert opened.status_code == 201, opened.text
            table_id = opened.json()["id"]
            assert (await http.post(f"/tables/{table_id}/sit", headers=headers)).status_code == 200
            tables.append((table_id, headers))
        registry: TableRegistry = app.state.tables
        others = OtherNodes(set())
        registry.seating.claims = others
        reads = Reads(monkeypatch, registry)

        # every bot idle: each fill of 3 seats reads one page of the pool, lists no table,
        # and asks only about the bots of that page
        for table_id, headers in tables[:4]:
            reads.clear()
            others.asked.clear()
            filled = await http.post(f"/tables/{table_id}/fill-bots", headers=headers)
            assert filled.status_code == 200, filled.text
            assert filled.json()["seats_taken"] == 4
            assert reads.rows <= house_bots.POOL_PAGE and reads.listings == 0
            assert len(others.asked) <= house_bots.POOL_PAGE
        assert await _count_bots(db) == POOL  # idle bots were taken, none made

        # all but three bots sit at tables of other nodes: the fill looks for the three
        # (the pool is full: no new bot may be made), still without listing a table
        listed = (await http.get("/tables", headers=tables[0][1])).json()
        seated_here = {a for t in listed for a in t["seats"] if a is not None}
        free = [b for b in pool if b not in seated_here][-3:]
        others.elsewhere = set(pool) - set(free) - seated_here
        reads.clear()
        table_id, headers = tables[4]
        filled = await http.post(f"/tables/{table_id}/fill-bots", headers=headers)
        assert filled.status_code == 200, filled.text
        assert set(filled.json()["seats"]) - {None} >= set(free)
        assert reads.listings == 0 and reads.rows <= POOL
        assert await _count_bots(db) == POOL

        # no bot free at all: only now is every table read (to reap tables only bots sit
        # at: none here), and the fill is refused with nothing moved
        reads.clear()
        table_id, headers = tables[5]
        refused = await http.post(f"/tables/{table_id}/fill-bots", headers=headers)
        assert_error(refused, 503, "no_bots_free")
        assert reads.listings >= 1
        assert await _count_bots(db) == POOL


async def test_a_fill_never_takes_the_bots_of_a_running_tournament(
    settings: Settings, db: Database
) -> None:
    """Between two rounds an event's house bots sit nowhere, yet they are the event's: a
    fill that took them would leave the next round's seats to be refused."""
    async with _server(settings, bot_pool_size=4, bot_seats_per_hour=10_000) as (_, http):
        await fund_house(db)
        pool = await _bots(db, 4)
        event = await made(db, status="running")
        async with db.sessions() as s, s.begin():
            for number, bot in enumerate(pool[:3]):
                s.add(TournamentEntry(tournament_id=event.id, account_id=bot, status="playing",
                                      number=number, bot=True, registrations=0,
                                      registered_at=NOW))
        _, headers = await player(http, "host")
        opened = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                 headers=headers)
        table_id = opened.json()["id"]
        assert (await http.post(f"/tables/{table_id}/sit", headers=headers)).status_code == 200
        # three seats to fill, one bot free and the pool full: refused, nothing seated
        assert_error(await http.post(f"/tables/{table_id}/fill-bots", headers=headers),
                     503, "no_bots_free")
        async with db.sessions() as s, s.begin():
            (await s.get(Tournament, event.id)).status = "finished"  # type: ignore[union-attr]
        filled = await http.post(f"/tables/{table_id}/fill-bots", headers=headers)
        assert filled.status_code == 200, filled.text  # over: its bots are the house's again
        assert filled.json()["seats_taken"] == 4

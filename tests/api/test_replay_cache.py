"""A replay is built once and kept (app/api/replay_cache.py): an attack run found that every
`GET /hands/{id}/replay?views=true` rebuilt its hand on the event loop, so five accounts
replaying in a loop cut the other tables' hands per minute by 42%. Now the same request
again is answered from what was kept, byte for byte; a seat's view answers only that seat;
and an account that has too many replays built gets 429 `rate_limited` while others are
still served."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.api.errors import ApiError
from app.api.ratelimit import MemoryQuota
from app.api.replay import ReplayOut
from app.api.replay_build import Built, StoredHand
from app.api.replay_cache import ReplayCache
from app.settings import Settings
from app.store.db import Database
from app.store.models import AuditLog, HandRecord
from app.tables.messages import Autoplay
from app.tables.registry import TableRegistry
from tests.api.helpers import admin, assert_error, fund_house, player
from tests.sinks import LONG

T = TypeVar("T")
BUDGET = 3  # replay builds per account and window in these tests


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"replay_builds_per_account": BUDGET})


async def _played_hand(
    client: httpx.AsyncClient, app: FastAPI, db: Database, people: list[str]
) -> tuple[str, list[dict[str, str]]]:
    """`people` sit at seats 0, 1, ... on 托管 and house bots fill the rest; one 丽水 hand is
    played to its end. Its id and each person's auth header, by seat."""
    await fund_house(db)
    headers = [(await player(client, name))[1] for name in people]
    made = await client.post("/tables", json={"variant": "lishui", "stake": 2,
                                              "timers": LONG}, headers=headers[0])
    table_id = made.json()["id"]
    registry: TableRegistry = app.state.tables
    for seat, auth in enumerate(headers):
        sat = await client.post(f"/tables/{table_id}/sit", json={"seat": seat}, headers=auth)
        assert sat.status_code == 200, sat.text
        # before the deal: the server plays
        registry.require(table_id).table.submit(Autoplay(seat, True))
    filled = await client.post(f"/tables/{table_id}/fill-bots", headers=headers[0])
    assert filled.status_code == 200, filled.text
    async with asyncio.timeout(20):
        while True:
            async with db.sessions() as s:
                found = (await s.execute(
                    select(HandRecord.id).where(HandRecord.table_id == table_id)
                )).scalars().first()
            if found is not None:
                return found, headers
            await asyncio.sleep(0.05)


def _replays(app: FastAPI) -> ReplayCache:
    replays: ReplayCache = app.state.replays
    return replays


def _dealt(replay: dict[str, Any]) -> list[bool]:
    """Per seat, whether the viewer saw its dealt tiles."""
    dealt = {e["seat"]: e["tiles"] is not None for e in replay["events"] if e["kind"] == "dealt"}
    return [dealt[s] for s in range(4)]


async def test_the_same_replay_again_is_the_kept_one_byte_for_byte(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, (ann,) = await _played_hand(client, app, db, ["ann"])
    url = f"/hands/{hand_id}/replay"
    first = await client.get(url, params={"views": True}, headers=ann)
    assert first.status_code == 200, first.text
    assert _replays(app).builds == 1
    again = await client.get(url, params={"views": True}, headers=ann)
    mine = await client.get(url, params={"views": True, "seat": 0}, headers=ann)  # the same view
    assert _replays(app).builds == 1  # neither was built again
    assert again.content == first.content and mine.content == first.content
    assert again.headers["content-type"] == "application/json"
    # the answer is exactly what pydantic writes for it: nothing lost or reordered in the
    # splice of the kept parts
    parsed = ReplayOut.model_validate_json(first.content)
    assert parsed.model_dump_json().encode() == first.content
    assert parsed.steps and parsed.seat == 0 and _dealt(first.json()) == [True] + [False] * 3

    # without views it is a replay of its own, built once too
    light = await client.get(url, headers=ann)
    assert light.json()["steps"] is None and light.json()["events"] == first.json()["events"]
    assert (await client.get(url, headers=ann)).content == light.content
    assert _replays(app).builds == 2

    # several at once, none kept yet: one build answers them all
    _, boss = await admin(client, db)
    answers = await asyncio.gather(*(
        client.get(url, params={"views": True}, headers=boss) for _ in range(4)
    ))
    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1 and _replays(app).builds == 3
    assert _dealt(answers[0].json()) == [True] * 4  # an administrator's: every seat's tiles


async def test_a_seats_kept_view_never_answers_another_seat(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hand_id, (ann, bob) = await _played_hand(client, app, db, ["ann", "bob"])
    url = f"/hands/{hand_id}/replay"
    anns = (await client.get(url, params={"views": True}, headers=ann)).json()
    bobs = (await client.get(url, params={"views": True}, headers=bob)).json()
    assert (anns["seat"], bobs["seat"]) == (0, 1)
    assert _dealt(anns) == [True, False, False, False]
    assert _dealt(bobs) == [False, True, False, False]
    for step in bobs["steps"][:-1]:  # bob's own tiles until the end reveals every hand
        assert [s["hand"] is not None for s in step["view"]["seats"]] == [
            False, True, False, False
        ]
    assert _replays(app).builds == 2
    # bob may not ask for ann's seat, kept or not
    assert_error(await client.get(url, params={"views": True, "seat": 0}, headers=bob),
                 403, "forbidden")
    # an administrator asking for seat 1 sees what bob saw, and seat 2 as seat 2 saw it
    _, boss = await admin(client, db)
    as_one = await client.get(url, params={"views": True, "seat": 1}, headers=boss)
    assert as_one.json()["events"] == bobs["events"] and as_one.json()["steps"] == bobs["steps"]
    as_two = (await client.get(url, params={"views": True, "seat": 2}, headers=boss)).json()
    assert _dealt(as_two) == [False, False, True, False]


async def test_an_account_past_its_builds_is_refused_while_others_are_served(
    client: httpx.AsyncClient, app: FastAPI, db: Database
) -> None:
    hands = [await _played_hand(client, app, db, [f"p{n}x"]) for n in range(2)]
    (first, (ann,)), (second, (bea,)) = hands
    _, boss = await admin(client, db)
    # the administrator floods: every (hand, seat, views) it asks for is a new build
    asked = [(first, seat, views) for seat in (0, 1) for views in (False, True)]
    answers = [
        await client.get(f"/hands/{hand}/replay", params={"seat": seat, "views": views},
                         headers=boss)
        for hand, seat, views in asked
    ]
    assert [a.status_code for a in answers[:BUDGET]] == [200] * BUDGET
    refused = assert_error(answers[BUDGET], 429, "rate_limited")
    wait = refused["details"]["retry_after"]
    assert isinstance(wait, int) and 1 <= wait <= 60
    assert answers[BUDGET].headers["retry-after"] == str(wait)
    assert _replays(app).builds == BUDGET
    # what it had built is still served, and costs it nothing
    kept = await client.get(f"/hands/{first}/replay", params={"seat": 0}, headers=boss)
    assert kept.content == answers[0].content
    # another account is served meanwhile: a new build, and one the flood had kept
    assert (await client.get(f"/hands/{second}/replay", params={"views": True},
                             headers=bea)).status_code == 200
    assert (await client.get(f"/hands/{first}/replay", params={"views": True},
                             headers=ann)).status_code == 200
    assert _replays(app).builds == BUDGET + 1
    # only the reads that were answered are audited
    async with db.sessions() as s:
        audited = (await s.execute(
            select(AuditLog).where(AuditLog.action == "replay_hand")
        )).scalars().all()
    assert len(audited) == BUDGET + 1


# --- the cache itself, with builds that finish when a test says so ---------------------------


class _Held(Executor):
    """An executor whose jobs wait until the test ends them."""

    def __init__(self) -> None:
        self.jobs: list[Future[Any]] = []

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        job: Future[T] = Future()
        self.jobs.append(job)
        return job


def _hand() -> StoredHand:
    return StoredHand(variant="lishui", seed="00", ctx="{}", actions="[]")


async def test_more_builds_than_a_node_may_hold_answer_busy_and_a_dead_worker_is_replaced(
) -> None:
    made: list[_Held] = []

    def executor() -> _Held:
        made.append(_Held())
        return made[-1]

    cache = ReplayCache(1000, MemoryQuota(100, 60), executor, waiting=2)
    first = cache.get(("h1", 0, True), 1, _hand)
    cache.get(("h2", 0, True), 2, _hand)
    with pytest.raises(ApiError) as busy:
        cache.get(("h3", 0, True), 3, _hand)
    assert busy.value.code == "busy" and busy.value.headers == {"Retry-After": "1"}
    joined = cache.get(("h1", 0, True), 4, _hand)  # the same replay: waits for its build
    assert cache.builds == 2 and len(made[0].jobs) == 2

    made[0].jobs[0].set_exception(BrokenProcessPool("a worker died"))
    for waiting in (first, joined):
        with pytest.raises(BrokenProcessPool):
            await waiting
    again = cache.get(("h1", 0, True), 1, _hand)  # not kept: built again, by a new pool
    assert len(made) == 2 and cache.builds == 3
    made[1].jobs[0].set_result(Built(b"[]", b"[]"))
    assert await again == Built(b"[]", b"[]")
    await asyncio.sleep(0)  # the build's end is handled
    assert await cache.get(("h1", 0, True), 1, _hand) == Built(b"[]", b"[]")
    assert cache.builds == 3


async def test_kept_replays_are_bounded_by_their_bytes() -> None:
    held = _Held()
    cache = ReplayCache(100, MemoryQuota(100, 60), lambda: held)

    async def built(name: str, size: int) -> None:
        answer = cache.get((name, None, False), 1, _hand)
        held.jobs[-1].set_result(Built(b"x" * size, None))
        assert len((await answer).events) == size

    await built("a", 40)
    await built("b", 40)
    await cache.get(("a", None, False), 1, _hand)  # used: "b" is now the first to go
    await built("c", 40)
    assert cache.bytes == 80 and cache.builds == 3
    await cache.get(("a", None, False), 1, _hand)
    await cache.get(("c", None, False), 1, _hand)
    assert cache.builds == 3  # both kept
    await built("big", 101)  # larger than the whole cache: answered, never kept
    assert cache.bytes == 80 and cache.builds == 4
    await built("b", 40)  # dropped: built again
    assert cache.builds == 5

"""The load test's set-up treats 503 `busy` as a client should: retry after Retry-After, for
as long as a patient client would (a node shedding new work says when to come back)."""

from __future__ import annotations

import httpx
import pytest

from app.loadtest import worker
from app.loadtest.worker import post

BUSY = {"error": {"code": "busy", "message": "the server is busy; try again", "details": None}}


def _server(busy_answers: int) -> tuple[httpx.AsyncClient, list[int]]:
    calls: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) <= busy_answers:
            return httpx.Response(503, json=BUSY, headers={"Retry-After": "0"})
        return httpx.Response(200, json={"seat": 3})

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer), base_url="http://t")
    return client, calls


async def test_a_busy_answer_is_retried_until_it_succeeds() -> None:
    client, calls = _server(busy_answers=2)
    async with client:
        assert await post(client, "/tables/T1/sit", "sit", json={"seat": 3}) == {"seat": 3}
    assert len(calls) == 3


async def test_a_server_that_stays_busy_fails_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "BUSY_PATIENCE", 0.2)
    client, calls = _server(busy_answers=10**9)
    async with client:
        with pytest.raises(RuntimeError, match="sit: HTTP 503"):
            await post(client, "/tables/T1/sit", "sit", json={"seat": 3})
    assert len(calls) > 1

"""The published protocol schema holds for what a real server sends: two hands of each of
the five variants over real WebSockets (the tables play at once), with a ping, a resume
answered by a snapshot and a refused action on the way. Every message the clients receive
is validated against `/protocol/schema.json` as the server serves it (tests/contract.py,
tests/e2e/conftest.py); this test also makes sure every kind of server message was among
them."""

from __future__ import annotations

import asyncio

import httpx

from app.protocol.schema import asyncapi_document, protocol_schema
from app.rules.variants import VARIANTS
from tests import contract
from tests.e2e.test_ws_hand import Player
from tests.e2e.test_ws_variants import Server, _play, _players, _public_table, server

__all__ = ["server"]  # the fixture: a real server

HANDS = 1


async def _table(server: Server, http: httpx.AsyncClient, variant: str) -> None:
    players = await _players(http, f"c{variant[:4]}")
    table_id = await _public_table(server, http, players, variant)
    first: Player = players[0]
    await first.send({"type": "ping", "nonce": variant})
    for _ in range(HANDS):
        await asyncio.gather(*(_play(p, table_id) for p in players))
    # between hands: a resume from a seq the table never sent gets a snapshot, an action
    # is refused (not_in_hand), and a ready (准备) shows in table_state
    await first.send({"type": "resume", "table_id": table_id, "last_seq": 10**9})
    await first.send({"type": "action", "table_id": table_id, "seq": first.last_seq,
                      "action": {"type": "pass"}})
    await first.send({"type": "ready", "table_id": table_id})
    answered: set[str] = set()
    while not {"snapshot", "error", "ready"} <= answered:
        message = await first.inbox.get()
        answered.add(message["type"])
        if message["type"] == "table_state" and message["seats"][first.seat]["ready"]:
            answered.add("ready")
    for p in players:
        assert p.ws is not None
        await p.ws.close()


async def test_every_message_of_real_hands_of_every_variant_follows_the_schema(
    server: Server,
) -> None:
    async with asyncio.timeout(90), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        published = (await http.get("/protocol/schema.json")).json()
        assert published == protocol_schema()
        assert (await http.get("/protocol/asyncapi.json")).json() == asyncapi_document()

        await asyncio.gather(*(_table(server, http, v) for v in sorted(VARIANTS)))

    seen = set(contract.SEEN)
    assert {"seated", "table_state", "event", "prompt", "pong", "snapshot", "error"} <= seen
    kinds = {"hand_started", "dealt", "wild_turned", "decided", "flowered", "drew",
             "discarded", "hand_ended"}
    assert {f"event.{k}" for k in kinds} <= seen, seen
    assert seen & {"event.won", "event.exhaustive_draw"}
    assert contract.SEEN["event.hand_ended"] == 4 * HANDS * len(VARIANTS)

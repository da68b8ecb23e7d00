"""A player's own 托管 level over real WebSockets: a level not offered (新手) is refused with
`validation_error` naming the field and switches nothing on; 托管 at expert is shown to every
seat in `table_state` (`autoplay_level`)."""

from __future__ import annotations

import asyncio

import httpx

from tests.e2e import test_ws_variants
from tests.e2e.test_ws_tables import _seat, _sit, _state, _table
from tests.e2e.test_ws_variants import Server, _close, _connect, _players

server = test_ws_variants.server  # the fixture: a real server with the admin test mode on


async def test_a_level_not_offered_is_refused_and_expert_is_shown_to_every_seat(
    server: Server,
) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        ann, bo = (await _players(http, "autolevel"))[:2]
        table_id = await _table(http, ann, {"discard": 30, "claim": 30, "ready": 30})
        for p in (ann, bo):
            await _connect(server, p)
            await _sit(http, p, table_id)
        await ann.send({"type": "autoplay", "table_id": table_id, "on": True, "level": "beginner"})
        refused, _ = await ann.next_of("error")
        assert refused["code"] == "validation_error"
        assert refused["message"].startswith("level:")
        await ann.send({"type": "autoplay", "table_id": table_id, "on": True, "level": "expert"})
        # the first table_state with seat 0 on 托管 is the expert one: the refused message
        # had switched nothing on
        for player in (ann, bo):
            state = await _state(player, lambda m: _seat(m, 0)["autoplay"])
            assert _seat(state, 0)["autoplay_level"] == "expert"
            assert _seat(state, 1)["autoplay_level"] == "standard"
        await _close([ann, bo])

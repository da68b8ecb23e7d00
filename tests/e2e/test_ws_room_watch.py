"""Spectators (旁观) of a private room's table are told of the room as its players are
(issue 36, item 3; docs/protocol.md, "room"), over real WebSockets: the session's progress
after each hand, a dissolve vote asked and decided, and the session's end with its final
scoreboard, without polling `GET /rooms/{code}`. What they are sent is the very object the
seats are sent, which `GET /rooms/{code}` shows anyone holding the code: nothing a seat
would not show, never a tile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from tests.e2e import test_ws_variants
from tests.e2e.test_ws_hand import Message, Player
from tests.e2e.test_ws_rooms import SLOW, _join, _room, _room_message
from tests.e2e.test_ws_variants import Server, _close, _connect, _players

server = test_ws_variants.server  # the fixture: a real server (admin test mode on)


async def _watch(server: Server, spectator: Player, table_id: str, code: str) -> None:
    await _connect(server, spectator)
    await spectator.send({"type": "watch", "table_id": table_id, "code": code})
    watching, skipped = await spectator.next_of("watching")
    assert watching["table_id"] == table_id
    assert not [m for m in skipped if m["type"] == "error"], skipped


async def _rooms_until(player: Player, last: Callable[[Message], bool]) -> list[Message]:
    """Every message up to the `room` message that satisfies `last` (included)."""
    seen: list[Message] = []
    await _room_message(player, last, seen)
    return seen


def _over(room: Message) -> bool:
    return room["status"] != "open"


def _rooms(seen: list[Message]) -> list[Message]:
    return [dict(m["room"]) for m in seen if m["type"] == "room"]


async def test_a_spectator_is_told_the_sessions_progress_and_its_end(server: Server) -> None:
    async with asyncio.timeout(90), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "shown")
        spectator = (await _players(http, "eye"))[0]
        room = await _room(http, players[0], spectators=True)
        code, table_id = room["code"], room["table_id"]
        await _watch(server, spectator, table_id, code)
        for p in players:
            await _connect(server, p)
            await _join(http, p, code)
        for p in players:  # 托管: the server plays every seat at once
            await p.send({"type": "autoplay", "table_id": table_id, "on": True})

        watched, played = await asyncio.gather(
            _rooms_until(spectator, _over), _rooms_until(players[0], _over))

        told = _rooms(watched)
        assert [r["hands_played"] for r in told] == [1, 2]
        assert told[-1]["status"] == "ended" and told[-1]["scoreboard"]["hands"]
        # the same object the owner is sent, each time
        assert told == _rooms(played)
        # each progress after the hand it counts, as a seat sees it
        hands_ended = 0
        for message in watched:
            if message["type"] == "event" and message["event"]["kind"] == "hand_ended":
                hands_ended += 1
            elif message["type"] == "room":
                assert message["room"]["hands_played"] == hands_ended
        # an observer's view all along: no seat's concealed tiles
        dealt = [m for m in watched if m["type"] == "event" and m["event"]["kind"] == "dealt"]
        assert len(dealt) == 8 and all(m["event"]["tiles"] is None for m in dealt)
        await _close([*players, spectator])


async def test_a_spectator_is_told_a_dissolve_vote_and_the_room_dissolved(
    server: Server,
) -> None:
    """The vote is asked and decided through REST, on any node; the room ends after its
    table has closed (the spectator is told `no_table` first): both reach the spectator."""
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        owner, guest = (await _players(http, "voted"))[:2]
        spectator = (await _players(http, "onlooker"))[0]
        room = await _room(http, owner, timers=SLOW, length={"count": 8}, spectators=True)
        code, table_id = room["code"], room["table_id"]
        await _watch(server, spectator, table_id, code)
        for p in (owner, guest):
            await _connect(server, p)
            await _join(http, p, code)
        bots = await http.post(f"/tables/{table_id}/fill-bots", headers=owner.headers)
        assert bots.status_code == 200, bots.text

        asked = await http.post(f"/rooms/{code}/dissolve", headers=guest.headers)
        assert asked.status_code == 200, asked.text
        vote = await _room_message(spectator, lambda r: r["vote"] is not None)
        assert vote == asked.json()  # what the asker was answered, as it was then
        agreed = await http.post(f"/rooms/{code}/vote", json={"agree": True},
                                 headers=owner.headers)
        assert agreed.status_code == 200, agreed.text
        seen: list[Message] = []
        dissolved = await _room_message(spectator, lambda r: r["status"] == "dissolved", seen)
        assert dissolved == agreed.json()
        assert dissolved["scoreboard"]["hands"][0]["outcome"] == "voided"
        assert "no_table" in [m.get("code") for m in seen if m["type"] == "error"]
        await _close([owner, guest, spectator])

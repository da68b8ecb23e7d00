"""Spectators (旁观) and quick chat (快捷语) over real WebSockets (issue 17, items 3 and 4):
a spectator that never reads is dropped (4009) while its table plays on and another
spectator sees every hand; a table takes a bounded number of spectators; a seated player's
phrase reaches the table and its spectators, within a rate limit, except those who muted
the player; a phrase not in the list, a spectator's chat and a spectator's action are
refused with a code and change nothing. (What a spectator sees of 50 hands, compared with
the stored hands: tests/e2e/test_ws_hostile.py.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_ws_edge import SEND_BUFFER, RawClient, _server
from tests.e2e.test_ws_hand import Message, Player, _register
from tests.e2e.test_ws_hostile import _host
from tests.wsclient import open_socket

# ws_watch_queue_bytes of the stalled spectator's server: the default, more than a whole
# hand's events (bots at once: a hand is played in one go, and queued so)
WATCH_QUEUE = 64 * 1024
HANDS_ON = 20  # hands the table plays after the stalled spectator starts watching


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A server taking at most 2 spectators a table, and a phrase a second after a burst of
    three."""
    with _server(tmp_path, max_spectators_per_table=2, chat_burst=3,
                 chat_refill_seconds=1.0) as address:
        yield address


async def _connected(http: httpx.AsyncClient, server: str, name: str) -> Player:
    player = await _register(http, name, 0)
    player.ws = await open_socket(server, player.token, max_queue=None)
    return player


async def _next(player: Player, wanted: Callable[[Message], bool]) -> Message:
    """The next message `wanted` picks (the others are dropped)."""
    while True:
        message = await asyncio.wait_for(player.inbox.get(), 30)
        if wanted(message):
            return message


def _typed(kind: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == kind


def _code(code: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == "error" and m["code"] == code


async def test_a_stalled_spectator_is_dropped_and_the_table_plays_on(tmp_path: Path) -> None:
    settings = {"ws_watch_queue_bytes": WATCH_QUEUE, "ws_send_timeout": 300.0,
                "ws_ping_interval": 300.0}
    with _server(tmp_path, SEND_BUFFER, **settings) as address:
        async with asyncio.timeout(120), \
                httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as http:
            host = await _connected(http, address, "host")
            eye = await _connected(http, address, "eye")  # a spectator who reads
            tasks = [asyncio.create_task(p.pump()) for p in (host, eye)]
            table = (await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                     headers=host.headers)).json()["id"]
            await http.post(f"/tables/{table}/sit", json={"seat": 0}, headers=host.headers)
            await http.post(f"/tables/{table}/fill-bots", headers=host.headers)
            tasks.append(asyncio.create_task(_host(host, table)))
            await eye.send({"type": "watch", "table_id": table})
            await _next(eye, _typed("watching"))
            deaf = (await _register(http, "deaf", 0)).token
            stalled = await RawClient.open(address, deaf)
            await stalled.send(json.dumps({"type": "watch", "table_id": table}))
            # the table plays on at its pace: HANDS_ON hands, every one seen by the
            # spectator who reads; meanwhile the one who does not is dropped
            counts: list[int] = []
            hands = 0
            while hands < HANDS_ON or 2 not in counts or counts[-1] != 1:
                message = await _next(eye, lambda m: m["type"] == "table_state" or (
                    m["type"] == "event" and m["event"]["kind"] == "hand_ended"))
                if message["type"] == "table_state":
                    counts.append(message["spectators"])
                else:
                    hands += 1
                assert hands < 5 * HANDS_ON, counts  # dropped long before
            _, code = await stalled.rest()  # reading at last: what waited, then the close
            stalled.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    assert counts[counts.index(2):][-1] == 1  # two watched, then the stalled one was gone
    assert code == 4009


async def test_the_spectators_of_a_table_are_bounded(server: str) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server}") as http:
        host = await _connected(http, server, "host")
        eyes = [await _connected(http, server, f"eye{n}") for n in range(3)]
        tasks = [asyncio.create_task(p.pump()) for p in (host, *eyes)]
        table = (await http.post("/tables", json={"variant": "wenzhou", "stake": 1},
                                 headers=host.headers)).json()["id"]
        await http.post(f"/tables/{table}/sit", json={"seat": 0}, headers=host.headers)
        await host.send({"type": "watch", "table_id": table})  # not one's own table
        assert (await _next(host, _typed("error")))["code"] == "seated_here"
        for eye in eyes[:2]:
            await eye.send({"type": "watch", "table_id": table})
            watching = await _next(eye, _typed("watching"))
            assert watching["variant"] == "wenzhou" and watching["seq"] == 0
        await eyes[2].send({"type": "watch", "table_id": table})
        assert (await _next(eyes[2], _typed("error")))["code"] == "spectators_full"
        await eyes[2].send({"type": "watch", "table_id": "nosuchtable"})
        assert (await _next(eyes[2], _typed("error")))["code"] == "no_table"
        # one leaves: there is room again, and the seats are told how many watch
        await eyes[0].send({"type": "unwatch", "table_id": table})
        await _next(host, lambda m: m["type"] == "table_state" and m["spectators"] == 1)
        await eyes[2].send({"type": "watch", "table_id": table})
        assert (await _next(eyes[2], _typed("watching")))["spectators"] == 2
        await _next(host, lambda m: m["type"] == "table_state" and m["spectators"] == 2)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_quick_chat_its_limit_and_mutes(server: str) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server}") as http:
        ann, bo = await _connected(http, server, "ann"), await _connected(http, server, "bob")
        eye = await _connected(http, server, "eye")
        everyone = (ann, bo, eye)
        tasks = [asyncio.create_task(p.pump()) for p in everyone]
        table = (await http.post("/tables", json={"variant": "fuzhou", "stake": 1},
                                 headers=ann.headers)).json()["id"]
        for seat, player in enumerate((ann, bo)):
            await http.post(f"/tables/{table}/sit", json={"seat": seat}, headers=player.headers)
        await eye.send({"type": "watch", "table_id": table})
        await _next(eye, _typed("watching"))

        def chat(phrase: str) -> Message:
            return {"type": "chat", "table_id": table, "phrase": phrase}

        # a phrase not in the list: refused at the edge, nobody hears anything
        await ann.send(chat("you are all fools"))
        refused = await _next(ann, _typed("error"))
        assert refused["code"] == "validation_error" and "phrase" in refused["message"]
        # a spectator neither chats nor plays
        await eye.send(chat("hurry"))
        assert (await _next(eye, _typed("error")))["code"] == "wrong_table"
        await eye.send({"type": "action", "table_id": table, "seq": 0,
                        "action": {"type": "pass"}})
        assert (await _next(eye, _typed("error")))["code"] == "wrong_table"
        # three at once reach the table and its spectator (the sender too), in order
        for phrase in ("hello", "thumbs_up", "hurry"):
            await ann.send(chat(phrase))
        for player in everyone:
            heard = [await _next(player, _typed("chat")) for _ in range(3)]
            assert [(m["seat"], m["phrase"]) for m in heard] == \
                [(0, "hello"), (0, "thumbs_up"), (0, "hurry")]
        # a fourth at once is over the limit: refused, and heard by nobody
        await ann.send(chat("again"))
        assert (await _next(ann, _typed("error")))["code"] == "chat_limited"

        # bo mutes ann; the spectator does too, then changes its mind
        await bo.send({"type": "mute", "table_id": table, "seat": 0})
        assert (await _next(bo, _typed("muted")))["seats"] == [0]
        await eye.send({"type": "mute", "table_id": table, "seat": 0})
        assert (await _next(eye, _typed("muted")))["seats"] == [0]
        await eye.send({"type": "unmute", "table_id": table, "seat": 0})
        assert (await _next(eye, _typed("muted")))["seats"] == []
        await bo.send({"type": "mute", "table_id": table, "seat": 2})  # an empty seat
        assert (await _next(bo, _typed("error")))["code"] == "bad_seat"
        await asyncio.sleep(1.1)  # a phrase comes back to ann's allowance
        await ann.send(chat("sorry"))
        assert (await _next(ann, _typed("chat")))["phrase"] == "sorry"
        assert (await _next(eye, _typed("chat")))["phrase"] == "sorry"
        # bo's chat still reaches ann; and bo never heard "sorry": its next chat is its own
        await bo.send(chat("wow"))
        assert (await _next(ann, _typed("chat")))["phrase"] == "wow"
        heard = await _next(bo, _typed("chat"))
        assert (heard["seat"], heard["phrase"]) == (1, "wow")
        # a reconnect: the mute holds, and the server says so after seated
        assert bo.ws is not None
        await bo.ws.close()
        await tasks[1]
        bo.ws = await open_socket(server, bo.token, max_queue=None)
        tasks[1] = asyncio.create_task(bo.pump())
        await _next(bo, _typed("seated"))
        assert (await _next(bo, _typed("muted")))["seats"] == [0]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

"""The table around the hands, over real WebSockets:

- ``table_state`` follows the seats: a player who connects or sits gets ``seated`` and the
  table; every connected seat sees a seat taken, a socket dropped and back, 托管 on, and
  after each settlement the new balances (the ones REST shows) and titles;
- a player kicked by an administrator is told (``kicked``) and its socket closes (4003);
  the other seats see the seat empty;
- a banned player's socket closes at once (4004) and its seat escapes, then is freed;
- a client resuming from a seq whose events are gone (an earlier hand) gets a snapshot;
- a seat that timed out twice is on 托管; when the player acts again 托管 ends, every seat
  is told, and the player's next answers are the ones played.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Callable

import httpx
import websockets

from app.store.ranks import title_of
from tests.e2e import test_ws_variants
from tests.e2e.test_ws_hand import GRANT, Message, Player, _settled
from tests.e2e.test_ws_variants import Server, _close, _connect, _make_admin, _players

server = test_ws_variants.server  # the fixture: a real server with the admin test mode on

STAKE = 2


async def _state(player: Player, wanted: Callable[[Message], bool] = lambda m: True,
                 seen: list[Message] | None = None) -> Message:
    """The next ``table_state`` that satisfies `wanted`; what is read on the way goes into
    `seen` (events and prompts update the player's last seq)."""
    while True:
        message = await player.inbox.get()
        if seen is not None:
            seen.append(message)
        if message["type"] == "event":
            player.last_seq = max(player.last_seq, message["seq"])
        if message["type"] == "table_state" and wanted(message):
            return message


def _seat(state: Message, seat: int) -> Message:
    return dict(state["seats"][seat])


async def _table(http: httpx.AsyncClient, owner: Player, timers: dict[str, int]) -> str:
    created = await http.post(
        "/tables", json={"variant": "lishui", "stake": STAKE, "timers": timers},
        headers=owner.headers,
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


async def _sit(http: httpx.AsyncClient, player: Player, table_id: str) -> None:
    sat = await http.post(f"/tables/{table_id}/sit", json={"seat": player.seat},
                          headers=player.headers)
    assert sat.status_code == 200, sat.text


async def test_table_state_follows_the_seats(server: Server) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        ann, bo = (await _players(http, "state"))[:2]
        table_id = await _table(http, ann, {"discard": 30, "claim": 30, "ready": 30})
        await _connect(server, ann)
        await _connect(server, bo)

        # sitting: ``seated`` first, then the table with the player in it
        await _sit(http, ann, table_id)
        seated, _ = await ann.next_of("seated")
        assert (seated["table_id"], seated["seat"], seated["variant"], seated["stake"]) == (
            table_id, 0, "lishui", STAKE)
        state = await _state(ann, lambda m: m["seats"][0]["name"] == "state0")
        assert _seat(state, 0) == {"seat": 0, "name": "state0", "title": title_of(GRANT),
                                   "balance": GRANT, "connected": True, "ready": False,
                                   "autoplay": False, "autoplay_level": "standard"}
        # 准备 between hands shows in the table's state
        await ann.send({"type": "ready", "table_id": table_id})
        state = await _state(ann, lambda m: m["seats"][0]["ready"])
        assert [s["name"] for s in state["seats"][1:]] == [None] * 3
        assert state["hand_id"] is None and state["variant"] == "lishui"
        assert state["next_hand_ms"] is None  # three seats empty: no deal is due

        # another seat taken, dropped and back: every connected seat is told
        await _sit(http, bo, table_id)
        await _state(ann, lambda m: _seat(m, 1)["name"] == "state1" and _seat(m, 1)["connected"])
        assert bo.ws is not None
        await bo.ws.close()
        await _state(ann, lambda m: _seat(m, 1)["name"] == "state1"
                     and not _seat(m, 1)["connected"] and not _seat(m, 1)["ready"])
        await _connect(server, bo)
        seated, _ = await bo.next_of("seated")
        assert seated["seat"] == 1
        await _state(bo, lambda m: _seat(m, 1)["connected"] and _seat(m, 0)["connected"])
        await _state(ann, lambda m: _seat(m, 1)["connected"])

        # bots fill the table; the hand starts; 托管 on for both players plays it out
        filled = await http.post(f"/tables/{table_id}/fill-bots", headers=ann.headers)
        assert filled.status_code == 200, filled.text
        full = await _state(ann, lambda m: all(s["name"] for s in m["seats"]))
        assert all(s["connected"] for s in full["seats"])
        assert full["seats"][2]["ready"] and full["seats"][3]["ready"]  # bots always are
        assert [s["autoplay"] for s in full["seats"]] == [False, False, True, True]
        for p in (ann, bo):
            await p.send({"type": "autoplay", "table_id": table_id, "on": True})
        seen: list[Message] = []
        await _state(ann, lambda m: _seat(m, 0)["autoplay"] and _seat(m, 1)["autoplay"], seen)

        # after the hand: the balances REST shows, with their titles (the bots may have
        # ended it already, before both players' 托管 was confirmed)
        ended = next((m["event"] for m in seen if m["type"] == "event"
                      and m["event"]["kind"] == "hand_ended"), None)
        while ended is None:
            message = await ann.inbox.get()
            seen.append(message)
            if message["type"] == "event" and message["event"]["kind"] == "hand_ended":
                ended = message["event"]
        balances = []
        for p in (ann, bo):
            await _settled(http, p)
            balances.append((await http.get("/me", headers=p.headers)).json()["balance"])
        after = await _state(ann, lambda m: [s["balance"] for s in m["seats"][:2]] == balances)
        assert after["hand_id"] is None
        # between hands: the time left on the 30 s ready timer, for a countdown
        assert 0 < after["next_hand_ms"] <= 30_000
        assert all(m["next_hand_ms"] is None for m in seen
                   if m["type"] == "table_state" and m["hand_id"] is not None)
        for seat in range(4):
            # what the ledger moved: net x stake + house silver, less what the balance floor
            # kept back (a bot holds only the table's minimum)
            silver = ended["silver"][seat]
            start = GRANT if seat < 2 else 100 * STAKE  # bots: the house's, at the minimum
            assert _seat(after, seat)["balance"] == start + silver
            assert _seat(after, seat)["title"] == title_of(start + silver)
        assert not [m for m in seen if m["type"] == "error"]
        await _close([ann, bo])


async def test_a_kicked_player_is_told_and_its_socket_closes(server: Server) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        admin, kicked, stays, _ = await _players(http, "kick")
        await _make_admin(server, http, admin)
        table_id = await _table(http, kicked, {"discard": 30, "claim": 30, "ready": 30})
        for p in (kicked, stays):
            await _connect(server, p)
            await _sit(http, p, table_id)
        await _state(stays, lambda m: _seat(m, 1)["connected"] and _seat(m, 2)["connected"])

        done = await http.post(f"/admin/tables/{table_id}/kick", json={"seat": 1},
                               headers=admin.headers)
        assert done.status_code == 200, done.text
        told, _ = await kicked.next_of("error")
        assert told["code"] == "kicked"
        assert kicked.ws is not None
        await asyncio.wait_for(kicked.ws.wait_closed(), 10)
        assert kicked.ws.close_code == 4003
        # the others see the seat empty; the kicked player's frames reach nothing
        await _state(stays, lambda m: _seat(m, 1)["name"] is None)
        tables = (await http.get("/tables", headers=stays.headers)).json()
        assert next(t for t in tables if t["id"] == table_id)["seats"][1] is None
        await _connect(server, kicked)
        await kicked.send({"type": "resume", "table_id": table_id, "last_seq": 0})
        refused, _ = await kicked.next_of("error")
        assert refused["code"] == "wrong_table"
        await _close([kicked, stays])


async def test_a_resume_from_an_earlier_hand_gets_a_snapshot(server: Server) -> None:
    """The events a client missed are kept for the hand in play only: a client that lost
    its socket at the end of a hand, connected again before the next deal (so it keeps
    its seat) and resumes from its old seq once the next hand is dealt gets a snapshot of
    its own view of the hand in play."""
    async with asyncio.timeout(90), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        player = (await _players(http, "snap"))[0]
        table_id = await _table(http, player, {"discard": 20, "claim": 20, "ready": 1})
        await _connect(server, player)
        await _sit(http, player, table_id)
        assert (await http.post(f"/tables/{table_id}/fill-bots",
                                headers=player.headers)).status_code == 200
        first_hand = ""
        while True:  # play the first hand by hand
            message = await player.inbox.get()
            if message["type"] == "prompt":
                await player.send({"type": "action", "table_id": table_id,
                                   "seq": message["seq"], "action": message["legal_actions"][0]})
            elif message["type"] == "event":
                if message["event"]["kind"] == "hand_ended":
                    break  # the client misses the end of the hand: its socket dropped
                player.last_seq = message["seq"]
                first_hand = message["hand_id"]
        old_seq = player.last_seq
        assert player.ws is not None
        await player.ws.close()
        await _connect(server, player)  # back within the ready timer: the seat is kept

        live = server.app.state.tables.get(table_id)
        while live.table.hand is None or live.table.hand_id == first_hand:
            await asyncio.sleep(0.05)  # the next hand is dealt after the 1 s ready timer
        await player.send({"type": "resume", "table_id": table_id, "last_seq": old_seq})
        snapshot, skipped = await player.next_of("snapshot")
        assert snapshot["hand_id"] != first_hand and snapshot["seq"] > old_seq
        assert not [m for m in skipped if m["type"] == "event" and m["seq"] <= old_seq]
        view = snapshot["view"]
        own = view["seats"][player.seat]
        assert own["hand"] and own["hand_count"] == len(own["hand"]), view  # its own tiles
        assert all(s["hand"] is None for n, s in enumerate(view["seats"]) if n != player.seat)
        await _close([player])


async def test_autoplay_ends_when_the_player_acts_again(server: Server) -> None:
    """Two timeouts put the seat on 托管 (every seat sees it); the player then acts:
    托管 ends (every seat sees that too) and the player's own answers are played again."""
    async with asyncio.timeout(90), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        player, watcher = (await _players(http, "back"))[:2]
        # 3 s to discard: time enough for the answer that must be played on a loaded machine
        # (with 1 s it once arrived after the timeout had thrown another tile)
        table_id = await _table(http, player, {"discard": 3, "claim": 1, "decide": 1,
                                               "ready": 1})
        for p in (player, watcher):
            await _connect(server, p)
            await _sit(http, p, table_id)
        assert (await http.post(f"/tables/{table_id}/fill-bots",
                                headers=player.headers)).status_code == 200
        await watcher.send({"type": "autoplay", "table_id": table_id, "on": True})

        # the player answers nothing: two timeouts, then 托管
        on = await _state(player, lambda m: _seat(m, 0)["autoplay"])
        assert _seat(on, 0)["connected"]
        await _state(watcher, lambda m: _seat(m, 0)["autoplay"])
        # it acts again (too late for any prompt): 托管 ends for every seat to see
        await player.send({"type": "action", "table_id": table_id, "seq": player.last_seq,
                           "action": {"type": "pass"}})
        await _state(player, lambda m: not _seat(m, 0)["autoplay"])
        await _state(watcher, lambda m: not _seat(m, 0)["autoplay"] and _seat(m, 1)["autoplay"])

        # its next prompt waits for it, and its answer is the one played
        while True:
            message = await player.inbox.get()
            if message["type"] == "event":
                player.last_seq = message["seq"]
            if message["type"] == "prompt" and any(
                a["type"] == "discard" for a in message["legal_actions"]
            ):
                break
        chosen = [a for a in message["legal_actions"] if a["type"] == "discard"][-1]
        await player.send({"type": "action", "table_id": table_id, "seq": message["seq"],
                           "action": chosen})
        while True:
            event = await player.inbox.get()
            if event["type"] == "error":
                raise AssertionError(event)
            if event["type"] == "event" and event["event"]["kind"] == "discarded":
                break
        assert (event["event"]["seat"], event["event"]["tile"]) == (0, chosen["tile"])
        live = server.app.state.tables.get(table_id)
        assert live is not None and not live.table.seats[0].autoplay
        await _close([player, watcher])


async def test_a_banned_player_is_closed_out_and_its_seat_escapes(server: Server) -> None:
    """A ban during a hand: the socket closes with 4004 at once, the seat escapes (the hand
    ends, settled as the banned player's 逃跑) and is then freed; what the banned client
    sends after the ban is never played."""
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        admin, target, stays, _ = await _players(http, "ban")
        await _make_admin(server, http, admin)
        target_id = (await http.get("/me", headers=target.headers)).json()["id"]
        table_id = await _table(http, target, {"discard": 30, "claim": 30, "ready": 30})
        for p in (target, stays):
            await _connect(server, p)
            await _sit(http, p, table_id)
        await stays.send({"type": "autoplay", "table_id": table_id, "on": True})
        await _state(stays, lambda m: _seat(m, stays.seat)["autoplay"])
        assert (await http.post(f"/tables/{table_id}/fill-bots",
                                headers=stays.headers)).status_code == 200
        prompt, _ = await target.next_of("prompt")  # the hand waits for the target

        banned = await http.post(f"/admin/accounts/{target_id}/ban", json={"reason": "bot"},
                                 headers=admin.headers)
        assert banned.status_code == 200, banned.text
        assert target.ws is not None
        with contextlib.suppress(websockets.ConnectionClosed):  # too late or not, never played
            await target.send({"type": "action", "table_id": table_id, "seq": prompt["seq"],
                               "action": prompt["legal_actions"][0]})
        await asyncio.wait_for(target.ws.wait_closed(), 10)
        assert target.ws.close_code == 4004

        ended = None
        while ended is None:
            message = await stays.inbox.get()
            if message["type"] == "event" and message["event"]["kind"] == "hand_ended":
                ended = message["event"]
        assert ended["outcome"] == "escape"
        seat = target.seat
        assert ended["net"][seat] < 0
        assert all(n > 0 for s, n in enumerate(ended["net"]) if s != seat)
        await _state(stays, lambda m: _seat(m, seat)["name"] is None and m["hand_id"] is None)
        with sqlite3.connect(server.database) as conn:
            (raw,) = conn.execute("SELECT actions FROM hand_records WHERE table_id = ?",
                                  (table_id,)).fetchone()
            penalty = conn.execute(
                "SELECT delta FROM ledger WHERE account_id = ? AND hand_id IS NOT NULL",
                (target_id,)).fetchall()
        assert [a["action"] for a in json.loads(raw) if a["seat"] == seat] == [{"type": "escape"}]
        assert penalty == [(ended["net"][seat] * STAKE,)]
        await _close([stays])

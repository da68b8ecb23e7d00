"""The guided first hand (新手教学, docs/practice.md) over a real server and socket:

- `POST /practice` seats the learner at seat 0 of a table of their own with three house
  bots, dealt from the fixed wall of `app.rules.tutorial`; played as the guide says, the
  learner is offered 碰, becomes ready (听) and wins by self-draw;
- the hand moves no silver (no ledger row for it, balances unchanged) and puts nobody on a
  leaderboard; the table is not listed in the lobby; only the learner's own tiles reach
  the learner's socket;
- a second `POST /practice` while the first table is live is refused (`practice_open`,
  naming it), and the refusal makes no table; a seat at a real table refuses it too.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.protocol.tiles import to_code
from app.rules.tiles import parse
from app.rules.tutorial import DISCARDS, HANDS, INDICATOR
from tests.e2e.test_ws_hand import GRANT, Message, Player, _register
from tests.e2e.test_ws_variants import Server, _connect
from tests.live import live_server, sqlite_settings


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    database = tmp_path / "practice.db"
    with live_server(sqlite_settings(database)) as (port, app):
        yield Server(f"127.0.0.1:{port}", app, database)


def _codes(notation: str) -> list[str]:
    """Tile notation as the wire's sorted tile codes."""
    return sorted(to_code(t) for t in parse(notation))


async def _follow_the_guide(player: Player, table_id: str) -> tuple[list[Message], list[Message]]:
    """Play as the guide says: 胡 when offered, else 碰 when offered, else throw the next
    tile of the guide's list; every event and prompt seen, until the hand ends."""
    events: list[Message] = []
    prompts: list[Message] = []
    throws = list(DISCARDS)
    while True:
        message = await player.inbox.get()
        if message["type"] == "event":
            events.append(message["event"])
            if message["event"]["kind"] == "hand_ended":
                return events, prompts
        elif message["type"] == "prompt":
            prompts.append(message)
            legal = message["legal_actions"]
            kinds = {a["type"]: a for a in legal}
            if "hu" in kinds:
                action = kinds["hu"]
            elif "pung" in kinds:
                action = kinds["pung"]
            elif "discard" in kinds:
                tile = _codes(throws.pop(0))[0]
                action = next(a for a in legal if a["type"] == "discard" and a["tile"] == tile)
            else:
                action = kinds["pass"]
            await player.send({"type": "action", "table_id": table_id, "seq": message["seq"],
                               "action": action})


def _stored_hands(database: Path, table_id: str) -> list[tuple[str, str]]:
    with sqlite3.connect(database) as conn:
        return list(conn.execute(
            "SELECT id, result FROM hand_records WHERE table_id = ?", (table_id,)
        ).fetchall())


async def test_the_guided_hand_is_dealt_from_the_fixed_wall_and_moves_no_silver(
    server: Server,
) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        learner = await _register(http, "learner", 0)
        await _connect(server, learner)
        made = await http.post("/practice", headers=learner.headers)
        assert made.status_code == 201, made.text
        body = made.json()
        table_id = body["table"]["id"]
        assert body["seat"] == 0 and body["table"]["stake"] == 0
        assert body["table"]["seats_taken"] == 4

        # a second one while this one is live: refused, naming it, and no table is made
        again = await http.post("/practice", headers=learner.headers)
        assert again.status_code == 409, again.text
        assert again.json()["error"]["code"] == "practice_open"
        assert again.json()["error"]["details"] == {"table_id": table_id}
        # nor is it in the lobby's list: it is the learner's own
        listed = (await http.get("/tables", headers=learner.headers)).json()
        assert table_id not in [t["id"] for t in listed]

        events, prompts = await _follow_the_guide(learner, table_id)

        dealt = [e for e in events if e["kind"] == "dealt"]
        assert sorted(dealt[0]["tiles"]) == _codes(HANDS[0]) and dealt[0]["seat"] == 0
        assert all(e["tiles"] is None for e in dealt[1:])  # no other seat's tiles
        wild = next(e for e in events if e["kind"] == "wild_turned")
        assert wild["indicator"] == _codes(INDICATOR)[0]
        offered = [{a["type"] for a in p["legal_actions"]} for p in prompts]
        assert any("pung" in kinds for kinds in offered)  # 碰 was offered
        assert any(p["ready"] for p in prompts)  # a discard that makes the hand ready was marked
        ended = events[-1]
        assert ended["winners"] == [0], ended
        won = next(e for e in events if e["kind"] == "won")
        assert won["self_draw"] is True
        assert ended["net"][0] > 0 and sum(ended["net"]) == 0  # the points are explained ...

        async def stored() -> bool:
            return bool(_stored_hands(server.database, table_id))

        while not await stored():
            await asyncio.sleep(0.05)
        # ... but no silver moves: no ledger row of the hand, the balance is the grant
        me = (await http.get("/me", headers=learner.headers)).json()
        assert me["balance"] == GRANT
        page = (await http.get("/me/ledger?limit=100", headers=learner.headers)).json()
        assert [e["hand_id"] for e in page["entries"]] == [None]  # the sign-up grant only
        # and nobody is ranked by it
        board = (await http.get("/leaderboards/points/lishui")).json()
        assert board["rows"] == []
        mine = (await http.get("/leaderboards/points/lishui/me", headers=learner.headers)).json()
        assert mine["rank"] is None and mine["value"] is None
        with sqlite3.connect(server.database) as conn:
            assert conn.execute("SELECT count(*) FROM variant_stats").fetchone() == (0,)
        if learner.ws is not None:
            await learner.ws.close()


async def test_a_seat_at_a_real_table_refuses_a_practice_table(server: Server) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        player = await _register(http, "ann", 0)
        await _connect(server, player)
        opened = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                 headers=player.headers)
        assert opened.status_code == 201, opened.text
        table_id = opened.json()["id"]
        sat = await http.post(f"/tables/{table_id}/sit", json={"seat": 0}, headers=player.headers)
        assert sat.status_code == 200, sat.text
        refused = await http.post("/practice", headers=player.headers)
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["code"] == "seated_elsewhere"
        tables = (await http.get("/tables", headers=player.headers)).json()
        assert [t["id"] for t in tables] == [table_id]  # no practice table was made
        if player.ws is not None:
            await player.ws.close()

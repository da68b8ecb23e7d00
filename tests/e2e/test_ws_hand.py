"""One whole 丽水 hand over the network: a real uvicorn server, four players registered and
seated over REST, four real WebSocket clients answering every prompt with its first legal
action; afterwards every balance is 10000 + the silver the hand moved, and the ledger sums to
it. Bad input on the way answers errors with codes and never closes the connection."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from pydantic import TypeAdapter
from websockets.asyncio.client import ClientConnection

from app.protocol import WireAction, to_rules_action
from app.rules.actions import Escape
from app.rules.context import TableContext
from app.rules.hand import replay
from app.rules.variants import get_ruleset
from app.store import house
from app.store.db import Database
from tests.api.helpers import HOUSE_FLOAT
from tests.contract import check_server_message
from tests.live import live_server, sqlite_settings
from tests.wsclient import Pacer, open_socket, table_socket

Message = dict[str, Any]
STAKE = 1
GRANT = 10000  # a new account's silver (RULES.md 7)
WIRE_ACTION: TypeAdapter[WireAction] = TypeAdapter(WireAction)


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "e2e.db"


@pytest.fixture
def server(database: Path) -> Iterator[str]:
    """A real server on 127.0.0.1 over a migrated SQLite file; its host:port."""
    with live_server(sqlite_settings(database)) as (port, _):
        yield f"127.0.0.1:{port}"


@dataclass
class Player:
    seat: int
    headers: dict[str, str]
    token: str
    ws: ClientConnection | None = None
    inbox: asyncio.Queue[Message] = field(default_factory=asyncio.Queue)
    last_seq: int = 0
    errors: list[str] = field(default_factory=list)
    ended: Message | None = None
    pacer: Pacer = field(default_factory=Pacer)

    async def pump(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                check_server_message(message)  # tests/e2e/conftest.py asserts none failed
                await self.inbox.put(message)
        except websockets.ConnectionClosed:
            pass  # closed by the server: the test looks at the close code

    async def send(self, message: Message) -> None:
        assert self.ws is not None
        await self.pacer.wait()  # under the server's rate: a message over it is dropped
        await self.ws.send(json.dumps(message))

    async def next_of(self, kind: str) -> tuple[Message, list[Message]]:
        """The next message of `type` kind, and the others read on the way."""
        skipped: list[Message] = []
        while (message := await self.inbox.get())["type"] != kind:
            skipped.append(message)
        return message, skipped


async def _register(http: httpx.AsyncClient, name: str, seat: int) -> Player:
    body = {"username": name, "password": "correct horse battery"}
    assert (await http.post("/auth/register", json=body)).status_code == 201
    tokens = (await http.post("/auth/login", json=body)).json()
    token = tokens["access_token"]
    return Player(seat, {"Authorization": f"Bearer {token}"}, token)


async def _hand_started(player: Player, backlog: list[Message]) -> Message:
    """The hand_started event, from what was read already or the next messages (all of
    which stay in `backlog` for the play to come)."""
    while True:
        for message in backlog:
            if message["type"] == "event" and message["event"]["kind"] == "hand_started":
                return dict(message["event"])
        backlog.append(await player.inbox.get())


async def _play(player: Player, table_id: str, backlog: list[Message]) -> None:
    """Answer every prompt with its first legal action until the hand ends; after a
    ``rate_limited`` error, slow down and send the last answer again."""
    pending = list(backlog)
    last_answer: Message | None = None
    while True:
        message = pending.pop(0) if pending else await player.inbox.get()
        if message["type"] == "error":
            player.errors.append(message["code"])  # e.g. an answer to a window already closed
            if message["code"] == "rate_limited" and last_answer is not None:
                await asyncio.sleep(0.5)
                await player.send(last_answer | {"seq": player.last_seq})
        elif message["type"] == "event":
            player.last_seq = max(player.last_seq, message["seq"])
            if message["event"]["kind"] == "hand_ended":
                player.ended = message["event"]
                return
        elif message["type"] == "prompt":
            last_answer = {
                "type": "action", "table_id": table_id, "seq": player.last_seq,
                "action": message["legal_actions"][0],
            }
            await player.send(last_answer)


async def _settled(http: httpx.AsyncClient, player: Player) -> list[Message]:
    """The player's ledger once the hand's row is in (the hand ends before it is settled)."""
    while True:
        page = (await http.get("/me/ledger?limit=100", headers=player.headers)).json()
        if any(e["hand_id"] is not None for e in page["entries"]):
            return list(page["entries"])
        await asyncio.sleep(0.05)


def _replayed_net(database: Path, hand_id: str) -> list[int]:
    """Replay the stored hand from its record alone: variant, seed, context, action log."""
    with sqlite3.connect(database) as conn:
        row = conn.execute(
            "SELECT variant, seed, ctx, actions, voided FROM hand_records WHERE id = ?",
            (hand_id,),
        ).fetchone()
    assert row is not None, "the hand was not recorded"
    variant, seed, ctx, actions, voided = row
    assert not voided
    context = json.loads(ctx)
    context["seat_points"] = tuple(context["seat_points"])
    log = [
        Escape(a["seat"]) if a["action"]["type"] == "escape"
        else to_rules_action(WIRE_ACTION.validate_python(a["action"]), a["seat"])
        for a in json.loads(actions)
    ]
    state, _ = replay(get_ruleset(variant), bytes.fromhex(seed), TableContext(**context), log, None)
    assert state.settlement is not None
    return list(state.settlement.net())


async def test_one_hand_over_websockets(server: str, database: Path) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server}") as http:
        names = ("anna", "bert", "cora", "dirk")
        players = [await _register(http, name, seat) for seat, name in enumerate(names)]
        created = await http.post(
            "/tables", json={"variant": "lishui", "stake": STAKE}, headers=players[0].headers
        )
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]

        # a bad token is refused with close code 4401
        async with table_socket(server, "nonsense") as bad:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await bad.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

        # connect first, then sit: every event of the hand reaches the sockets live
        for p in players:
            p.ws = await open_socket(server, p.token)
        pumps = [asyncio.create_task(p.pump()) for p in players]
        for p in players:
            sat = await http.post(f"/tables/{table_id}/sit", json={"seat": p.seat},
                                  headers=p.headers)
            assert sat.status_code == 200, sat.text

        backlogs: list[list[Message]] = [[] for _ in players]
        # a malformed message: an error with its code, and the connection stays open
        await players[0].send({"type": "action", "table_id": table_id, "seq": "x"})
        await players[0].ws.send("{not json")  # type: ignore[union-attr]
        first, skipped = await players[0].next_of("error")
        backlogs[0] += skipped
        second, skipped = await players[0].next_of("error")
        backlogs[0] += skipped
        assert {first["code"], second["code"]} == {"validation_error", "malformed"}

        # an action out of turn: the dealer is to discard, another seat tries to pass
        started = await _hand_started(players[0], backlogs[0])
        other = players[(started["dealer"] + 1) % 4]
        await other.send({"type": "action", "table_id": table_id, "seq": 0,
                          "action": {"type": "pass"}})
        refused, skipped = await other.next_of("error")
        backlogs[other.seat] += skipped
        assert refused["code"] == "not_your_turn"
        # and a table the player does not sit at
        await other.send({"type": "resume", "table_id": "elsewhere", "last_seq": 0})
        refused, skipped = await other.next_of("error")
        backlogs[other.seat] += skipped
        assert refused["code"] == "wrong_table"
        await other.send({"type": "ping", "nonce": "n1"})
        pong, skipped = await other.next_of("pong")
        backlogs[other.seat] += skipped
        assert pong["nonce"] == "n1"

        await asyncio.gather(*(_play(p, table_id, backlogs[p.seat]) for p in players))

        ended = players[0].ended
        assert ended is not None
        assert all(p.ended == ended for p in players)  # the end reveals everything to all
        assert sum(ended["net"]) == sum(ended["house"])  # zero-sum but for the house
        for p in players:
            entries = await _settled(http, p)
            me = (await http.get("/me", headers=p.headers)).json()
            silver = ended["net"][p.seat] * STAKE + ended["house_silver"][p.seat]
            assert me["balance"] == GRANT + silver
            assert sum(e["delta"] for e in entries) == me["balance"]

        # the stored record replays to the same hand
        hand_id = next(m for m in backlogs[0] if m["type"] == "event")["hand_id"]
        assert _replayed_net(database, hand_id) == ended["net"]

        # a second connection of the same account closes the older one (code 4000)
        async with table_socket(server, players[0].token) as again:
            await asyncio.wait_for(pumps[0], 10)
            assert players[0].ws.close_code == 4000  # type: ignore[union-attr]
            # the new socket is told where the account sits, then answers
            first = [json.loads(await again.recv()) for _ in range(2)]
            assert [m["type"] for m in first] == ["seated", "table_state"]
            assert first[0]["seat"] == 0 and first[1]["seats"][0]["name"] == "anna"
            await again.send(json.dumps({"type": "ping", "nonce": "n2"}))
            assert json.loads(await again.recv())["type"] == "pong"

        for p in players[1:]:
            await p.ws.close()  # type: ignore[union-attr]
        await asyncio.gather(*pumps, return_exceptions=True)


async def test_one_hand_against_bots(server: str, database: Path) -> None:
    """One player and three bots (托管, played inside the server): the hand ends and the
    silver moves for everyone, bots included; the supply is what was made, no more."""
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server}") as http:
        human = await _register(http, "erin", 2)
        created = await http.post("/tables", json={"variant": "lishui", "stake": STAKE},
                                  headers=human.headers)
        table_id = created.json()["id"]
        human.ws = await open_socket(server, human.token)
        pump = asyncio.create_task(human.pump())
        await http.post(f"/tables/{table_id}/sit", json={"seat": 2}, headers=human.headers)
        filled = await http.post(f"/tables/{table_id}/fill-bots", headers=human.headers)
        assert filled.status_code == 200, filled.text
        assert None not in filled.json()["seats"]

        # the bots were made for this table, in seat order: bot-1, bot-2, bot-3, each funded
        # by the house with the table's minimum (100 x the stake)
        bot_names = [f"bot-{n}" for n in (1, 2, 3)]
        bot_seats = [seat for seat in range(4) if seat != human.seat]

        await _play(human, table_id, [])
        ended = human.ended
        assert ended is not None
        await _settled(http, human)
        balances = {human.seat: (await http.get("/me", headers=human.headers)).json()["balance"]}
        for seat, name in zip(bot_seats, bot_names, strict=True):
            balances[seat] = await _balance_when_settled(http, name)
        for seat in range(4):
            silver = ended["net"][seat] * STAKE + ended["house_silver"][seat]
            start = GRANT if seat == human.seat else 100 * STAKE
            assert balances[seat] == start + silver, (seat, ended)
        supply = await _supply(database)
        assert supply.unexplained == 0 and supply.grants == GRANT
        assert supply.total == GRANT + HOUSE_FLOAT + supply.rewards
        # house rewards: the points the house pays (the seats' nets sum to them) and silver
        assert supply.rewards == STAKE * sum(ended["net"]) + sum(ended["house_silver"])
        await human.ws.close()
        await pump


async def _supply(database: Path) -> house.Supply:
    db = Database.connect(f"sqlite:///{database}")
    try:
        async with db.sessions() as session, session.begin():
            return await house.supply(session)
    finally:
        await db.close()


async def _balance_when_settled(http: httpx.AsyncClient, username: str) -> int:
    """A bot's public balance once its hand is counted (its net may be 0, so wait for the
    stats' hand count rather than for a change of balance)."""
    while True:
        profile = (await http.get(f"/accounts/{username}")).json()
        stats = profile["stats"]
        records = stats.values() if isinstance(stats, dict) else stats
        if any(record["hands"] for record in records):
            return int(profile["balance"])
        await asyncio.sleep(0.05)

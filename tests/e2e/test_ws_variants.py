"""Hands of every variant over real WebSockets, with the table rules a player notices:

- every variant plays one hand to settlement; each balance over REST is 10000 + net x stake
  + house silver, and the ledger rows sum to it;
- claim races on an arranged wall (admin test mode): two 胡 on one discard go to the nearest
  seat after the discarder (截和), 碰 beats 吃, a 胡 robs an added kong (抢杠), in 上海 both
  胡 win (一炮多响) and both are paid, and a 福州 pair of two 金 scores 金雀;
- a seat that drops its socket during a claim window gets the missed events and its prompt
  again after ``resume``, and its answer counts;
- ``leave`` during a hand is an escape (逃跑): the hand ends, settled as an escape;
- a seat that stops answering times out twice and is then played by 托管 (auto-play): the
  hand still finishes (RULES.md 1).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.rules.variants import VARIANTS
from tests.e2e.test_ws_hand import GRANT, Message, Player, _register, _settled
from tests.live import live_server, sqlite_settings
from tests.wsclient import open_socket

STAKE = 2
# tests/rules/test_hand.py: the dealer discards 5m, seats 2 and 3 both win on it
TWO_WAIT_ON_5M = {
    "dealer": 0,
    "hands": ["566778899m11s667z", "13579m2468s3344z", "123456789p111z5m", "234567s234m222z5m"],
    "indicator": "9s",
}
# the dealer discards 5m: seat 1 (next) may 吃 4-5-6m, seat 2 may 碰 (and nobody wins)
PUNG_OR_CHOW_ON_5M = {
    "dealer": 0,
    "hands": ["566778899m11s667z", "46m1357p2468s344z", "55m12389p11z4567s", "234567s234m222z9p"],
    "indicator": "9s",
}
# seat 2 pungs the dealer's 5m and later draws the fourth 5m; seat 3 then waits on 5m (4-6m)
ROB_THE_KONG_ON_5M = {
    "dealer": 0,
    "hands": ["566778899m11s667z", "13789m2468s3344z", "55m1234567p111z9s", "234567s234m22z4m9p"],
    "draws": "6m8p5z5m",
    "indicator": "9s",
}
# 福州 (tests/rules/test_fuzhou.py): quiet hands, the 金 is 9s (the first tail tile, no
# flowers), and seat 2 holds two 金 as its pair, waiting on 5m / 8m: the dealer discards 8m
GOLDEN_PAIR_ON_8M = {
    "dealer": 0,
    "hands": ["13679m134679p23578s8m", "124578m14689p23467s", "12367m456789p234s99s",
              "2345689m23578p1458s"],
    "replacements": "9s",
}
Chooser = Callable[[Player, Message], Awaitable[Message]]


@dataclass
class Server:
    """A running server: its address, its app (to look at a table's seats) and its file."""

    address: str
    app: FastAPI
    database: Path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A real uvicorn server with the admin test mode on, over a migrated SQLite file."""
    database = tmp_path / "e2e.db"
    with live_server(sqlite_settings(database, test_mode=True)) as (port, app):
        yield Server(f"127.0.0.1:{port}", app, database)


@dataclass
class Seen:
    """What one client saw of a hand: its events in order, its prompts, its errors."""

    events: list[Message] = field(default_factory=list)
    prompts: list[Message] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def kinds(self, kind: str) -> list[Message]:
        return [e for e in self.events if e["kind"] == kind]


async def first_legal(player: Player, prompt: Message) -> Message:
    """Answer with the first legal action (what the plain test client does)."""
    return dict(prompt["legal_actions"][0])


def answer(*choices: Message) -> Chooser:
    """Answer with the first of `choices` (in order of preference) that is legal, or else
    with the first legal action."""

    async def choose(player: Player, prompt: Message) -> Message:
        legal = prompt["legal_actions"]
        for wanted in choices:
            if wanted in legal:
                return dict(wanted)
        return dict(legal[0])

    return choose


async def _play(
    player: Player,
    table_id: str,
    choose: Chooser = first_legal,
    until: Callable[[Message], bool] = lambda e: e["kind"] == "hand_ended",
) -> Seen:
    """Answer every prompt with `choose` until an event satisfies `until`; after a
    ``rate_limited`` error, wait and send the last answer again."""
    seen = Seen()
    last_answer: Message | None = None
    while True:
        message = await player.inbox.get()
        if message["type"] == "error":
            seen.errors.append(message["code"])
            if message["code"] == "rate_limited" and last_answer is not None:
                await asyncio.sleep(0.5)  # 20 messages a second at most: slow down, resend
                await player.send(last_answer)
        elif message["type"] == "event":
            player.last_seq = max(player.last_seq, message["seq"])
            seen.events.append(message["event"])
            if message["event"]["kind"] == "hand_ended":
                player.ended = message["event"]
            if until(message["event"]):
                return seen
        elif message["type"] == "prompt":
            seen.prompts.append(message)
            last_answer = {
                "type": "action", "table_id": table_id, "seq": message["seq"],
                "action": await choose(player, message),
            }
            await player.send(last_answer)


async def _players(http: httpx.AsyncClient, prefix: str) -> list[Player]:
    return [await _register(http, f"{prefix}{seat}", seat) for seat in range(4)]


async def _make_admin(server: Server, http: httpx.AsyncClient, player: Player) -> None:
    """The player becomes an admin (test-mode tables are an admin tool)."""
    me = (await http.get("/me", headers=player.headers)).json()
    with sqlite3.connect(server.database) as conn:
        conn.execute("UPDATE accounts SET role = 'admin' WHERE id = ?", (me["id"],))


_PUMPS: set[asyncio.Task[None]] = set()  # the readers of the open sockets


async def _connect(server: Server, player: Player) -> None:
    """Open the player's socket and start reading it into the player's inbox."""
    player.ws = await open_socket(server.address, player.token)
    pump = asyncio.create_task(player.pump())
    _PUMPS.add(pump)
    pump.add_done_callback(_PUMPS.discard)


async def _seat_all(
    server: Server, http: httpx.AsyncClient, players: list[Player], table_id: str
) -> None:
    """Connect every client first, then sit: every event of the hand reaches the sockets."""
    for p in players:
        await _connect(server, p)
    for p in players:
        sat = await http.post(f"/tables/{table_id}/sit", json={"seat": p.seat}, headers=p.headers)
        assert sat.status_code == 200, sat.text


async def _test_table(
    server: Server, http: httpx.AsyncClient, players: list[Player], variant: str,
    scenario: dict[str, Any],
) -> str:
    await _make_admin(server, http, players[0])
    # long timers: a claim race is decided by the answers, never by a busy machine's clock
    slow = {"discard": 120, "claim": 120, "decide": 120, "ready": 15}
    created = await http.post(
        "/admin/tables/test",
        json={"variant": variant, "stake": STAKE, "timers": slow, **scenario},
        headers=players[0].headers,
    )
    assert created.status_code in (200, 201), created.text
    table_id = str(created.json()["id"])
    await _seat_all(server, http, players, table_id)
    return table_id


async def _public_table(
    server: Server, http: httpx.AsyncClient, players: list[Player], variant: str
) -> str:
    """A lobby table of `variant` (ready timer 1 s) with the four players connected and
    seated; its id."""
    created = await http.post(
        "/tables", json={"variant": variant, "stake": STAKE, "timers": {"ready": 1}},
        headers=players[0].headers,
    )
    assert created.status_code == 201, created.text
    table_id = str(created.json()["id"])
    await _seat_all(server, http, players, table_id)
    return table_id


WIN_REASONS = {"win", "deal_in", "covers", "robbing_kong", "catch_dealer"}


def _assert_explained(ended: Message) -> None:
    """One score sheet per winner, in the order of `winners`; its payments are the win's
    transfers, each the points its formula makes."""
    assert [s["seat"] for s in ended["scores"]] == ended["winners"]
    explained = [(p["payer"], s["seat"], p["points"], p["reason"])
                 for s in ended["scores"] for p in s["payments"]]
    paid = [(t["payer"], t["payee"], t["points"], t["reason"])
            for t in ended["transfers"] if t["reason"] in WIN_REASONS]
    assert explained == paid
    for sheet in ended["scores"]:
        for p in sheet["payments"]:
            points = sum(t["value"] * t["times"] for t in p["terms"])
            for factor in p["factors"]:
                points *= factor["value"]
            assert p["points"] == (points if p["cap"] is None else min(points, p["cap"]))


async def _assert_settled(http: httpx.AsyncClient, players: list[Player], ended: Message) -> None:
    """Each balance over REST is 10000 + net x stake + house silver; the ledger sums to it;
    every win is explained."""
    _assert_explained(ended)
    for p in players:
        entries = await _settled(http, p)
        balance = (await http.get("/me", headers=p.headers)).json()["balance"]
        assert balance == GRANT + ended["net"][p.seat] * STAKE + ended["house_silver"][p.seat]
        assert sum(e["delta"] for e in entries) == balance


async def _close(players: list[Player]) -> None:
    for p in players:
        if p.ws is not None:
            await p.ws.close()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_one_hand_of_every_variant(server: Server, variant: str) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, variant[:4])
        table_id = await _public_table(server, http, players, variant)

        seen = await asyncio.gather(*(_play(p, table_id) for p in players))

        ended = players[0].ended
        assert ended is not None
        assert all(p.ended == ended for p in players)
        assert seen[0].kinds("hand_started")[0]["variant"] == variant
        assert sum(ended["net"]) == sum(ended["house"])
        await _assert_settled(http, players, ended)
        await _close(players)


async def _discard_5m_first(player: Player, prompt: Message) -> Message:
    return await answer({"type": "discard", "tile": "5m"})(player, prompt)


async def test_two_wins_on_one_discard_go_to_the_nearest_seat(server: Server) -> None:
    """截和: seats 2 and 3 both 胡 the dealer's 5m; the farther seat answers first, the
    nearer seat (2) still wins alone."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "race")
        table_id = await _test_table(server, http, players, "lishui", TWO_WAIT_ON_5M)
        hu = answer({"type": "hu"})
        # seat 3 answers at once; seat 2 answers only after seat 3 has sent its 胡
        seat3_sent = asyncio.Event()

        async def hu_then_flag(player: Player, prompt: Message) -> Message:
            seat3_sent.set()
            return await hu(player, prompt)

        async def late_hu(player: Player, prompt: Message) -> Message:
            await seat3_sent.wait()
            return await hu(player, prompt)

        seen = await asyncio.gather(
            _play(players[0], table_id, _discard_5m_first),
            _play(players[1], table_id),
            _play(players[2], table_id, late_hu),
            _play(players[3], table_id, hu_then_flag),
        )
        assert [w["seat"] for w in seen[0].kinds("won")] == [2]
        ended = players[0].ended
        assert ended is not None and ended["winners"] == [2]
        assert ended["net"][2] > 0 and ended["net"][3] <= 0
        await _assert_settled(http, players, ended)
        await _close(players)


async def test_both_wins_are_paid_in_shanghai(server: Server) -> None:
    """上海 一炮多响: both 胡 on one discard win, and both are paid by the discarder."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "shan")
        no_wild = {k: v for k, v in TWO_WAIT_ON_5M.items() if k != "indicator"}  # 上海 has none
        table_id = await _test_table(server, http, players, "shanghai", no_wild)
        hu = answer({"type": "hu"})
        seen, *_ = await asyncio.gather(
            _play(players[0], table_id, _discard_5m_first),
            _play(players[1], table_id),
            _play(players[2], table_id, hu),
            _play(players[3], table_id, hu),
        )
        ended = players[0].ended
        assert ended is not None
        assert sorted(ended["winners"]) == [2, 3]
        paid = {t["payee"] for t in ended["transfers"] if t["payer"] == 0 and t["points"] > 0}
        assert {2, 3} <= paid
        assert ended["net"][2] > 0 and ended["net"][3] > 0 and ended["net"][0] < 0
        # both winners' revealed hands hold the 5m they won on, as their own `won` showed
        for seat in (2, 3):
            assert "5m" in ended["hands"][seat]
            (won,) = [e for e in seen.events if e["kind"] == "won" and e["seat"] == seat]
            assert sorted(ended["hands"][seat]) == sorted(won["hand"])
        await _assert_settled(http, players, ended)
        await _close(players)


async def test_pung_beats_chow(server: Server) -> None:
    """碰 beats 吃: the next seat answers 吃 first, the pung of seat 2 still takes the tile."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "pung")
        table_id = await _test_table(server, http, players, "lishui", PUNG_OR_CHOW_ON_5M)
        chow_sent = asyncio.Event()

        async def chow(player: Player, prompt: Message) -> Message:
            chow_sent.set()
            return await answer({"type": "chow", "low": "4m"})(player, prompt)

        async def late_pung(player: Player, prompt: Message) -> Message:
            await chow_sent.wait()
            return await answer({"type": "pung"})(player, prompt)

        melded: Callable[[Message], bool] = lambda e: e["kind"] == "melded"
        seen = await asyncio.gather(
            _play(players[0], table_id, _discard_5m_first, until=melded),
            _play(players[1], table_id, chow, until=melded),
            _play(players[2], table_id, late_pung, until=melded),
            _play(players[3], table_id, until=melded),
        )
        meld = seen[0].kinds("melded")[0]
        assert (meld["seat"], meld["meld"], meld["from_seat"]) == (2, "pung", 0)
        assert meld["claimed"] == "5m"
        await _close(players)


async def test_resume_in_a_claim_window_gets_the_prompt_again(server: Server) -> None:
    """Seat 2 loses its socket as the dealer's 5m arrives (its 胡 prompt unread); it
    reconnects, sends ``resume`` with the last seq it saw, gets the missed discard and the
    prompt again, and its answer (过) is the one taken: seat 3 wins instead."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "back")
        table_id = await _test_table(server, http, players, "lishui", TWO_WAIT_ON_5M)
        hu = answer({"type": "hu"})
        others = [
            asyncio.create_task(_play(players[0], table_id, _discard_5m_first)),
            asyncio.create_task(_play(players[1], table_id)),
            asyncio.create_task(_play(players[3], table_id, hu)),
        ]
        away = players[2]
        # play until the dealer's discard arrives, then drop the socket without reading on
        while True:
            message = await away.inbox.get()
            if message["type"] != "event":
                continue
            if message["event"]["kind"] == "discarded":
                missed_seq = message["seq"]
                break
            away.last_seq = message["seq"]
        assert away.ws is not None
        await away.ws.close()
        while not away.inbox.empty():
            away.inbox.get_nowait()  # lost with the socket

        await _connect(server, away)
        await away.send({"type": "resume", "table_id": table_id, "last_seq": away.last_seq})
        replayed, _ = await away.next_of("event")
        assert replayed["seq"] == missed_seq
        assert (replayed["event"]["kind"], replayed["event"]["tile"]) == ("discarded", "5m")
        prompt, _ = await away.next_of("prompt")
        assert {"type": "hu"} in prompt["legal_actions"]
        await away.send({"type": "action", "table_id": table_id, "seq": prompt["seq"],
                         "action": {"type": "pass"}})
        seen = await _play(away, table_id)

        await asyncio.gather(*others)
        assert [w["seat"] for w in seen.kinds("won")] == [3]
        ended = players[0].ended
        assert ended is not None and ended["winners"] == [3]
        await _assert_settled(http, players, ended)
        await _close(players)


async def test_leave_during_a_hand_is_an_escape(server: Server) -> None:
    """逃跑: a seat sends ``leave`` mid-hand; the hand ends as an escape, the leaver pays and
    the balances over REST show the escape settlement."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "flee")
        table_id = await _test_table(server, http, players, "lishui", TWO_WAIT_ON_5M)
        leaver = players[1]
        stayers = [p for p in players if p is not leaver]
        # the dealer's first prompt: nobody answers it; seat 1 leaves instead
        await players[0].next_of("prompt")
        await leaver.send({"type": "leave", "table_id": table_id})
        seen = await asyncio.gather(*(_play(p, table_id) for p in stayers))

        ended = stayers[0].ended
        assert ended is not None and ended["outcome"] == "escape"
        assert all(p.ended == ended for p in stayers)
        assert not seen[0].kinds("won")
        assert ended["net"][leaver.seat] < 0
        assert all(ended["net"][p.seat] >= 0 for p in stayers)
        await _assert_settled(http, players, ended)
        table = (await http.get("/tables", headers=stayers[0].headers)).json()
        seats = next(t for t in table if t["id"] == table_id)["seats"]
        assert seats[leaver.seat] is None  # the seat is free after the hand
        await _close(players)


async def test_a_silent_seat_goes_on_autoplay_and_the_hand_finishes(server: Server) -> None:
    """Short timers (1 s a decision); seat 1 never answers. After two timeouts in a row its
    seat is on 托管 and played at once; the hand still finishes, with its discards in it."""
    async with asyncio.timeout(45), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "slow")
        timers = {"discard": 1, "claim": 1, "decide": 1, "ready": 30}
        created = await http.post(
            "/tables", json={"variant": "lishui", "stake": STAKE, "timers": timers},
            headers=players[0].headers,
        )
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
        await _seat_all(server, http, players, table_id)
        silent = players[1]

        answering = [asyncio.create_task(_play(p, table_id)) for p in players if p is not silent]
        seen_silent = Seen()  # it reads everything and answers nothing
        while True:
            message = await silent.inbox.get()
            if message["type"] == "prompt":
                seen_silent.prompts.append(message)
            elif message["type"] == "event":
                seen_silent.events.append(message["event"])
                if message["event"]["kind"] == "hand_ended":
                    break
        await asyncio.gather(*answering)

        assert len(seen_silent.prompts) > 2
        assert [e for e in seen_silent.kinds("discarded") if e["seat"] == silent.seat]
        assert seen_silent.events[-1] == players[0].ended
        live = server.app.state.tables.get(table_id)
        assert live is not None and live.table.seats[silent.seat].autoplay
        await _assert_settled(http, players, seen_silent.events[-1])
        await _close(players)


async def test_a_win_robs_the_added_kong(server: Server) -> None:
    """抢杠: seat 2 adds the fourth 5m to its 碰; seat 3, waiting on 5m, wins on it."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "rob")
        table_id = await _test_table(server, http, players, "lishui", ROB_THE_KONG_ON_5M)
        discard = [{"type": "discard", "tile": t} for t in ("5m", "8p", "5z", "9s", "9p")]
        seen = await asyncio.gather(
            _play(players[0], table_id, answer(discard[0], discard[1])),
            _play(players[1], table_id, answer({"type": "pass"}, discard[2])),
            _play(players[2], table_id, answer(
                {"type": "pung"}, discard[3], {"type": "added_kong", "tile": "5m"})),
            _play(players[3], table_id, answer(discard[4], {"type": "hu"})),
        )
        ended = players[0].ended
        assert ended is not None and ended["winners"] == [3]
        won = seen[0].kinds("won")[0]
        assert (won["seat"], won["from_seat"], won["tile"], won["robbed_kong"]) == (3, 2, "5m", True)
        assert ended["net"][3] > 0 and ended["net"][2] < 0
        (sheet,) = ended["scores"]
        assert "robbing_kong" in [i["key"] for i in sheet["items"]]
        # the robbed seat pays every loser's share and the 犯枪 point
        assert {p["payer"] for p in sheet["payments"]} == {2}
        assert sorted(p["share_of"] for p in sheet["payments"]) == [0, 1, 2, 2]
        await _assert_settled(http, players, ended)
        await _close(players)


async def test_a_golden_pair_wins_in_fuzhou(server: Server) -> None:
    """福州 金雀: a win whose pair is two 金 scores the 金雀 special, paid by the discarder
    (capped at 100 x base, 封顶)."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "gold")
        table_id = await _test_table(server, http, players, "fuzhou", GOLDEN_PAIR_ON_8M)
        seen = await asyncio.gather(
            _play(players[0], table_id, answer({"type": "discard", "tile": "8m"})),
            _play(players[1], table_id),
            _play(players[2], table_id, answer({"type": "hu"})),
            _play(players[3], table_id),
        )
        won = seen[1].kinds("won")[0]
        assert (won["seat"], won["from_seat"], won["tile"]) == (2, 0, "8m")
        assert "golden_pair" in won["specials"]
        ended = players[0].ended
        assert ended is not None and ended["winners"] == [2]
        assert ended["net"][2] > 0 and ended["net"][0] == -ended["net"][2]
        (sheet,) = ended["scores"]
        golden = [i for i in sheet["items"] if i["key"] == "golden_pair"]
        assert golden and golden[0]["counted"] and golden[0]["name"] == "金雀"
        pair = sheet["groups"][0]  # the pair: two 金
        assert pair["shape"] == "pair" and pair["tiles"][0] == pair["tiles"][1]
        (payment,) = sheet["payments"]
        assert (payment["payer"], payment["reason"], payment["cap"]) == (0, "deal_in", 100)
        await _assert_settled(http, players, ended)
        await _close(players)

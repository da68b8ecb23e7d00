"""Hostile input and privacy over real WebSockets (a real uvicorn server, real clients).

1. Whatever a client sends to a table in the middle of a hand (junk JSON, binary frames,
   wrong types, huge numbers, bad tile codes, wrong table ids, actions not offered, stale
   seqs, replayed old messages) is answered with an ``error`` carrying a stable code (or
   the valid answer: ``pong``, the snapshot/prompt of a ``resume``), the connection stays
   open, the hand does not move, and the table still takes a legal action afterwards.
2. Information hiding (the first security property of a card server): across many
   complete hands of every variant, also after 丽水 redraws the seats, no message a seat
   receives before the hand ends shows another seat's concealed tiles (its dealt hand, its
   draws, its 暗杠) or the wall order.
3. A spectator (旁观) across 50 complete hands of every variant sees exactly the public view:
   every event it receives is the observer's copy of the hand the server stored (replayed
   from its seed and actions), so no concealed tile of any seat, no prompt, no wall order;
   and each snapshot it gets on watching mid-hand is the observer's view at that point.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from app.protocol import (
    ActionMessage,
    AutoplayMessage,
    LeaveMessage,
    PingMessage,
    ResumeMessage,
    seat_payload,
    to_rules_action,
    view_model,
)
from app.protocol.base import MAX_SEQ
from app.protocol.errors import ERROR_CODES
from app.protocol.parse import parse_client
from app.rules.actions import Action, Escape
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import new_hand, step
from app.rules.state import HandState
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.views import seat_view
from tests.e2e import test_ws_hand
from tests.e2e.test_ws_hand import WIRE_ACTION, Message, Player, _register
from tests.wsclient import Pacer, open_socket

# the live server of the other end-to-end tests (pytest finds fixtures by name here)
server = test_ws_hand.server
database = test_ws_hand.database

EXAMPLES = 150  # hostile examples in all, over PROBES tables at once
PROBES = 3  # the server takes 20 messages a second per socket: three sockets, three times
HANDS = 4  # privacy: hands each table plays at least (and 丽水 one after a reseat)


# --- 1. hostile input --------------------------------------------------------------------

TILE_CODES = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]
HUGE = st.sampled_from([2**53, 2**63, -(2**63), 10**100, -1, 1.5, float("inf")])
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | HUGE | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=6,
)
BAD_TILES = st.sampled_from(["0m", "10p", "8z", "9f", "5M", " 5m", "5m ", "m5", "", "白", "5mm"])


def _tiles() -> st.SearchStrategy[Any]:
    return st.sampled_from(TILE_CODES) | BAD_TILES | ANY_JSON


def _wire_actions() -> st.SearchStrategy[Any]:
    plain = st.sampled_from(["pung", "exposed_kong", "hu", "pass"]).map(lambda t: {"type": t})
    tiled = st.builds(
        lambda t, key, tile: {"type": t, key: tile},
        st.sampled_from(["discard", "concealed_kong", "added_kong", "chow"]),
        st.sampled_from(["tile", "low"]),
        _tiles(),
    )
    named = st.builds(
        lambda t, name, tile: {"type": t, "choice" if t == "decide" else "name": name, "tile": tile},
        st.sampled_from(["decide", "special"]),
        st.sampled_from(["buy", "counter", "decline", "rob_gold", "BUY", "x" * 40]) | ANY_JSON,
        _tiles(),
    )
    extra = st.builds(lambda a, v: {**a, "extra": v}, plain, ANY_JSON)
    return plain | tiled | named | extra | ANY_JSON


def _offerable() -> st.SearchStrategy[Message]:
    """Well-formed wire actions with real tile codes (mostly not what the prompt offers)."""
    tile = st.sampled_from(TILE_CODES)
    return (
        st.sampled_from(["pung", "exposed_kong", "hu", "pass"]).map(lambda t: {"type": t})
        | st.builds(lambda t, c: {"type": t, "tile": c},
                    st.sampled_from(["discard", "concealed_kong", "added_kong"]), tile)
        | tile.map(lambda c: {"type": "chow", "low": c})
        | st.sampled_from(["buy", "counter", "decline"]).map(
            lambda c: {"type": "decide", "choice": c})
        | tile.map(lambda c: {"type": "special", "name": "rob_gold", "tile": c})
    )


class Hostile:
    """Strategies for one hostile frame, given the live table id and the current seq."""

    def __init__(self, table_id: str, seq: int, replayable: list[Message]) -> None:
        self.table_id = table_id
        self.seq = seq
        self.replayable = replayable

    def table_ids(self) -> st.SearchStrategy[Any]:
        wrong = st.sampled_from(["elsewhere", "", "x" * 65, "../t", self.table_id + "-2", "t 1"])
        return st.just(self.table_id) | wrong | ANY_JSON

    def seqs(self) -> st.SearchStrategy[Any]:
        old = st.integers(0, max(0, self.seq - 1))
        near = st.sampled_from([self.seq, self.seq + 1, MAX_SEQ, MAX_SEQ + 1])
        return old | near | HUGE | ANY_JSON

    def messages(self) -> st.SearchStrategy[Any]:
        action = st.fixed_dictionaries(
            {"type": st.just("action"), "table_id": self.table_ids(), "seq": self.seqs(),
             "action": _wire_actions()},
            optional={"v": st.sampled_from([1, 2, "1", True, None])},
        )
        resume = st.fixed_dictionaries(
            {"type": st.just("resume"), "table_id": self.table_ids(), "last_seq": self.seqs()}
        )
        autoplay = st.fixed_dictionaries(
            {"type": st.just("autoplay"), "table_id": self.table_ids(),
             "on": st.booleans() | ANY_JSON}
        )
        leave = st.fixed_dictionaries({"type": st.just("leave"), "table_id": self.table_ids()})
        ping = st.fixed_dictionaries(
            {"type": st.just("ping"), "nonce": st.text(max_size=70) | ANY_JSON}
        )
        other = st.fixed_dictionaries(
            {"type": st.sampled_from(["hello", "Action", "", "escape"]) | ANY_JSON},
            optional={"table_id": self.table_ids()},
        )
        well_formed = st.fixed_dictionaries(  # the right table, a real action, not offered
            {"type": st.just("action"), "table_id": st.just(self.table_id),
             "seq": st.sampled_from([0, self.seq - 1, self.seq, self.seq + 1]),
             "action": _offerable()},
        )
        replayed = st.sampled_from(self.replayable) if self.replayable else st.nothing()
        return action | well_formed | resume | autoplay | leave | ping | other | replayed

    def frames(self) -> st.SearchStrategy[str | bytes]:
        as_json = self.messages().map(json.dumps)
        junk = st.text(max_size=40) | st.sampled_from(["{", "[1,", "null", "{}", '{"type":1}'])
        # (a frame over the size limit closes the socket: tests/e2e/test_ws_edge.py)
        return as_json | junk | st.binary(max_size=40)


def _harmless(frame: str | bytes, table_id: str, prompt: Message) -> str | bytes:
    """The frame, unless it would legitimately change the hand (a legal answer to the open
    prompt, 托管 on, or a leave = 逃跑): then a copy that must be refused (a stale seq or a
    wrong table)."""
    parsed = parse_client(frame)
    if (
        isinstance(parsed, ActionMessage)
        and parsed.table_id == table_id
        and parsed.action.model_dump() in prompt["legal_actions"]
        and parsed.seq >= prompt["seq"]
    ):
        data = parsed.model_dump()
        data["seq"] = prompt["seq"] - 1  # the same answer, on an older state: stale
        return json.dumps(data)
    if isinstance(parsed, AutoplayMessage) and parsed.table_id == table_id and parsed.on:
        return json.dumps(parsed.model_dump() | {"table_id": "elsewhere"})
    if isinstance(parsed, LeaveMessage) and parsed.table_id == table_id:
        return json.dumps(parsed.model_dump() | {"table_id": "elsewhere"})
    return frame


def _expected(frame: str | bytes, table_id: str) -> tuple[int, int, int]:
    """(errors, pongs, prompts) a frame must be answered with while the seat has a prompt."""
    parsed = parse_client(frame)
    if isinstance(parsed, PingMessage):
        return 0, 1, 0
    if isinstance(parsed, ResumeMessage | AutoplayMessage) and parsed.table_id == table_id:
        return 0, 0, int(isinstance(parsed, ResumeMessage))  # autoplay off: no answer
    return 1, 0, 0


def _without_timer(message: Message) -> Message:
    return {k: v for k, v in message.items() if k != "deadline_ms"}


class Probe:
    """The hostile client: sends paced frames and reads its answers up to a barrier."""

    def __init__(self, player: Player, table_id: str) -> None:
        self.player = player
        self.table_id = table_id
        self.pacer = Pacer()

    async def send_raw(self, frame: str | bytes) -> None:
        assert self.player.ws is not None
        await self.pacer.wait()
        await self.player.ws.send(frame)

    async def snapshot(self) -> tuple[Message, Message]:
        """A `resume` past every seq: the seat's snapshot and its prompt again. While the
        seat owes a decision (its timers are long) the hand cannot move, so wait for one."""
        while True:
            await self.send_raw(json.dumps(
                {"type": "resume", "table_id": self.table_id, "last_seq": MAX_SEQ}))
            snapshot, _ = await self.player.next_of("snapshot")
            if snapshot["view"]["legal_actions"]:
                prompt, _ = await self.player.next_of("prompt")
                return snapshot, prompt
            await self.player.next_of("prompt")  # a window another seat closed: the next one

    async def answers(self, frames: list[str | bytes], seq: int) -> list[Message]:
        """Send `frames`, then a `resume` at `seq` as a barrier (the actor answers it with
        the prompt again, after everything sent before it); every answer before it."""
        prompts = 1
        for frame in frames:
            await self.send_raw(frame)
            prompts += _expected(frame, self.table_id)[2]
        await self.send_raw(json.dumps(
            {"type": "resume", "table_id": self.table_id, "last_seq": seq}))
        received: list[Message] = []
        while prompts:
            message = await asyncio.wait_for(self.player.inbox.get(), 20)
            received.append(message)
            prompts -= message["type"] == "prompt"
        return received


async def _table_waiting_for(http: httpx.AsyncClient, server: str, name: str,
                             timers: dict[str, int]) -> tuple[Player, str]:
    """A 丽水 table with one connected player and three bots."""
    player = await _register(http, name, 0)
    created = await http.post("/tables", json={"variant": "lishui", "stake": 1,
                                               "timers": timers}, headers=player.headers)
    assert created.status_code == 201, created.text
    table_id = created.json()["id"]
    player.ws = await open_socket(server, player.token)
    assert (await http.post(f"/tables/{table_id}/sit", json={"seat": 0},
                            headers=player.headers)).status_code == 200
    assert (await http.post(f"/tables/{table_id}/fill-bots",
                            headers=player.headers)).status_code == 200
    return player, table_id


async def hostile_frames_change_nothing(
    server: str, name: str, examples: int, start: int
) -> None:
    long = {"discard": 300, "claim": 300, "decide": 300, "ready": 1}
    async with asyncio.timeout(240), \
            httpx.AsyncClient(base_url=f"http://{server}", timeout=30) as http:
        player, table_id = await _table_waiting_for(http, server, name, long)
        pump = asyncio.create_task(player.pump())
        probe = Probe(player, table_id)

        # play two of our decisions, keeping what we sent to replay it later
        sent: list[Message] = []
        for _ in range(2):
            prompt, _ = await player.next_of("prompt")
            answer = {"type": "action", "table_id": table_id, "seq": prompt["seq"],
                      "action": prompt["legal_actions"][0]}
            await probe.send_raw(json.dumps(answer))
            sent.append(answer)
        before, prompt = await probe.snapshot()
        seq = before["seq"]
        assert prompt["seq"] <= seq and prompt["legal_actions"] == before["view"]["legal_actions"]
        sent.append({"type": "resume", "table_id": table_id, "last_seq": 0})
        hostile = Hostile(table_id, seq, sent)
        loop = asyncio.get_running_loop()
        replies: dict[str, int] = {}
        table: dict[str, Message] = {}  # the first seated and table_state a resume got

        async def one_example(frames: list[str | bytes]) -> None:
            frames = [_harmless(f, table_id, prompt) for f in frames]
            received = await probe.answers(frames, seq)
            errors = pongs = 0
            for message in received:
                kind = str(message["type"])
                code = str(message.get("code", kind))
                replies[code] = replies.get(code, 0) + 1
                if kind == "error":
                    assert message["code"] in ERROR_CODES, message
                    errors += 1
                elif kind == "pong":
                    pongs += 1
                elif kind == "prompt":
                    assert _without_timer(message) == _without_timer(prompt)
                elif kind == "snapshot":
                    assert _without_timer(message) == _without_timer(before)
                elif kind in ("seated", "table_state"):  # a resume's: the table is unchanged
                    assert message == table.setdefault(kind, message), message
                else:  # a resume replays the events it missed: only old ones exist
                    assert kind == "event" and message["seq"] <= seq, message
            expected = [_expected(f, table_id) for f in frames]
            assert errors == sum(e[0] for e in expected), (frames, received)
            assert pongs == sum(e[1] for e in expected), (frames, received)
            assert player.ws is not None and player.ws.close_code is None

        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @seed(start)  # each probe's own: the probes' examples differ
        @given(st.lists(hostile.frames(), min_size=1, max_size=3))
        def property_(frames: list[str | bytes]) -> None:
            asyncio.run_coroutine_threadsafe(one_example(frames), loop).result()

        await asyncio.to_thread(property_)

        after, prompt_after = await probe.snapshot()
        assert _without_timer(after) == _without_timer(before)  # the hand did not move
        assert _without_timer(prompt_after) == _without_timer(prompt)
        # and the actor keeps serving: the first legal action is taken
        await probe.send_raw(json.dumps({"type": "action", "table_id": table_id, "seq": seq,
                                         "action": prompt["legal_actions"][0]}))
        while (message := await player.inbox.get())["type"] != "event" or message["seq"] <= seq:
            assert message["type"] != "error", message
        assert message["seq"] == seq + 1
        print(f"hostile examples at {name} (seed {start}): {examples}; replies by code: {sorted(replies.items())}")
        assert player.ws is not None
        await player.ws.close()
        await pump


# --- 2. privacy across many hands ----------------------------------------------------------


def _walls(value: Any, path: str = "") -> list[str]:
    """Every key that names the wall and holds a list (the wall order)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if "wall" in key.lower() and isinstance(item, list):
                found.append(f"{path}.{key}")
            found += _walls(item, f"{path}.{key}")
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found += _walls(item, f"{path}[{n}]")
    return found


def _leaks(seat: int, message: Message) -> list[str]:
    """What `message`, received by `seat` while a hand runs, shows of other seats' concealed
    tiles or of the wall order."""
    leaks = [f"wall order at {p}" for p in _walls(message)]
    if message["type"] == "event":
        event = message["event"]
        mine = event.get("seat") == seat
        if event["kind"] == "dealt" and not mine and event["tiles"] is not None:
            leaks.append(f"seat {event['seat']}'s dealt tiles")
        if event["kind"] == "drew" and not mine and event["tile"] is not None:
            leaks.append(f"seat {event['seat']}'s draw")
        if event["kind"] == "melded" and event["meld"] == "concealed_kong" and not mine \
                and event["tiles"] is not None:
            leaks.append(f"seat {event['seat']}'s 暗杠")
    if message["type"] == "snapshot" and message["view"]["phase"] != "ended":
        for other in message["view"]["seats"]:
            if other["seat"] == seat:
                continue
            if other["hand"] is not None:
                leaks.append(f"seat {other['seat']}'s hand in a view")
            if any(m["kind"] == "concealed_kong" and m["tiles"] is not None
                   for m in other["melds"]):
                leaks.append(f"seat {other['seat']}'s 暗杠 in a view")
    return leaks


@dataclass
class Watch:
    """What the watching clients saw, shared between the tables' loops."""

    leaks: list[str] = field(default_factory=list)
    seen: int = 0
    hidden: Counter[str] = field(default_factory=Counter)  # another seat's secret, hidden
    seats: dict[str, int] = field(default_factory=dict)  # hand id -> the watcher's seat
    reseated: set[str] = field(default_factory=set)  # 丽水 tables watched past a reseat

    def covered(self) -> bool:
        """Every kind of secret was hidden at least once somewhere: dealt hands, draws,
        暗杠 in events and mid-hand views of other seats."""
        return all(self.hidden[k] > 0 for k in HIDDEN)


HIDDEN = ("dealt", "drew", "concealed_kong", "view_hand")


def _count_hidden(seat: int, message: Message, hidden: Counter[str]) -> None:
    """Count the other seats' secrets that `message` (received by `seat`) shows as hidden."""
    if message["type"] == "event":
        event = message["event"]
        if event.get("seat") in (None, seat):
            return
        if event["kind"] in ("dealt", "drew") and event.get("tiles", event.get("tile")) is None:
            hidden[event["kind"]] += 1
        if event["kind"] == "melded" and event["meld"] == "concealed_kong" \
                and event["tiles"] is None:
            hidden["concealed_kong"] += 1
    elif message["type"] == "snapshot" and message["view"]["phase"] != "ended":
        hidden["view_hand"] += sum(1 for other in message["view"]["seats"]
                                   if other["seat"] != seat and other["hand"] is None)


def _reseats(database: Path, table_id: str) -> list[int]:
    """The numbers of the table's stored hands after which its seats were redrawn."""
    with closing(sqlite3.connect(database)) as conn:
        rows = conn.execute("SELECT id, result FROM hand_records WHERE table_id = ?",
                            (table_id,)).fetchall()
    return sorted(int(hand_id.rsplit("-", 1)[1]) for hand_id, result in rows
                  if "reseat" in json.loads(result))


async def _play_and_watch(player: Player, table_id: str, variant: str, answer: bool,
                          watch: Watch, enough: asyncio.Event, database: Path) -> int:
    """Play hands (answering each prompt with its first legal action, or on 托管), asking
    for a snapshot once a hand, until `enough` is set (丽水: and one of the 丽水 tables has
    played a whole hand after its seats were redrawn); the hands ended.

    The seat is the last ``seated`` one: 丽水 redraws the seats after each 版 and sends
    ``seated`` to every seat between the hands. A hand's messages are judged when it ends,
    against the seat the player held in it."""
    assert player.ws is not None
    pacer = Pacer()
    seat = player.seat
    hands = 0
    last_seq = 0
    in_hand: list[Message] | None = None  # the current hand's messages, None between hands

    async def send(message: Message) -> None:
        await pacer.wait()
        await player.ws.send(json.dumps(message))  # type: ignore[union-attr]

    def judge(message: Message) -> None:
        watch.leaks.extend(f"{message.get('hand_id')}: {leak}" for leak in _leaks(seat, message))
        _count_hidden(seat, message, watch.hidden)

    if not answer:
        await send({"type": "autoplay", "table_id": table_id, "on": True})
    while True:
        try:
            message = await asyncio.wait_for(player.inbox.get(), 30)
        except TimeoutError:
            ws = player.ws
            raise AssertionError(
                f"{table_id} seat {seat}: nothing for 30 s after {watch.seen} messages; socket "
                f"{ws.state.name}, closed {ws.close_code} {ws.close_reason!r}") from None
        watch.seen += 1
        if message["type"] == "seated" and message["table_id"] == table_id:
            seat = message["seat"]
        if in_hand is not None:
            in_hand.append(message)
        else:
            judge(message)
        if message["type"] == "event":
            last_seq = max(last_seq, message["seq"])
            kind = message["event"]["kind"]
            if kind == "hand_started":
                in_hand = [message]
                await send({"type": "resume", "table_id": table_id, "last_seq": MAX_SEQ})
            elif kind == "hand_ended":
                for held in in_hand or [message]:
                    judge(held)
                hand_id = message["hand_id"]
                watch.seats[hand_id] = seat
                in_hand = None
                hands += 1
                # 准备 at once (the bots are ready): the next hand is dealt without waiting
                # out the ready timer, so a 丽水 table reaches its reseat sooner
                await send({"type": "ready", "table_id": table_id})
                if variant == "lishui" and any(  # read aside: the loop serves 20 sockets
                        n < int(hand_id.rsplit("-", 1)[1])
                        for n in await asyncio.to_thread(_reseats, database, table_id)):
                    watch.reseated.add(table_id)
                if enough.is_set() and (variant != "lishui" or watch.reseated):
                    return hands
        elif message["type"] == "prompt" and answer:
            await send({"type": "action", "table_id": table_id,
                        "seq": max(last_seq, message["seq"]),
                        "action": message["legal_actions"][0]})


async def no_seat_sees_another_seats_tiles(server: str, database: Path) -> None:
    """Three tables of each variant, half of the players answering and half on 托管, until
    every table has played HANDS hands, every kind of secret was hidden from another seat
    at least once, and a 丽水 table has played a hand after its seats were redrawn."""
    short = {"discard": 1, "claim": 1, "decide": 1, "ready": 1}
    tables_per_variant = 3
    async with asyncio.timeout(240), \
            httpx.AsyncClient(base_url=f"http://{server}", timeout=30) as http:
        players: list[tuple[Player, str, bool, str]] = []
        for variant in VARIANTS:
            for n in range(tables_per_variant):
                player = await _register(http, f"watch{variant}{n}", n % 4)
                created = await http.post(
                    "/tables", json={"variant": variant, "stake": 1, "timers": short},
                    headers=player.headers)
                assert created.status_code == 201, created.text
                table_id = created.json()["id"]
                player.ws = await open_socket(server, player.token,
                                          max_queue=None)
                players.append((player, table_id, n % 2 == 0, variant))
        pumps = [asyncio.create_task(p.pump()) for p, _, _, _ in players]
        for player, table_id, _, _ in players:
            sat = await http.post(f"/tables/{table_id}/sit", json={"seat": player.seat},
                                  headers=player.headers)
            assert sat.status_code == 200, sat.text
            filled = await http.post(f"/tables/{table_id}/fill-bots", headers=player.headers)
            assert filled.status_code == 200, filled.text
        watch = Watch()
        enough = asyncio.Event()
        tables = [asyncio.create_task(_play_and_watch(p, t, v, answer, watch, enough, database))
                  for p, t, answer, v in players]
        while not (watch.covered() and all(
                len([h for h in watch.seats if h.startswith(t + "-")]) >= HANDS
                for _, t, _, _ in players)):
            done = [t for t in tables if t.done()]
            for task in done:
                task.result()  # a table's loop failed: say why
            await asyncio.sleep(0.1)
        enough.set()
        results = await asyncio.gather(*tables)
        per_variant: dict[str, int] = {}
        for (_, _, _, variant), hands in zip(players, results, strict=True):
            per_variant[variant] = per_variant.get(variant, 0) + hands
        total = sum(results)
        print(f"privacy: {total} complete hands, {watch.seen} messages; per variant "
              f"{per_variant}; hidden {dict(watch.hidden)}")
        assert not watch.leaks, watch.leaks[:20]
        assert all(per_variant[v] >= HANDS * tables_per_variant for v in VARIANTS), per_variant
        assert watch.reseated  # a 丽水 table was watched past its reseat (checked below)
        # the seat each player was told is the seat the server recorded it at (a hand is
        # stored a moment after it ends)
        while True:
            with closing(sqlite3.connect(database)) as conn:
                recorded = dict(conn.execute("SELECT id, seats FROM hand_records").fetchall())
            if watch.seats.keys() <= recorded.keys():
                break
            await asyncio.sleep(0.05)
        for table_id in watch.reseated:
            reseats = _reseats(database, table_id)
            assert any(int(h.rsplit("-", 1)[1]) > reseats[0] for h in watch.seats
                       if h.startswith(table_id + "-"))
        for (player, table_id, _, _) in players:
            account = (await http.get("/me", headers=player.headers)).json()["id"]
            for hand_id, seat in watch.seats.items():
                if hand_id.startswith(table_id + "-"):
                    assert json.loads(recorded[hand_id])[seat] == account, hand_id
        for player, _, _, _ in players:
            await player.ws.close()  # type: ignore[union-attr]
        await asyncio.gather(*pumps, return_exceptions=True)


# --- 3. a spectator across 50 hands -------------------------------------------------------

SPECTATED_HANDS = 50  # complete hands the spectators watch, together
REWATCH_EVERY = 3  # every third hand a spectator watches again mid-hand: a fresh snapshot


@dataclass
class Spectated:
    """What one spectator saw of its table: each hand's events (as received) and the
    snapshots it was sent, in order."""

    table_id: str
    hands: dict[str, list[Message]] = field(default_factory=dict)
    snapshots: list[Message] = field(default_factory=list)
    complete: list[str] = field(default_factory=list)  # hands seen from start to end


def _stored_hand(database: Path, hand_id: str) -> tuple[str, bytes, TableContext, list[Action]]:
    """A stored hand's variant, seed, context and action log (what replays it)."""
    with closing(sqlite3.connect(database)) as conn:
        row = conn.execute("SELECT variant, seed, ctx, actions FROM hand_records WHERE id = ?",
                           (hand_id,)).fetchone()
    assert row is not None, hand_id
    variant, seed_hex, ctx, actions = row
    seed = bytes.fromhex(seed_hex)  # the seed's bytes, stored as hex
    context = json.loads(ctx)
    context["seat_points"] = tuple(context["seat_points"])
    log = [
        Escape(a["seat"]) if a["action"]["type"] == "escape"
        else to_rules_action(WIRE_ACTION.validate_python(a["action"]), a["seat"])
        for a in json.loads(actions)
    ]
    return variant, seed, TableContext(**context), log


def _true_hand(database: Path, hand_id: str, events_wanted: int | None = None
               ) -> tuple[HandState, list[Event]]:
    """The stored hand replayed: its state and every event, with every seat's tiles (the
    truth a spectator must not see); stopped once `events_wanted` events are out (or one
    more: a result being stored, `hand_ended`, is not shown yet)."""
    variant, seed, ctx, log = _stored_hand(database, hand_id)
    state, events = new_hand(get_ruleset(variant), seed, ctx)
    for action in log:
        if events_wanted is not None and len(events) >= events_wanted:
            break
        state, more = step(state, action)
        events += more
    if events_wanted is not None and len(events) > events_wanted:
        assert len(events) == events_wanted + 1 and events[-1].kind == "hand_ended", hand_id
    return state, events


async def _host(
    player: Player, table_id: str, prompted: asyncio.Event | None = None
) -> None:
    """A seated player on 托管 who says ready (准备) after every hand, so that the next one
    is dealt at once; `prompted` is set at its first prompt (a hand is in play). The only
    reader of its inbox: two readers of one queue take its messages in turn, and one of
    them waiting for a prompt could see none."""
    await player.send({"type": "autoplay", "table_id": table_id, "on": True})
    while True:
        message = await player.inbox.get()
        if message["type"] == "prompt" and prompted is not None:
            prompted.set()
        if message["type"] == "event" and message["event"]["kind"] == "hand_ended":
            await player.send({"type": "ready", "table_id": table_id})


async def _spectate(http: httpx.AsyncClient, server: str, variant: str, hands: int,
                    leaks: list[str]) -> Spectated:
    """One table of `variant` (a player on 托管 and three bots) and a spectator who watches
    it from the middle of its first hand until it has seen `hands` whole hands, watching
    again mid-hand until it has a snapshot for every REWATCH_EVERY hands."""
    host = await _register(http, f"host{variant}", 0)
    created = await http.post("/tables", json={"variant": variant, "stake": 1,
                                               "timers": {"ready": 1}}, headers=host.headers)
    assert created.status_code == 201, created.text
    table_id = created.json()["id"]
    host.ws = await open_socket(server, host.token, max_queue=None)
    eye = await _register(http, f"eye{variant}", 0)
    eye.ws = await open_socket(server, eye.token, max_queue=None)
    tasks = [asyncio.create_task(host.pump()), asyncio.create_task(eye.pump())]
    assert (await http.post(f"/tables/{table_id}/sit", json={"seat": 0},
                            headers=host.headers)).status_code == 200
    assert (await http.post(f"/tables/{table_id}/fill-bots",
                            headers=host.headers)).status_code == 200
    prompted = asyncio.Event()
    tasks.append(asyncio.create_task(_host(host, table_id, prompted)))
    seen = Spectated(table_id)
    watch = {"type": "watch", "table_id": table_id}
    last: int | None = None  # the last seq received
    hand: list[Message] | None = None
    rewatched = False
    try:
        await prompted.wait()  # a hand is in play: the spectator starts in the middle of it
        await eye.send(watch)
        # a rewatch that reaches the table after its hand ended gets no snapshot: the
        # spectator goes on watching (and asking) until it has its share of snapshots, and
        # stops between hands (a snapshot is checked against its stored hand)
        while (len(seen.complete) < hands or len(seen.snapshots) < hands // REWATCH_EVERY
               or hand is not None):
            message = await asyncio.wait_for(eye.inbox.get(), 30)
            kind = message["type"]
            leaks += [f"{variant}: {leak}" for leak in _leaks(-1, message)]
            if kind == "watching":
                assert message["table_id"] == table_id and message["spectators"] == 1
                assert last is None or message["seq"] == last, (message, last)
                last = message["seq"]
            elif kind == "snapshot":
                assert message["seq"] == last and message["view"]["seat"] is None
                seen.snapshots.append(message)
            elif kind == "event":
                assert last is not None and message["seq"] == last + 1, (message, last)
                last = message["seq"]
                event = message["event"]
                if event["kind"] == "hand_started":
                    hand = seen.hands.setdefault(message["hand_id"], [])
                    rewatched = False
                if hand is None:
                    continue  # the rest of the hand it started in the middle of
                hand.append(message)
                if event["kind"] == "hand_ended":
                    seen.complete.append(message["hand_id"])
                    hand = None
                elif (event["kind"] == "discarded" and not rewatched
                      and len(seen.snapshots) <= len(seen.complete) // REWATCH_EVERY):
                    rewatched = True  # again, mid-hand: a fresh snapshot, no gap
                    await eye.send(watch)
            elif kind not in ("table_state",):
                leaks.append(f"{variant}: a spectator was sent {message}")
        await eye.send({"type": "unwatch", "table_id": table_id})
    finally:
        for task in tasks:
            task.cancel()
        for player in (host, eye):
            assert player.ws is not None
            await player.ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)
    return seen


async def a_spectator_sees_only_the_public_view(server: str, database: Path) -> None:
    """One spectated table per variant, SPECTATED_HANDS whole hands in all; then every
    hand and snapshot a spectator was sent is checked against the stored hand."""
    per_table = -(-SPECTATED_HANDS // len(VARIANTS))
    leaks: list[str] = []
    async with asyncio.timeout(240), \
            httpx.AsyncClient(base_url=f"http://{server}", timeout=30) as http:
        watched = await asyncio.gather(
            *(_spectate(http, server, v, per_table, leaks) for v in sorted(VARIANTS)))
    assert not leaks, leaks[:20]
    hands = [h for w in watched for h in w.complete]
    assert len(hands) >= SPECTATED_HANDS
    while True:  # each hand is stored a moment after it ends
        with closing(sqlite3.connect(database)) as conn:
            stored = {row[0] for row in conn.execute("SELECT id FROM hand_records")}
        if set(hands) <= stored:
            break
        await asyncio.sleep(0.05)
    secrets = 0
    for table in watched:
        for hand_id in table.complete:
            _, truth = _true_hand(database, hand_id)
            received = [m["event"] for m in table.hands[hand_id]]
            public = [seat_payload(e, None).model_dump(mode="json") for e in truth]
            # the silver the ledger moved is the table's, not the replay's: sent, and public
            silver = received[-1].pop("silver")
            assert public[-1].pop("silver") is None and len(silver) == 4, hand_id
            assert received == public, hand_id
            secrets += sum(1 for e in truth if getattr(e, "tiles", None) and e.kind == "dealt")
            assert all(e["tiles"] is None for e in received if e["kind"] == "dealt")
        assert len(table.snapshots) >= per_table // REWATCH_EVERY
        for snapshot in table.snapshots:
            events = table.hands.get(snapshot["hand_id"])
            if not events:
                continue  # the hand it started in the middle of: where it began is not known
            first = events[0]["seq"]  # its hand_started
            wanted = snapshot["seq"] - first + 1
            state, truth = _true_hand(database, snapshot["hand_id"], wanted)
            view = seat_view(state, None)
            if len(truth) > wanted:  # watched while the result was stored: no net yet
                view["net"] = None
            assert snapshot["view"] == view_model(view).model_dump(mode="json")
    assert secrets >= 4 * SPECTATED_HANDS  # every seat's deal was there, and hidden
    print(f"spectators: {len(hands)} complete hands, "
          f"{sum(len(t.snapshots) for t in watched)} snapshots mid-hand")


# --- all at once ---------------------------------------------------------------------------


async def test_hostile_frames_and_privacy_on_one_server(server: str, database: Path) -> None:
    """The three properties at once, on one server, each on tables and accounts of its own
    (the server's tables do not share state). They spend their time waiting, not
    computing: the hostile client on its pacing under the server's 20 messages a second,
    the privacy tables on their 1 s timers, the spectated ones on their bots; together they
    take about the time of the longest. A failure names its property in its traceback."""
    start = random.getrandbits(64)
    async with asyncio.TaskGroup() as both:
        for n in range(PROBES):  # each on a table and socket of its own
            both.create_task(hostile_frames_change_nothing(
                server, f"hostile{n}", EXAMPLES // PROBES, start + n))
        both.create_task(no_seat_sees_another_seats_tiles(server, database))
        both.create_task(a_spectator_sees_only_the_public_view(server, database))

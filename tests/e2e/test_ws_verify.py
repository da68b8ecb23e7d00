"""A verifiable shuffle, end to end (issue 17): 100 hands over real WebSockets, 20 of each
variant, each at a table of one player on 托管 and three house bots. From nothing but the
messages its socket received, every hand verifies (`app.rules.verify`): the commitment came
with `hand_started`, the seed with `hand_ended` and nothing earlier, and the seed gives the
dice, the player's dealt tiles and every draw; one changed tile of the revealed wall, or of
the transcript, fails the check."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.rules import verify
from app.rules.variants import VARIANTS
from tests.contract import check_server_message
from tests.e2e.test_ws_hand import _register
from tests.live import live_server, sqlite_settings
from tests.wsclient import open_socket

HANDS = 20  # per variant: 100 in all
Message = dict[str, Any]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with live_server(sqlite_settings(tmp_path / "e2e.db")) as (port, _):
        yield f"127.0.0.1:{port}"


async def _hands_at_a_table(server: str, http: httpx.AsyncClient, variant: str) -> list[str]:
    """Seat 0 on 托管 with three house bots plays `HANDS` hands; every text its socket
    received, in order. The player says ready after each hand, so the next is dealt at once;
    halfway through a hand it resumes from a seq the table never sent (a snapshot)."""
    player = await _register(http, f"v{variant[:5]}", 0)
    made = await http.post("/tables", json={"variant": variant, "stake": 1,
                                            "timers": {"ready": 30}}, headers=player.headers)
    assert made.status_code == 201, made.text
    table_id = made.json()["id"]
    ws = await open_socket(server, player.token)
    received: list[str] = []

    async def read() -> Message:
        raw = await ws.recv()
        assert isinstance(raw, str)
        received.append(raw)
        message: Message = json.loads(raw)
        check_server_message(message)
        return message

    async def send(message: Message) -> None:
        await ws.send(json.dumps({"table_id": table_id, **message}))

    try:
        sat = await http.post(f"/tables/{table_id}/sit", json={"seat": 0}, headers=player.headers)
        assert sat.status_code == 200, sat.text
        await send({"type": "autoplay", "on": True})
        while not ((m := await read())["type"] == "table_state" and m["seats"][0]["autoplay"]):
            pass
        filled = await http.post(f"/tables/{table_id}/fill-bots", headers=player.headers)
        assert filled.status_code == 200, filled.text
        ended = 0
        while ended < HANDS:
            message = await read()
            if message["type"] != "event":
                continue
            kind = message["event"]["kind"]
            if kind == "hand_started" and ended == HANDS // 2:
                await send({"type": "resume", "last_seq": 10**9})
            if kind == "hand_ended":
                ended += 1
                if ended < HANDS:
                    await send({"type": "ready"})
    finally:
        await ws.close()
    return received


async def test_every_hand_of_a_hundred_verifies_from_a_seats_messages(server: str) -> None:
    async with asyncio.timeout(240), \
            httpx.AsyncClient(base_url=f"http://{server}", timeout=30) as http:
        transcripts = await asyncio.gather(
            *(_hands_at_a_table(server, http, v) for v in sorted(VARIANTS)))

    checked = 0
    seeds: set[str] = set()
    for variant, texts in zip(sorted(VARIANTS), transcripts, strict=True):
        messages = [json.loads(t) for t in texts]
        hands = [(h, events) for h, events in verify.hands_of(messages) if events]
        assert len(hands) == HANDS, variant
        snapshots = [m for m in messages if m["type"] == "snapshot"]
        assert snapshots
        for hand_id, events in hands:
            started, ended = events[0], events[-1]
            assert started["kind"] == "hand_started" and ended["kind"] == "hand_ended"
            seed = bytes.fromhex(ended["seed"])
            # the contract: sha256(bytes.fromhex(seed)).hexdigest() == commitment
            assert hashlib.sha256(seed).hexdigest() == started["commitment"]
            assert len(seed) == 32 and ended["seed"] not in seeds
            seeds.add(ended["seed"])
            # nothing the socket received before the hand's end holds its seed
            end_at = next(i for i, t in enumerate(texts)
                          if '"hand_ended"' in t and f'"hand_id":"{hand_id}"' in t)
            assert not any(ended["seed"] in t for t in texts[:end_at]), hand_id
            for snapshot in snapshots:  # the bots may have played the hand out meanwhile
                if snapshot["hand_id"] == hand_id:
                    view = snapshot["view"]
                    assert view["commitment"] == started["commitment"]
                    assert view["seed"] == (None if view["outcome"] is None else ended["seed"])

            verdict = verify.check_hand(events, hand_id=hand_id)
            assert verdict.ok, verdict
            # its own seat (丽水 redraws the seats after a 版): its deal was checked
            seat = next(e["seat"] for e in events if e["kind"] == "dealt" and e["tiles"])
            size = verify.LAYOUTS[variant].hand_size
            assert verdict.dealt == size + (started["dealer"] == seat)
            checked += 1

            # one tile of the revealed wall changed: a tile the seat was dealt
            made = verify.shuffle_of(seed, variant)
            wall = list(made.wall)
            where = verify.dealt_positions(started["dealer"], size)[seat]
            position = where[seed[0] % len(where)]
            wall[position] = (wall[position] + 1) % 34
            doctored = verify.Shuffle(made.dice, tuple(wall), made.wild_dice)
            verdict = verify.check_hand(events, hand_id=hand_id, shuffle=doctored)
            assert verdict.status == "failed" and "dealt tiles" in verdict.message, verdict

            # one drawn tile of the transcript changed
            draws = [i for i, e in enumerate(events) if e["kind"] == "drew" and e["tile"]]
            if draws:
                changed = [dict(e) for e in events]
                tile = changed[draws[-1]]["tile"]
                changed[draws[-1]]["tile"] = "1m" if tile != "1m" else "2m"
                verdict = verify.check_hand(changed, hand_id=hand_id)
                assert verdict.status == "failed" and "draw" in verdict.message, verdict
    assert checked == 100 and len(seeds) == 100

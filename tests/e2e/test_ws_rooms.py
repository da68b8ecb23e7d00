"""Private rooms (好友房) over real WebSockets and REST (docs/rooms.md):

- a room is found only by its code: not in the lobby's list, not seated by table id; four
  players join by code and play its two-hand session with the owner's house rules; the
  session then ends (no third deal, the seats freed), every player is sent the final
  scoreboard, which equals the hands added up (points as `hand_ended` showed them, silver
  as the ledger moved it), and it stays readable by the players, not by others;
- dissolving: before the first hand only the owner may, at once; after it a vote that one
  refusal ends (play goes on) and that every person seated agreeing ends with the hand in
  play voided (no silver moves); a vote nobody finishes fails at its deadline;
- house rules are checked: an unknown option, a wrong type or a value out of bounds is
  refused naming the option, and nothing is made.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e import test_ws_variants
from tests.e2e.test_ws_hand import GRANT, Message, Player
from tests.e2e.test_ws_variants import Server, _close, _connect, _players
from tests.live import live_server, sqlite_settings

server = test_ws_variants.server  # the fixture: a real server (admin test mode on)

QUICK = {"discard": 30, "claim": 30, "decide": 30, "ready": 1}
SLOW = {"discard": 120, "claim": 120, "decide": 120, "ready": 1}


async def _room(http: httpx.AsyncClient, owner: Player, **body: Any) -> Message:
    made = await http.post("/rooms", json={
        "variant": "lishui", "stake": 2, "timers": QUICK, "length": {"count": 2}, **body,
    }, headers=owner.headers)
    assert made.status_code == 201, made.text
    return dict(made.json())


async def _join(http: httpx.AsyncClient, player: Player, code: str) -> int:
    joined = await http.post(f"/rooms/{code}/join", headers=player.headers)
    assert joined.status_code == 200, joined.text
    return int(joined.json()["seat"])


async def _room_message(player: Player, wanted: Callable[[Message], bool],
                        seen: list[Message] | None = None) -> Message:
    """The next `room` message whose room satisfies `wanted` (others read into `seen`)."""
    while True:
        message = await player.inbox.get()
        if seen is not None:
            seen.append(message)
        if message["type"] == "event":
            player.last_seq = max(player.last_seq, message["seq"])
        if message["type"] == "room" and wanted(message["room"]):
            return dict(message["room"])


async def _balance(http: httpx.AsyncClient, player: Player) -> int:
    return int((await http.get("/me", headers=player.headers)).json()["balance"])


async def test_a_room_found_by_its_code_plays_its_session_and_keeps_the_scoreboard(
    server: Server,
) -> None:
    async with asyncio.timeout(90), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "room")
        owner, stranger = players[0], (await _players(http, "other"))[0]
        room = await _room(http, owner, options={"follow_penalty": False, "base_first": 5})
        code, table_id = room["code"], room["table_id"]
        assert len(code) == 6 and code.isdigit()
        assert room["status"] == "open" and room["hands_played"] == 0
        assert room["options"] == {"follow_penalty": False, "base_first": 5}
        assert room["length"] == {"unit": "hands", "count": 2}

        # hidden from the lobby; its table id does not seat anyone
        listed = (await http.get("/tables", headers=stranger.headers)).json()
        assert table_id not in [t["id"] for t in listed]
        sat = await http.post(f"/tables/{table_id}/sit", headers=stranger.headers)
        assert sat.status_code == 404 and sat.json()["error"]["code"] == "not_found"
        # a wrong code finds nothing; the right one shows the room to anyone holding it
        wrong = "1" * 6 if code != "1" * 6 else "2" * 6
        assert (await http.get(f"/rooms/{wrong}", headers=stranger.headers)).status_code == 404
        shown = await http.get(f"/rooms/{code}", headers=stranger.headers)
        assert shown.status_code == 200 and shown.json()["table_id"] == table_id

        for p in players:
            await _connect(server, p)
        assert [await _join(http, p, code) for p in players] == [0, 1, 2, 3]
        for p in players:  # 托管: the server plays every seat at once
            await p.send({"type": "autoplay", "table_id": table_id, "on": True})

        seen: list[Message] = []
        final = await _room_message(owner, lambda r: r["status"] != "open", seen)
        assert final["status"] == "ended" and final["hands_played"] == 2
        assert final["seats"] == [None] * 4  # the seats are freed
        ended = [m for m in seen if m["type"] == "event" and m["event"]["kind"] == "hand_ended"]
        assert len(ended) == 2  # both hands shown, then the scoreboard
        progress = [m["room"]["hands_played"] for m in seen if m["type"] == "room"]
        assert progress == [1, 2]

        board = final["scoreboard"]
        me = [(await http.get("/me", headers=p.headers)).json()["id"] for p in players]
        assert [p["account_id"] for p in board["players"]] == me
        assert [p["name"] for p in board["players"]] == [f"room{s}" for s in range(4)]
        assert [h["hand_id"] for h in board["hands"]] == [m["hand_id"] for m in ended]
        for row, message in zip(board["hands"], ended, strict=True):
            assert row["points"] == message["event"]["net"]  # the seats sat in join order
        assert board["points"] == [sum(h["points"][i] for h in board["hands"]) for i in range(4)]
        silver = [await _balance(http, p) - GRANT for p in players]
        assert board["silver"] == silver  # what the ledger moved, hand by hand
        assert board["silver"] == [sum(h["silver"][i] for h in board["hands"]) for i in range(4)]
        if board["best"] is not None:
            best = board["best"]
            assert best["points"] == max(max(h["points"]) for h in board["hands"])

        # no third hand: the table is gone; the players read the scoreboard later, others not
        await asyncio.sleep(1.5)  # past the ready timer
        assert not [m for m in owner.inbox._queue if m.get("type") == "event"  # type: ignore[attr-defined]
                    and m["event"]["kind"] == "hand_started"]
        later = await http.get(f"/rooms/{code}", headers=players[2].headers)
        assert later.status_code == 200 and later.json()["scoreboard"] == board
        assert (await http.get(f"/rooms/{code}", headers=stranger.headers)).status_code == 404
        mine = (await http.get("/me/rooms", headers=players[3].headers)).json()
        assert [r["code"] for r in mine] == [code]
        # the hands replay by the room's rules (their options are stored with them)
        with sqlite3.connect(server.database) as conn:
            stored = conn.execute("SELECT options FROM hand_records WHERE table_id = ?",
                                  (table_id,)).fetchall()
        assert len(stored) == 2
        assert all(json.loads(row[0])["follow_penalty"] is False for row in stored)
        replay = await http.get(f"/hands/{ended[0]['hand_id']}/replay", headers=owner.headers)
        assert replay.status_code == 200
        await _close(players)


async def test_dissolving_before_the_first_hand_is_the_owners_and_immediate(
    server: Server,
) -> None:
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        owner, guest = (await _players(http, "early"))[:2]
        room = await _room(http, owner)
        code = room["code"]
        await _join(http, owner, code)
        await _join(http, guest, code)
        refused = await http.post(f"/rooms/{code}/dissolve", headers=guest.headers)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
        done = await http.post(f"/rooms/{code}/dissolve", headers=owner.headers)
        assert done.status_code == 200, done.text
        assert done.json()["status"] == "dissolved" and done.json()["seats"] == [None] * 4
        # both are free to sit elsewhere; the code opens nothing any more
        again = await http.post(f"/rooms/{code}/join", headers=guest.headers)
        assert again.status_code == 404
        other = await _room(http, guest)
        assert (await http.post(f"/rooms/{other['code']}/join",
                                headers=guest.headers)).status_code == 200


async def _room_in_play(server: Server, http: httpx.AsyncClient, prefix: str
                        ) -> tuple[list[Player], str, str]:
    """Two people and two of the house's bots in a room whose first hand is dealt (and
    waits: nobody acts for two minutes)."""
    people = (await _players(http, prefix))[:2]
    room = await _room(http, people[0], timers=SLOW, length={"count": 8})
    code, table_id = room["code"], room["table_id"]
    for p in people:
        await _connect(server, p)
        await _join(http, p, code)
    guest_bots = await http.post(f"/tables/{table_id}/fill-bots", headers=people[1].headers)
    assert guest_bots.status_code == 403  # only the owner calls bots to a room
    bots = await http.post(f"/tables/{table_id}/fill-bots", headers=people[0].headers)
    assert bots.status_code == 200, bots.text
    for p in people:
        _, _ = await p.next_of("event")  # the first hand has started
    return people, code, table_id


async def test_a_dissolve_vote_fails_on_one_refusal_and_passes_when_all_agree(
    server: Server,
) -> None:
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        (owner, guest), code, _ = await _room_in_play(server, http, "vote")

        asked = await http.post(f"/rooms/{code}/dissolve", headers=guest.headers)
        assert asked.status_code == 200, asked.text
        vote = asked.json()["vote"]
        me = [(await http.get("/me", headers=p.headers)).json()["id"] for p in (owner, guest)]
        assert sorted(vote["voters"]) == sorted(me)  # the bots do not vote
        assert vote["agreed"] == [me[1]] and 0 < vote["seconds_left"] <= 60
        told = await _room_message(owner, lambda r: r["vote"] is not None)
        assert told["vote"]["by"] == me[1]
        twice = await http.post(f"/rooms/{code}/dissolve", headers=owner.headers)
        assert twice.json()["error"]["code"] == "vote_open"
        again = await http.post(f"/rooms/{code}/vote", json={"agree": True}, headers=guest.headers)
        assert again.json()["error"]["code"] == "already_voted"

        no = await http.post(f"/rooms/{code}/vote", json={"agree": False}, headers=owner.headers)
        assert no.status_code == 200 and no.json()["vote"] is None
        assert no.json()["status"] == "open"  # play goes on
        await _room_message(guest, lambda r: r["vote"] is None)
        late = await http.post(f"/rooms/{code}/vote", json={"agree": True}, headers=owner.headers)
        assert late.json()["error"]["code"] == "no_vote"

        # the hand in play waits on a person by now (the bots' first turns are long over;
        # now and then they end the first hand among themselves, a win, and the next waits)
        before = [await _balance(http, p) for p in (owner, guest)]
        await http.post(f"/rooms/{code}/dissolve", headers=owner.headers)
        yes = await http.post(f"/rooms/{code}/vote", json={"agree": True}, headers=guest.headers)
        assert yes.status_code == 200, yes.text
        assert yes.json()["status"] == "dissolved"
        ended = await _room_message(owner, lambda r: r["status"] == "dissolved")
        assert ended["scoreboard"]["hands"][-1]["outcome"] == "voided"  # the one dissolved
        assert [await _balance(http, p) for p in (owner, guest)] == before  # nothing moved
        await _close([owner, guest])


@pytest.fixture
def quick_votes(tmp_path: Path) -> Iterator[Server]:
    """A server whose dissolve votes last one second."""
    database = tmp_path / "votes.db"
    with live_server(sqlite_settings(database, room_vote_seconds=1.0)) as (port, app):
        yield Server(f"127.0.0.1:{port}", app, database)


async def test_a_vote_nobody_finishes_fails_at_its_deadline(quick_votes: Server) -> None:
    server = quick_votes
    async with asyncio.timeout(60), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        (owner, guest), code, _ = await _room_in_play(server, http, "lapse")
        asked = await http.post(f"/rooms/{code}/dissolve", headers=owner.headers)
        assert asked.json()["vote"] is not None
        await _room_message(guest, lambda r: r["vote"] is not None)
        lapsed = await _room_message(guest, lambda r: r["vote"] is None)
        assert lapsed["status"] == "open"
        late = await http.post(f"/rooms/{code}/vote", json={"agree": True}, headers=guest.headers)
        assert late.json()["error"]["code"] == "no_vote"
        await _close([owner, guest])


@pytest.mark.parametrize(("options", "named"), [
    ({"no_such_rule": True}, "no_such_rule"),
    ({"follow_penalty": 1}, "follow_penalty"),  # an int is not a flag
    ({"base_first": "3"}, "base_first"),  # nor a string a number
    ({"base_first": 10_000}, "base_first"),  # out of its bounds
])
async def test_house_rules_are_checked_and_a_bad_one_makes_nothing(
    server: Server, options: dict[str, Any], named: str
) -> None:
    async with httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        owner = (await _players(http, f"bad{len(named)}"))[0]
        refused = await http.post("/rooms", json={
            "variant": "lishui", "stake": 1, "length": {"count": 1}, "options": options,
        }, headers=owner.headers)
        assert refused.status_code == 422
        assert refused.json()["error"]["details"]["option"] == named
        assert (await http.get("/me/rooms", headers=owner.headers)).json() == []
        every = (await http.get("/rooms/options", headers=owner.headers)).json()
        lishui = next(v for v in every if v["variant"] == "lishui")["options"]
        follow = next(o for o in lishui if o["name"] == "follow_penalty")
        assert follow["kind"] == "bool" and follow["default"] is True and follow["zh"]


async def test_an_option_the_shuffle_check_relies_on_is_fixed_in_rooms(server: Server) -> None:
    async with httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        owner = (await _players(http, "fixed"))[0]
        refused = await http.post("/rooms", json={
            "variant": "wenzhou", "stake": 1, "length": {"count": 1},
            "options": {"indicator_die_factor": 3},
        }, headers=owner.headers)
        assert refused.status_code == 422
        assert refused.json()["error"]["details"]["option"] == "indicator_die_factor"
        every = (await http.get("/rooms/options", headers=owner.headers)).json()
        wenzhou = next(v for v in every if v["variant"] == "wenzhou")["options"]
        assert "indicator_die_factor" not in [o["name"] for o in wenzhou]
        assert "honours_first" in [o["name"] for o in wenzhou]


async def test_the_table_of_a_room_names_its_code_to_its_players_only(server: Server) -> None:
    """GET /tables/{id}/players tells the room's code to its owner and to a player seated
    there (the table page shows the room from it), to nobody else: the code is the key."""
    async with httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        owner, guest, stranger, _ = await _players(http, "named")
        room = await _room(http, owner)
        code, table_id = room["code"], room["table_id"]

        async def named(player: Player) -> str | None:
            read = await http.get(f"/tables/{table_id}/players", headers=player.headers)
            assert read.status_code == 200, read.text
            return read.json()["room"]  # type: ignore[no-any-return]

        assert await named(owner) == code  # not seated yet: the owner still
        assert await named(guest) is None
        await _join(http, guest, code)
        assert await named(guest) == code
        assert await named(stranger) is None
        public = await http.post("/tables", json={"variant": "lishui", "stake": 1},
                                 headers=stranger.headers)
        listed = await http.get(f"/tables/{public.json()['id']}/players", headers=stranger.headers)
        assert listed.json()["room"] is None


async def test_a_rematch_opens_one_room_with_the_same_rules_and_invites_the_players(
    server: Server,
) -> None:
    """再来一局: refused for an unknown code, a room still open and a stranger; a player of a
    finished room opens a new one with the same rules and owner, every player of the old
    room is told of it, and a second press (by anyone) answers the same room."""
    async with asyncio.timeout(90), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        players = await _players(http, "again")
        owner, stranger = players[0], (await _players(http, "nope"))[0]
        wrong = await http.post("/rooms/000000/rematch", headers=owner.headers)
        assert wrong.status_code == 404 and wrong.json()["error"]["code"] == "not_found"
        rules = {"follow_penalty": False, "base_first": 5}
        room = await _room(http, owner, options=rules, length={"count": 1}, spectators=True)
        code, table_id = room["code"], room["table_id"]
        running = await http.post(f"/rooms/{code}/rematch", headers=owner.headers)
        assert running.status_code == 409 and running.json()["error"]["code"] == "room_open"

        for p in players:
            await _connect(server, p)
        for p in players:
            await _join(http, p, code)
        for p in players:
            await p.send({"type": "autoplay", "table_id": table_id, "on": True})
        for p in players:
            await _room_message(p, lambda r: r["status"] != "open")

        refused = await http.post(f"/rooms/{code}/rematch", headers=stranger.headers)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
        ids = [(await http.get("/me", headers=p.headers)).json()["id"] for p in players]
        made = await http.post(f"/rooms/{code}/rematch", headers=players[1].headers)
        assert made.status_code == 201, made.text
        new = made.json()
        assert new["code"] != code and new["status"] == "open" and new["seats"] == [None] * 4
        assert new["owner_id"] == ids[0]  # the same host, whoever pressed
        for key in ("variant", "options", "stake", "timers", "length", "spectators"):
            assert new[key] == room[key], key
        # every player of the old room is invited: the old room names the new one
        for p in players:
            told = await _room_message(p, lambda r: r["code"] == code and r["rematch"] is not None)
            assert told["rematch"] == {"code": new["code"], "table_id": new["table_id"], "by": ids[1]}
        again = await http.post(f"/rooms/{code}/rematch", headers=owner.headers)
        assert again.status_code == 200 and again.json()["code"] == new["code"]
        shown = (await http.get(f"/rooms/{code}", headers=players[3].headers)).json()
        assert shown["rematch"]["code"] == new["code"]
        # a player who takes it up sits there like in any room; nobody else was seated
        assert await _join(http, players[2], new["code"]) == 0
        now = (await http.get(f"/rooms/{new['code']}", headers=players[3].headers)).json()
        assert now["seats"] == [ids[2], None, None, None]
        await _close(players)


async def test_an_invite_link_leads_to_the_room_page_that_seats_the_visitor(server: Server) -> None:
    async with httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        link = await http.get("/r/482913")
        assert link.status_code == 303 and link.headers["location"] == "/#/room/482913/join"
        for bad in ("48291", "4829130", "48291x"):
            assert (await http.get(f"/r/{bad}")).status_code == 404, bad


async def test_rematch_pressed_at_once_twice_opens_one_room(server: Server) -> None:
    """Two presses at the same moment (two taps, two players) answer the same new room, and
    no second room stays open."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        owner = (await _players(http, "twice"))[0]
        room = await _room(http, owner)
        code = room["code"]
        await _join(http, owner, code)
        done = await http.post(f"/rooms/{code}/dissolve", headers=owner.headers)
        assert done.json()["status"] == "dissolved"
        first, second = await asyncio.gather(
            http.post(f"/rooms/{code}/rematch", headers=owner.headers),
            http.post(f"/rooms/{code}/rematch", headers=owner.headers),
        )
        assert sorted([first.status_code, second.status_code]) == [200, 201]  # one made it
        assert first.json()["code"] == second.json()["code"]
        made = first.json()
        mine = (await http.get("/me/rooms", headers=owner.headers)).json()
        assert [r["code"] for r in mine if r["status"] == "open"] == [made["code"]]
        assert (await http.get(f"/rooms/{code}", headers=owner.headers)).json()["rematch"]["code"] == made["code"]


async def test_the_owner_chooses_the_bots_level_and_a_rematch_keeps_it(server: Server) -> None:
    """The room's owner picks who plays its house bots (高手 here); a bad level makes
    nothing; the room's table plays at that level, and the rematch's room and table too."""
    async with asyncio.timeout(30), httpx.AsyncClient(base_url=f"http://{server.address}") as http:
        owner = (await _players(http, "level"))[0]
        bad = await http.post("/rooms", json={
            "variant": "lishui", "stake": 2, "length": {"count": 2}, "bot_level": "master",
        }, headers=owner.headers)
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "validation_error"
        assert (await http.get("/me/rooms", headers=owner.headers)).json() == []
        plain = await _room(http, owner)
        assert plain["bot_level"] == "standard"  # nobody chose: the house's greedy bot
        await http.post(f"/rooms/{plain['code']}/dissolve", headers=owner.headers)

        room = await _room(http, owner, bot_level="expert")
        assert room["bot_level"] == "expert"
        await _join(http, owner, room["code"])
        table = await http.get(f"/tables/{room['table_id']}/players", headers=owner.headers)
        assert table.json()["bot_level"] == "expert"
        done = await http.post(f"/rooms/{room['code']}/dissolve", headers=owner.headers)
        assert done.json()["status"] == "dissolved"
        made = await http.post(f"/rooms/{room['code']}/rematch", headers=owner.headers)
        assert made.status_code == 201, made.text
        new = made.json()
        assert new["bot_level"] == "expert"
        await _join(http, owner, new["code"])
        table = await http.get(f"/tables/{new['table_id']}/players", headers=owner.headers)
        assert table.json()["bot_level"] == "expert"

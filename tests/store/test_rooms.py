"""Private rooms in the database (app/rooms/store.py): a room's session counted from its
table's stored hands, in hands (a voided one does not count) or in 版 (the hands that
ended one); codes unique among open rooms and free again once a room is over; the
scoreboard of the hands stored (app/rooms/scoreboard.py)."""

from __future__ import annotations

import json

from app.rooms import store
from app.rooms.scoreboard import PlayedHand, scoreboard
from app.store import accounts
from app.store.db import Database
from app.store.models import HandRecord, Room


def _hand(table_id: str, n: int, seats: list[int | None], net: list[int], *,
          voided: bool = False, session_end: bool = False) -> HandRecord:
    result: dict[str, object] = {} if voided else {"outcome": "win", "net": net}
    if session_end:
        result["session_end"] = True
    return HandRecord(id=f"{table_id}-{n}", table_id=table_id, variant="lishui", seed="00" * 32,
                      seats=json.dumps(seats), ctx="{}", actions="[]", result=json.dumps(result),
                      voided=voided)


async def test_a_session_counts_hands_or_ban_and_codes_come_free(db: Database) -> None:
    async with db.sessions() as s, s.begin():
        owner = (await accounts.create(s, "owner", "x")).id
        rooms = [await store.insert(s, Room(
            table_id=f"t{unit}", owner_id=owner, variant="lishui", options="{}", stake=1,
            timers="{}", length_unit=unit, length=2, spectators=False, status="open",
        )) for unit in ("hands", "ban")]
        assert rooms[0].code != rooms[1].code
        for room in rooms:
            t = room.table_id
            s.add_all([
                _hand(t, 1, [owner, None, None, None], [3, -1, -1, -1]),
                _hand(t, 2, [owner, None, None, None], [0, 0, 0, 0], voided=True),
                _hand(t, 10, [owner, None, None, None], [-2, 2, 0, 0], session_end=True),
            ])
    async with db.sessions() as s, s.begin():
        by_hands = await store.open_room(s, rooms[0].code)
        by_ban = await store.open_room(s, rooms[1].code)
        assert by_hands is not None and by_ban is not None
        played = await store.hands(s, by_hands.table_id)
        assert store.progress(by_hands, played) == 2  # the voided hand does not count
        assert store.progress(by_ban, await store.hands(s, by_ban.table_id)) == 1  # one 版
        sheet, names = await store.board(s, played)
        # in the order played: hand 10 after hand 2 (not as text would sort them)
        assert [r.hand_id for r in sheet.rows] == ["thands-1", "thands-2", "thands-10"]
        assert [r.outcome for r in sheet.rows] == ["win", "voided", "win"]
        assert sheet.points == {owner: 1} and names == {owner: "owner"}
        assert await store.finish(s, by_hands, "ended", "{}", by_hands.created_at)
        assert not await store.finish(s, by_hands, "ended", "{}", by_hands.created_at)
    async with db.sessions() as s, s.begin():
        assert await store.open_room(s, rooms[0].code) is None  # the code is free again
        again = await store.closed_room_of(s, rooms[0].code, owner)
        assert again is not None and again.status == "ended"
        assert await store.closed_room_of(s, rooms[0].code, owner + 1) is None


def test_the_scoreboard_adds_up_the_hands_per_player() -> None:
    hands = [
        PlayedHand("h1", (1, 2, 3, 4), "win", (9, -3, -3, -3), {1: 90, 2: -30, 3: -30, 4: -30}),
        PlayedHand("h2", (1, 2, 3, 5), "win", (-2, -2, -2, 6), {1: -20, 2: -20, 3: -20, 5: 60}),
        PlayedHand("h3", (1, 2, 3, 5), None, (), {}),
    ]
    sheet = scoreboard(hands)
    assert sheet.players == [1, 2, 3, 4, 5]  # 5 took 4's seat for the second hand
    assert sheet.points == {1: 7, 2: -5, 3: -5, 4: -3, 5: 6}
    assert sheet.silver == {1: 70, 2: -50, 3: -50, 4: -30, 5: 60}
    assert [r.outcome for r in sheet.rows] == ["win", "win", "voided"]
    assert sheet.rows[2].points == {1: 0, 2: 0, 3: 0, 5: 0}
    assert sheet.best is not None and (sheet.best.account, sheet.best.points) == (1, 9)

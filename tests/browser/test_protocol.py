"""The reference client of the table socket (the client kit's clients/js/src/protocol.js), run
in Chromium against a real server: a lost event is resumed from the last seq and a duplicate
ignored; a refused action comes back paired with the message that carried its ref_seq; after
the connection is closed from the server's side the client reconnects, resumes and holds the
server's own view of the hand; a `rate_limited` notice makes it send a dropped action once
more, and the refusal of a copy of an action that was taken is not reported; a newer
connection of the account (4000) ends it. A spectator's client watches from a snapshot,
watches again over a lost event, and holds the seat's own view of the discards.

The page's socket class is wrapped (`TapSocket`) to see every frame and to lose or
duplicate chosen events before the client reads them; the server is the real one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute

from app.protocol.tiles import to_code
from tests.browser.conftest import PASSWORD, Server
from tests.browser.test_client import CHOW_ON_5M

# 丽水, seat 0 (the player) deals; seats 1-3 are bots. Nothing times out during a test.
SCENARIO = {**CHOW_ON_5M, "timers": {"discard": 120, "claim": 120, "decide": 120, "ready": 1}}
DEALER_TILES = ["1p", "1s", "1z", "2p", "2z", "3z", "4z", "5m", "5z", "6z", "7z", "8p", "8s", "9p"]
FIRST_PROMPT = 6  # hand_started, four deals, the wild turned
HARMLESS = {"stale", "not_your_turn", "already_answered", "hand_over", "not_in_hand"}

HARNESS = """async ({ token, tableId, drop, dup, watch }) => {
  const { ProtocolClient } = await import("/static/kit/protocol.js");
  const { applyEvent, emptyHand, fromSnapshot } = await import("/static/kit/model.js");
  const tap = { tableId, sent: [], received: [], log: [], sockets: [], drop: new Set(drop),
    dup: new Set(dup), hand: null, prompt: null };
  window.tap = tap;
  // the page's own WebSocket, seen from inside: every frame sent and received; an event
  // whose seq is in `drop` is lost once, one in `dup` is read twice
  class TapSocket extends WebSocket {
    constructor(url) { super(url); tap.sockets.push(this); }
    send(text) {
      tap.sent.push({ socket: tap.sockets.indexOf(this), ...JSON.parse(text) });
      super.send(text);
    }
    set onmessage(read) {
      super.onmessage = (frame) => {
        const m = JSON.parse(frame.data);
        tap.received.push(m);
        const seq = m.type === "event" ? m.seq : null;
        if (tap.drop.delete(seq)) return;
        read(frame);
        if (tap.dup.delete(seq)) read(frame);
      };
    }
  }
  const note = (kind, m, sent = null) => tap.log.push({ kind, m, sent });
  tap.client = new ProtocolClient({
    url: `ws://${location.host}/ws`, token: () => token, WebSocket: TapSocket,
    onEvent: (m) => {
      note("event", m);
      if (m.event.kind === "hand_started") tap.hand = emptyHand();
      applyEvent(tap.hand, m.event, m.hand_id);
      if (!["decided", "penalized"].includes(m.event.kind)) tap.prompt = null;
    },
    onPrompt: (m) => { note("prompt", m); tap.prompt = m; },
    onSnapshot: (m) => { note("snapshot", m); tap.hand = fromSnapshot(m.view, m.hand_id); },
    onSeated: (m) => note("seated", m),
    onTableState: (m) => note("table_state", m),
    onWatching: (m) => note("watching", m),
    onChat: (m) => note("chat", m),
    onError: (m, sent) => note("error", m, sent),
    onStatus: (status, detail) => note("status", { status, code: detail ? detail.code : null }),
  });
  if (watch) tap.client.watch(tableId);
  else tap.client.follow(tableId);
  tap.client.connect();
}"""

# what the client holds of the hand: seat 0's tiles, every seat's discards, the wall
HELD = """() => ({
  hand: [...tap.hand.seats[0].hand].sort(),
  discards: tap.hand.seats.map((s) => s.discards.map((d) => d.tile)),
  wall: tap.hand.wall,
})"""

# 25 pings past the client, over the server's limit of 20 a second, with an action sent
# `before` or `after` them, all in one task (no answer of the server's comes between)
FLOOD = """({ tableId, before, after }) => {
  const ws = tap.sockets[tap.sockets.length - 1];
  if (before) tap.client.act(tableId, before);
  for (let i = 0; i < 25; i++) ws.send(JSON.stringify({ v: 2, type: "ping", nonce: `f${i}` }));
  if (after) tap.client.act(tableId, after);
}"""


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: print(f"page error: {e}"))
    page.goto(server.base + "/")
    yield page
    context.close()


def _seated_player(server: Server, name: str) -> tuple[str, str]:
    """A new player, made an admin, seated at seat 0 of a test table dealt from SCENARIO
    (not yet filled: nothing is dealt). Its access token and the table id."""
    with server.http() as http:
        made = http.post("/auth/register", json={"username": name, "password": PASSWORD})
        assert made.status_code in (200, 201), made.text
        server.make_admin(name)
        headers = server.token(name)
        table = http.post("/admin/tables/test", json=SCENARIO, headers=headers)
        assert table.status_code == 201, table.text
        table_id = str(table.json()["id"])
        sat = http.post(f"/tables/{table_id}/sit", json={"seat": 0}, headers=headers)
        assert sat.status_code == 200, sat.text
    return headers["Authorization"].removeprefix("Bearer "), table_id


def _fill_bots(server: Server, name: str, table_id: str) -> None:
    with server.http() as http:
        filled = http.post(f"/tables/{table_id}/fill-bots", headers=server.token(name))
        assert filled.status_code == 200, filled.text


def _start(page: Page, token: str, table_id: str, *, drop: tuple[int, ...] = (),
           dup: tuple[int, ...] = ()) -> None:
    page.evaluate(HARNESS, {"token": token, "tableId": table_id, "drop": list(drop),
                            "dup": list(dup)})
    # connected and answered: the resume of a table that has not dealt is refused (no_hand)
    page.wait_for_function("() => tap.log.some((x) => x.kind === 'error')")


def _log(page: Page, kind: str) -> list[dict[str, Any]]:
    return list(page.evaluate("(kind) => tap.log.filter((x) => x.kind === kind)", kind))


def _applied(page: Page) -> list[int]:
    return [int(x["m"]["seq"]) for x in _log(page, "event")]


def _sent(page: Page, kind: str) -> list[dict[str, Any]]:
    return list(page.evaluate("(kind) => tap.sent.filter((m) => m.type === kind)", kind))


def _prompt_after(page: Page, seq: int) -> dict[str, Any]:
    """Wait for a prompt of the player's later than `seq`; the prompt."""
    page.wait_for_function("(seq) => tap.prompt && tap.prompt.seq > seq", arg=seq)
    return dict(page.evaluate("() => tap.prompt"))


def _event_after(page: Page, seq: int) -> None:
    """Wait until the client has applied an event later than `seq`."""
    page.wait_for_function("(seq) => tap.client.lastSeq(tap.tableId) > seq", arg=seq)


def _answer(prompt: dict[str, Any]) -> dict[str, Any]:
    """A legal answer: 过 in a claim window, else the last discard offered."""
    legal = prompt["legal_actions"]
    passing = [a for a in legal if a["type"] == "pass"]
    if passing:
        return dict(passing[0])
    return dict([a for a in legal if a["type"] == "discard"][-1])


def test_a_lost_event_is_resumed_and_a_duplicate_is_ignored(page: Page, server: Server) -> None:
    token, table_id = _seated_player(server, "gap")
    _start(page, token, table_id, drop=(3,), dup=(2,))
    _fill_bots(server, "gap", table_id)
    prompt = _prompt_after(page, 0)

    assert prompt["seq"] == FIRST_PROMPT
    # every event applied once, in order: 2 read twice, 3 lost then replayed
    assert _applied(page) == list(range(1, FIRST_PROMPT + 1))
    received = [m["seq"] for m in page.evaluate("() => tap.received") if m["type"] == "event"]
    assert received.count(3) == 2
    # the gap (4 after 2) asked for what was missed from 2
    assert [m["last_seq"] for m in _sent(page, "resume")] == [0, 2]
    assert page.evaluate(HELD)["hand"] == DEALER_TILES


def test_a_refused_action_is_reported_with_its_ref_seq(page: Page, server: Server) -> None:
    token, table_id = _seated_player(server, "refused")
    _start(page, token, table_id)
    _fill_bots(server, "refused", table_id)
    prompt = _prompt_after(page, 0)

    page.evaluate("(t) => tap.client.act(t, { type: 'discard', tile: '3m' })", table_id)
    page.wait_for_function("() => tap.log.filter((x) => x.kind === 'error').length === 2")
    refused = _log(page, "error")[-1]
    assert refused["m"]["code"] == "tile_not_in_hand"
    assert refused["m"]["ref_seq"] == prompt["seq"]
    assert refused["sent"]["action"] == {"type": "discard", "tile": "3m"}

    # the legal discard is taken; the same answer again, late, is refused and paired
    page.evaluate("(t) => tap.client.act(t, { type: 'discard', tile: '1z' })", table_id)
    _event_after(page, prompt["seq"])
    page.evaluate("""([t, seq]) => tap.client.send({ type: "action", table_id: t, seq,
      action: { type: "discard", tile: "1z" } })""", [table_id, prompt["seq"]])
    page.wait_for_function("() => tap.log.filter((x) => x.kind === 'error').length === 3")
    late = _log(page, "error")[-1]
    assert late["m"]["code"] in {"stale", "not_your_turn"}
    assert late["m"]["ref_seq"] == prompt["seq"]
    assert late["sent"]["action"] == {"type": "discard", "tile": "1z"}


def test_after_the_server_closes_the_socket_the_client_resumes_to_the_same_state(
    page: Page, server: Server
) -> None:
    sockets: list[WebSocketRoute] = []
    lost: list[dict[str, Any]] = []  # what the server sent into the first, dying connection

    def through(ws: WebSocketRoute) -> None:
        """A proxy between the page and the server. The first connection dies: once `lost`
        is started, nothing more of the server's reaches the page, and then the page's
        socket is closed as by a server going away (the server's side closes with it)."""
        first = not sockets
        upstream = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if first and lost:
                lost.append(json.loads(message))
            else:
                ws.send(message)

        upstream.on_message(from_server)
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws$"), through)
    token, table_id = _seated_player(server, "closed")
    _start(page, token, table_id)
    _fill_bots(server, "closed", table_id)
    prompt = _prompt_after(page, 0)

    # the player discards, and the connection dies: the hand goes on without the page
    # until the server waits for this player again, then the socket is closed
    lost.append({"type": "start"})
    page.evaluate("(t) => tap.client.act(t, { type: 'discard', tile: '1z' })", table_id)
    for _ in range(400):  # the proxy's handler runs while the page waits
        if any(m["type"] == "prompt" for m in lost):
            break
        page.wait_for_timeout(50)
    else:
        raise AssertionError(f"the server sent no prompt: {lost}")
    assert _applied(page) == list(range(1, prompt["seq"] + 1))
    sockets[0].close(code=1012, reason="restart")

    # connected again: the resume is answered with what was missed, then the prompt
    page.wait_for_function("""() => {
      const again = tap.log.findIndex((x, i) => x.kind === "status" && x.m.status === "open" &&
        tap.log.slice(0, i).some((y) => y.kind === "status" && y.m.status === "reconnecting"));
      return again >= 0 && tap.log.slice(again).some((x) => x.kind === "prompt");
    }""")
    following = dict(page.evaluate("() => tap.prompt"))
    missed = [m["seq"] for m in lost if m["type"] == "event"]
    assert missed and following["seq"] == missed[-1]
    assert len(sockets) == 2
    hellos = _sent(page, "hello")
    assert [m["socket"] for m in hellos] == [0, 1]
    resumes = [m for m in _sent(page, "resume") if m["socket"] == 1]
    assert resumes[0]["last_seq"] == prompt["seq"]
    assert _applied(page) == list(range(1, following["seq"] + 1))  # nothing lost or twice

    # the client holds what the server holds (it waits for this player's answer); the
    # admin's view has the core's tile numbers
    with server.http() as http:
        inspected = http.get(
            f"/admin/tables/{table_id}", params={"reveal": "true", "reason": "test"},
            headers=server.token("closed"),
        ).json()["view"]
    held = page.evaluate(HELD)
    assert held["hand"] == sorted(to_code(t) for t in inspected["seats"][0]["hand"])
    assert held["wall"] == inspected["wall_remaining"]
    river = [[to_code(r["tile"]) for r in inspected["river"] if r["seat"] == s] for s in range(4)]
    assert held["discards"] == river
    # and the hand goes on
    page.evaluate("([t, a]) => tap.client.act(t, a)", [table_id, _answer(following)])
    _event_after(page, following["seq"])


def test_rate_limited_sends_the_dropped_action_once_more(page: Page, server: Server) -> None:
    token, table_id = _seated_player(server, "flood")
    _start(page, token, table_id)
    _fill_bots(server, "flood", table_id)
    prompt = _prompt_after(page, 0)

    # taken, then frames over the limit: the copy sent after the pause is refused by the
    # server as already played, and the client does not report that
    page.evaluate(FLOOD, {"tableId": table_id, "before": {"type": "discard", "tile": "1z"}})
    page.wait_for_function(
        "(seq) => tap.received.some((m) => m.type === 'error' && m.ref_seq === seq)",
        arg=prompt["seq"])
    copies = [m for m in _sent(page, "action") if m["seq"] == prompt["seq"]]
    assert len(copies) == 2 and copies[0] == copies[1]
    refusal = [m for m in page.evaluate("() => tap.received") if m["type"] == "error"][-1]
    assert refusal["code"] in HARMLESS
    assert [e["m"]["code"] for e in _log(page, "error")] == ["no_hand", "rate_limited"]
    discarded = [e for e in _log(page, "event") if e["m"]["event"]["kind"] == "discarded"]
    assert discarded[0]["m"]["event"]["seat"] == 0
    assert discarded[0]["m"]["event"]["tile"] == "1z"
    assert len([e for e in discarded if e["m"]["event"]["seat"] == 0]) == 1

    # dropped: frames over the limit, then a discard on the player's next turn (claims
    # before it are passed), which the server drops; after the notice the client sends it
    # once more and it is played
    following = _prompt_after(page, prompt["seq"])
    while not any(a["type"] == "discard" for a in following["legal_actions"]):
        page.evaluate("([t, a]) => tap.client.act(t, a)", [table_id, _answer(following)])
        following = _prompt_after(page, following["seq"])
    answer = _answer(following)
    page.evaluate(FLOOD, {"tableId": table_id, "after": answer})
    _event_after(page, following["seq"])
    played = next(e["m"]["event"] for e in _log(page, "event")
                  if e["m"]["seq"] == following["seq"] + 1)
    assert (played["kind"], played["seat"], played["tile"]) == ("discarded", 0, answer["tile"])
    copies = [m for m in _sent(page, "action") if m["seq"] == following["seq"]]
    assert len(copies) == 2 and copies[0] == copies[1]
    assert [e["m"]["code"] for e in _log(page, "error")] == [
        "no_hand", "rate_limited", "rate_limited"]
    assert not [m for m in page.evaluate("() => tap.received")
                if m["type"] == "error" and m["ref_seq"] == following["seq"]]


def test_a_newer_connection_of_the_account_ends_the_older_client(
    page: Page, server: Server
) -> None:
    token, table_id = _seated_player(server, "twice")
    _start(page, token, table_id)
    page.evaluate("""async ([token, tableId]) => {
      const { ProtocolClient } = await import("/static/kit/protocol.js");
      tap.newer = [];
      tap.second = new ProtocolClient({ url: `ws://${location.host}/ws`, token: () => token,
        onSeated: (m) => tap.newer.push(m), onStatus: (s) => tap.newer.push(s) });
      tap.second.follow(tableId);
      tap.second.connect();
    }""", [token, table_id])
    page.wait_for_function("() => tap.log.some((x) => x.kind === 'status' &&"
                           " x.m.status === 'replaced')")
    statuses = [x["m"]["status"] for x in _log(page, "status")]
    assert statuses == ["connecting", "open", "replaced"]  # closed with 4000, not reconnecting
    assert _log(page, "status")[-1]["m"]["code"] == 4000
    assert page.evaluate("() => tap.client.stopped && !tap.client.isOpen")
    page.wait_for_function("() => tap.newer.some((m) => m.type === 'seated')")
    assert page.evaluate("() => tap.second.isOpen")


def test_a_spectator_watches_again_over_a_lost_event(browser: Browser, page: Page,
                                                     server: Server) -> None:
    """The spectator's client (`watch`) starts from the server's `watching` and snapshot,
    sends `watch` again when an event is lost (the answer: a fresh snapshot, no resume), is
    never prompted, and ends up with the same discards as the seated player, and no tile of
    any hand."""
    token, table_id = _seated_player(server, "watched")
    _start(page, token, table_id)
    _fill_bots(server, "watched", table_id)
    prompt = _prompt_after(page, 0)  # the hand waits for the player
    with server.http() as http:
        made = http.post("/auth/register", json={"username": "eye", "password": PASSWORD})
        assert made.status_code in (200, 201), made.text
    eye_token = server.token("eye")["Authorization"].removeprefix("Bearer ")
    context = browser.new_context()
    eye = context.new_page()
    eye.set_default_timeout(20_000)
    eye.goto(server.base + "/")
    lost = prompt["seq"] + 2  # the second event after the player's discard
    eye.evaluate(HARNESS, {"token": eye_token, "tableId": table_id, "drop": [lost], "dup": [],
                           "watch": True})
    eye.wait_for_function("() => tap.log.some((x) => x.kind === 'snapshot')")
    watching = _log(eye, "watching")[0]["m"]
    assert watching["seq"] == prompt["seq"] and watching["spectators"] == 1
    assert _log(eye, "snapshot")[0]["m"]["view"]["seat"] is None

    page.evaluate("([t, a]) => tap.client.act(t, a)", [table_id, _answer(prompt)])
    second = _prompt_after(page, prompt["seq"])
    eye.wait_for_function("(seq) => tap.client.lastSeq(tap.tableId) >= seq", arg=second["seq"])
    assert [m["type"] for m in _sent(eye, "watch")] == ["watch", "watch"]  # again, over the gap
    assert _sent(eye, "resume") == []
    assert len(_log(eye, "snapshot")) == 2 and _log(eye, "prompt") == []
    held, seen = eye.evaluate(HELD_ALL), page.evaluate(HELD)
    assert held["discards"] == seen["discards"] and held["wall"] == seen["wall"]
    assert held["hands"] == [None, None, None, None]
    context.close()


HELD_ALL = """() => ({
  hands: tap.hand.seats.map((s) => s.hand),
  discards: tap.hand.seats.map((s) => s.discards.map((d) => d.tile)),
  wall: tap.hand.wall,
})"""

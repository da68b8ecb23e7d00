"""The WebSocket protocol: every message validates from JSON and round-trips; the edge never
raises on hostile input; what a seat receives never holds another seat's concealed tiles;
docs/protocol.md stays true."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.protocol import (
    CLIENT_MESSAGE,
    ERROR_CODES,
    SERVER_MESSAGE,
    ActionMessage,
    AutoplayMessage,
    ErrorMessage,
    HelloMessage,
    PingMessage,
    from_rules_action,
    parse_client,
    parse_hello,
    seat_payload,
    to_code,
    to_rules_action,
    to_tile,
    view_model,
)
from app.protocol.events import EVENT_PAYLOAD, ScoreSheet, event_payload
from app.protocol.messages import HELLO
from app.protocol.transcript import transcript
from app.rules import actions as rules
from app.rules import errors as rules_errors
from app.rules.actions import Escape
from app.rules.context import TableContext
from app.rules.hand import replay
from app.rules.selfplay import HandRun, bot_factory, play_hand
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.views import seat_view

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
CLIENT_TYPES = {"action", "resume", "autoplay", "leave", "ready", "ping", "watch", "unwatch",
                "chat", "mute", "unmute"}
SERVER_TYPES = {"event", "prompt", "snapshot", "error", "pong", "seated", "table_state",
                "watching", "chat", "muted", "room"}
EVENT_KINDS = {
    "hand_started", "dealt", "wild_turned", "decided", "flowered", "drew", "discarded",
    "melded", "penalized", "gold_robbed", "won", "exhaustive_draw", "escaped", "hand_ended",
}


def _doc_examples() -> list[str]:
    """The messages the doc shows (a fence at the start of a line; REST bodies quoted inside
    lists are indented)."""
    return re.findall(r"^```json\n(.*?)\n```", DOC, re.DOTALL | re.MULTILINE)


def _validate_any(raw: str) -> Any:
    """A documented example as its model: a client message, a server message, an event or a
    score sheet (an entry of `hand_ended.scores`)."""
    data = json.loads(raw)
    if "base_reason" in data:
        return ScoreSheet.model_validate_json(raw)
    if "kind" in data:
        return EVENT_PAYLOAD.validate_json(raw)
    if data["type"] == "hello":
        return HELLO.validate_json(raw)
    if data["type"] in CLIENT_TYPES:
        try:
            return CLIENT_MESSAGE.validate_json(raw)
        except ValidationError:  # a type both ways (chat): the server's, then
            if data["type"] not in SERVER_TYPES:
                raise
    return SERVER_MESSAGE.validate_json(raw)


# --- every message, from JSON and back -------------------------------------------------


@pytest.mark.parametrize("raw", _doc_examples())
def test_every_documented_example_validates_and_round_trips(raw: str) -> None:
    model = _validate_any(raw)
    assert _validate_any(model.model_dump_json()) == model
    data = json.loads(raw)
    plain = "kind" in data or "base_reason" in data
    assert json.loads(model.model_dump_json()) == (data if plain else {"v": 2, **data})


def test_the_doc_shows_every_message_type_and_event_kind() -> None:
    shown = [json.loads(raw) for raw in _doc_examples()]
    assert {m["type"] for m in shown if "type" in m and "kind" not in m} == (
        CLIENT_TYPES | SERVER_TYPES | {"hello"}
    )
    kinds = {m["kind"] for m in shown if "kind" in m}
    kinds |= {m["event"]["kind"] for m in shown if m.get("type") == "event"}
    assert kinds == EVENT_KINDS
    actions = {m["action"]["type"] for m in shown if m.get("type") == "action"}
    assert actions == {
        "discard", "chow", "pung", "exposed_kong", "concealed_kong", "added_kong", "hu",
        "pass", "decide", "special",
    }


def test_the_doc_shows_a_score_sheet_of_every_variant_from_a_real_hand() -> None:
    sheets = [s for s in map(json.loads, _doc_examples()) if "base_reason" in s]
    rules = {"sum": "lishui", "highest": "wenzhou", "doublings": "huzhou",
             "base_and_flowers": "fuzhou", "la_or_flowers": "shanghai"}
    assert sorted(rules[s["rule"]] for s in sheets) == sorted(VARIANTS)
    for sheet in sheets:
        assert sheet["items"] and sheet["payments"] and sheet["groups"]
        assert all(item["name"] for item in sheet["items"])


def test_the_version_may_be_left_out_but_no_other_version_is_accepted() -> None:
    assert parse_client('{"type": "ping", "nonce": "a"}') == PingMessage(nonce="a")
    assert parse_client('{"v": 2, "type": "ping", "nonce": "a"}') == PingMessage(nonce="a")
    for other in ('{"v": 1, "type": "ping", "nonce": "a"}', '{"v": 3, "type": "ping", "nonce": "a"}'):
        refused = parse_client(other)
        assert isinstance(refused, ErrorMessage) and refused.code == "validation_error"


def test_a_hello_names_version_2_and_carries_a_token() -> None:
    assert parse_hello('{"v": 2, "type": "hello", "token": "eyJ.a.b"}') == HelloMessage(
        v=2, token="eyJ.a.b")
    for refused in (
        '{"type": "hello", "token": "eyJ.a.b"}',  # the version is not optional here
        '{"v": 1, "type": "hello", "token": "eyJ.a.b"}',
        '{"v": 2, "type": "hello", "token": ""}',
        '{"v": 2, "type": "hello", "token": "eyJ.a.b", "extra": 1}',
        '{"v": 2, "type": "ping", "nonce": "a"}',  # not a hello first
        '{"v": 2, "type": "hello", "token": 5}',
        "not json", b'{"v": 2, "type": "hello", "token": "eyJ.a.b"}',  # binary
    ):
        assert parse_hello(refused) is None
    # after the hello, a hello is no message the socket knows
    late = parse_client('{"v": 2, "type": "hello", "token": "eyJ.a.b"}')
    assert isinstance(late, ErrorMessage) and late.code == "unknown_type"


def test_messages_are_frozen() -> None:
    message = PingMessage(nonce="a")
    with pytest.raises(ValidationError):
        message.nonce = "b"  # type: ignore[misc]


# --- tiles -----------------------------------------------------------------------------


def test_every_tile_kind_has_a_code_and_back() -> None:
    assert [to_code(t) for t in (0, 9, 18, 27, 33, 34, 41)] == [
        "1m", "1p", "1s", "1z", "7z", "1f", "8f",
    ]
    assert all(to_tile(to_code(t)) == t for t in range(42))


@pytest.mark.parametrize("tile", ["0m", "8z", "9f", "5M", "m5", "55m", "", "5m ", 5, None])
def test_a_bad_tile_code_is_refused(tile: Any) -> None:
    raw = json.dumps({"type": "action", "table_id": "T1", "seq": 1,
                      "action": {"type": "discard", "tile": tile}})
    refused = parse_client(raw)
    assert isinstance(refused, ErrorMessage) and refused.code == "validation_error"
    assert "tile" in refused.message


# --- actions ---------------------------------------------------------------------------

EVERY_ACTION: list[rules.Action] = [
    rules.Discard(2, 4),
    rules.Chow(2, 11),
    rules.Pung(2),
    rules.ExposedKong(2),
    rules.ConcealedKong(2, 33),
    rules.AddedKong(2, 20),
    rules.Hu(2),
    rules.Pass(2),
    rules.Decide(2, "counter"),
    rules.Special(2, "rob_gold", 26),
]


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda a: a.type)
def test_every_action_round_trips_through_the_wire(action: rules.Action) -> None:
    sent = ActionMessage(table_id="T1", seq=7, action=from_rules_action(action))
    received = parse_client(sent.model_dump_json())
    assert isinstance(received, ActionMessage) and received == sent
    assert to_rules_action(received.action, seat=2) == action


def test_an_escape_is_a_leave_message_not_an_action() -> None:
    with pytest.raises(ValueError, match="leave"):
        from_rules_action(Escape(1))


# --- the edge --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{", "malformed"),
        (b"\xff\xfe", "malformed"),
        ("\ud800", "malformed"),
        ("[1, 2]", "malformed"),
        ('"ping"', "malformed"),
        ("[" * 2000 + "]" * 2000, "malformed"),
        ('{"type": "shout", "text": "hi"}', "unknown_type"),
        ("{}", "validation_error"),
        ('{"type": "ping"}', "validation_error"),
        ('{"type": "ping", "nonce": "a", "admin": true}', "validation_error"),
        ('{"type": "resume", "table_id": "T1", "last_seq": -1}', "validation_error"),
        ('{"type": "resume", "table_id": "T1", "last_seq": "5"}', "validation_error"),
        ('{"type": "resume", "table_id": "T1", "last_seq": 1e400}', "validation_error"),
        ('{"type": "resume", "table_id": "T1", "last_seq": ' + "9" * 400 + "}", "validation_error"),
        ('{"type": "autoplay", "table_id": "T1", "on": 1}', "validation_error"),
        ('{"type": "leave", "table_id": "../../etc"}', "validation_error"),
        ('{"type": "action", "table_id": "T1", "seq": 1, "action": {"type": "escape"}}',
         "validation_error"),
        ('{"type": "ping", "nonce": "' + "x" * 5000 + '"}', "too_large"),
    ],
)
def test_parse_client_answers_bad_input_with_a_stable_code(raw: str | bytes, code: str) -> None:
    refused = parse_client(raw)
    assert isinstance(refused, ErrorMessage)
    assert refused.code == code
    assert 0 < len(refused.message) <= 200


@pytest.mark.parametrize("level", ["beginner", "Expert", "", 3, None])
def test_an_autoplay_level_not_offered_is_refused_naming_the_field(level: object) -> None:
    # 托管 is offered at standard and expert only: 新手 is nobody's choice for their own seat
    raw = json.dumps({"type": "autoplay", "table_id": "T1", "on": True, "level": level})
    refused = parse_client(raw)
    assert isinstance(refused, ErrorMessage)
    assert refused.code == "validation_error"
    assert refused.message.startswith("level:")


@pytest.mark.parametrize(("extra", "level"), [({}, "standard"), ({"level": "expert"}, "expert"),
                                              ({"level": "standard"}, "standard")])
def test_an_autoplay_level_is_standard_unless_chosen(extra: dict[str, str], level: str) -> None:
    parsed = parse_client(json.dumps({"type": "autoplay", "table_id": "T1", "on": True, **extra}))
    assert isinstance(parsed, AutoplayMessage)
    assert parsed.level == level


@pytest.mark.parametrize(
    ("raw", "ref_seq"),
    [
        ('{"type": "action", "table_id": "T1", "seq": 7, "action": {"type": "nope"}}', 7),
        ('{"type": "action", "table_id": "../x", "seq": 0, "action": {"type": "pass"}}', 0),
        ('{"type": "resume", "table_id": "T1", "last_seq": 12, "extra": 1}', 12),
        ('{"type": "resume", "table_id": "T1", "last_seq": "12"}', None),  # not readable
        ('{"type": "action", "table_id": "T1", "seq": true, "action": {"type": "pass"}}', None),
        ('{"type": "ping", "nonce": "a", "seq": 3, "admin": 1}', 3),
        ("{", None),
    ],
)
def test_a_refused_message_is_named_by_the_seq_it_carried(raw: str, ref_seq: int | None) -> None:
    refused = parse_client(raw)
    assert isinstance(refused, ErrorMessage) and refused.ref_seq == ref_seq


def test_parse_client_names_the_bad_field() -> None:
    refused = parse_client('{"type": "resume", "table_id": "T1", "last_seq": -1}')
    assert isinstance(refused, ErrorMessage) and refused.message.startswith("last_seq:")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
    | st.sampled_from(["5m", "0m", "7z", "8z", "9f", "T1", "action", "ping", "discard"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                                 max_size=5),
    max_leaves=30,
)
message_types = st.sampled_from(sorted(CLIENT_TYPES | SERVER_TYPES) + ["", "PING", "escape"])
field_names = st.sampled_from(
    ["v", "table_id", "seq", "last_seq", "on", "nonce", "action", "tile", "low", "type",
     "choice", "name", "extra"]
)
message_like = st.builds(
    lambda t, fields, action: {"type": t, **fields, **({"action": action} if action else {})},
    message_types,
    st.dictionaries(field_names, json_values, max_size=6),
    st.none() | st.dictionaries(field_names, json_values, max_size=4)
    | st.fixed_dictionaries({"type": st.sampled_from(["discard", "chow", "hu", "kong", "x"]),
                             "tile": json_values}),
)


def _check_parsed(result: Any) -> None:
    if isinstance(result, ErrorMessage):
        assert result.code in ERROR_CODES and result.message
    else:
        # anything accepted is a well-formed client message that serialises back to itself
        assert CLIENT_MESSAGE.validate_json(result.model_dump_json()) == result


@settings(max_examples=400, deadline=None)
@given(st.one_of(json_values, message_like))
def test_parse_client_never_raises_on_hostile_json(value: Any) -> None:
    _check_parsed(parse_client(json.dumps(value)))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)))
def test_parse_client_never_raises_on_hostile_bytes(raw: str | bytes) -> None:
    _check_parsed(parse_client(raw))


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=3000), st.sampled_from(["[", "{\"a\":"]))
def test_parse_client_never_raises_on_deep_nesting(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    _check_parsed(parse_client(opener * depth + "1" + closer * depth))


# --- what each seat receives ------------------------------------------------------------


def sample_hands(
    variant: str, seeds: Sequence[int] = (1, 2, 3), escaper: int = 2
) -> list[HandRun]:
    """Hands of `variant` by random and greedy bots from `seeds`, and the longest of them
    again, ended by `escaper`'s escape (逃跑) half way through."""
    ruleset = get_ruleset(variant)
    runs = [play_hand(ruleset, seed, TableContext(dealer=seed % 4), bot_factory(bots))
            for seed in seeds for bots in ("random", "greedy")]
    long = max(runs, key=lambda run: len(run.actions))
    actions = [*long.actions[: len(long.actions) // 2], Escape(escaper)]
    state, events = replay(ruleset, long.state.seed, long.state.ctx, actions)
    runs.append(HandRun(state, events, actions))
    return runs


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def variant_hands(request: pytest.FixtureRequest) -> list[HandRun]:
    return sample_hands(request.param)


PRIVATE = {"dealt": "tiles", "drew": "tile"}


def test_no_seat_receives_another_seats_concealed_tiles(variant_hands: list[HandRun]) -> None:
    for run in variant_hands:
        for event in run.events:
            for viewer in (0, 1, 2, 3, None):
                payload = seat_payload(event, viewer).model_dump()
                owner = payload.get("seat")
                if payload["kind"] in PRIVATE:
                    shown = payload[PRIVATE[payload["kind"]]]
                    assert (shown is not None) == (owner == viewer), (payload, viewer)
                if payload["kind"] == "melded" and payload["meld"] == "concealed_kong":
                    assert (payload["tiles"] is not None) == (owner == viewer)


def test_every_event_of_real_hands_goes_out_with_tiles_as_codes(
    variant_hands: list[HandRun],
) -> None:
    for run in variant_hands:
        for event in run.events:
            for viewer in range(4):
                payload = seat_payload(event, viewer)
                assert EVENT_PAYLOAD.validate_json(payload.model_dump_json()) == payload


def test_a_view_shows_only_the_seats_own_hand(variant_hands: list[HandRun]) -> None:
    for run in sorted(variant_hands, key=lambda run: -len(run.actions))[:2]:
        ruleset, seed = run.state.ruleset, run.state.seed
        middle = run.actions[: len(run.actions) // 2]
        state, _ = replay(ruleset, seed, run.state.ctx, middle)
        for viewer in range(4):
            view = view_model(seat_view(state, viewer))
            for seat in view.seats:
                assert (seat.hand is not None) == (seat.seat == viewer)
            mine = view.seats[viewer].hand
            assert mine is not None and [to_tile(c) for c in mine] == state.hand_tiles(viewer)


def test_every_event_kind_is_seen_in_real_hands() -> None:
    seen = {e.kind for v in sorted(VARIANTS) for run in sample_hands(v) for e in run.events}
    assert seen >= EVENT_KINDS - {"gold_robbed", "penalized", "exhaustive_draw"}


# --- errors ----------------------------------------------------------------------------


def test_every_rules_error_code_is_a_wire_code() -> None:
    doc = rules_errors.IllegalAction.__doc__ or ""
    listed = re.search(r"Codes \(stable, used on the wire\):(.*?)\.\n", doc, re.DOTALL)
    assert listed is not None
    codes = {c.strip() for c in listed.group(1).split(",")}
    raised = set()
    for path in (ROOT / "app" / "rules").rglob("*.py"):
        raised |= set(re.findall(r'IllegalAction\(\s*"(\w+)"', path.read_text()))
    assert raised <= codes <= ERROR_CODES
    assert {"malformed", "unknown_type", "validation_error", "stale", "wrong_table",
            "rate_limited", "unauthorized"} <= ERROR_CODES


# --- the documented hand ------------------------------------------------------------------


def test_the_doc_quotes_the_transcript_generators_current_output() -> None:
    lines = transcript()
    assert "```jsonl\n" + "".join(line + "\n" for line in lines) + "```" in DOC


def test_the_transcript_is_a_valid_conversation() -> None:
    messages = [json.loads(line) for line in transcript()]
    seqs = [m["seq"] for m in messages if m["type"] == "event"]
    assert seqs == list(range(1, len(seqs) + 1))
    for line, message in zip(transcript(), messages, strict=True):
        assert _validate_any(line).model_dump_json() == line
    assert messages[0]["type"] == "hello"
    # each action the client sends answers the prompt just before it, with an offered action
    for before, message in itertools.pairwise(messages):
        if message["type"] == "action":
            assert before["type"] == "prompt" and message["seq"] == before["seq"]
            assert message["action"] in before["legal_actions"]
    hidden = [m["event"] for m in messages if m["type"] == "event"
              and m["event"]["kind"] in PRIVATE and m["event"]["seat"] != 0]
    assert hidden and all(e[PRIVATE[e["kind"]]] is None for e in hidden)


def test_hand_ended_reveals_every_seats_melds_and_flowers() -> None:
    """A client rebuilds no table from the events to show the end: `hand_ended` names every
    seat's sets (as their `melded` events made them, 加杠 grown to four, 暗杠 shown) and
    flowers."""
    for variant in sorted(VARIANTS):
        for run in sample_hands(variant):
            (ended,) = [e for e in run.events if e.kind == "hand_ended"]
            payload = event_payload(ended).model_dump(mode="json")
            flowered = [[to_code(e.tile) for e in run.events
                         if e.kind == "flowered" and e.seat == s] for s in range(4)]
            assert payload["flowers"] == flowered
            for seat in range(4):
                melds = payload["melds"][seat]
                assert [m["meld"] for m in melds] == [m.kind for m in run.state.melds[seat]]
                assert [m["tiles"] for m in melds] == [
                    [to_code(t) for t in m.tiles] for m in run.state.melds[seat]]
                declared = [e for e in run.events if e.kind == "melded" and e.seat == seat]
                assert len(melds) == len([e for e in declared if e.meld != "added_kong"])

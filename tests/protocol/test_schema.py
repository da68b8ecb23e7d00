"""The protocol's JSON Schema and AsyncAPI document (`app.protocol.schema`) as a client
developer reads them: every field described, every vocabulary an enumeration with the
meaning of each value and the same values as the server's code, every reference
resolving, and docs/protocol.md's generated reference equal to the schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from app.protocol import CLIENT_MESSAGE, SERVER_MESSAGE, doc
from app.protocol.schema import asyncapi_document, protocol_schema
from app.protocol.vocabulary import (
    GROUP_SHAPES,
    HUZHOU_LEVELS,
    LEDGER_REASONS,
    SCORE_ITEM_KINDS,
    SCORE_ITEM_NAMES,
    SCORE_ITEMS,
    SCORE_RULES,
    SPECIALS,
    VARIANTS,
)
from app.rules import scoring
from app.rules.variants import VARIANTS as RULESETS
from app.rules.variants import fuzhou, huzhou, lishui, shanghai, wenzhou
from app.store.models import REASONS
from tests.contract import violation


def _properties(schema: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(schema, dict):
        for name, prop in schema.get("properties", {}).items():
            yield f"{where}.{name}", prop
        for key, value in schema.items():
            yield from _properties(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            yield from _properties(value, f"{where}[{i}]")


def test_the_schema_is_valid_json_schema_2020_12() -> None:
    Draft202012Validator.check_schema(protocol_schema())


def test_every_field_of_every_message_is_described() -> None:
    undescribed = [where for where, prop in _properties(protocol_schema())
                   if not prop.get("description", "").strip()]
    assert undescribed == []


def _enums(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        if "enum" in schema:
            yield schema
        for value in schema.values():
            yield from _enums(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _enums(value)


def test_every_vocabulary_gives_the_meaning_of_each_value() -> None:
    enums = list(_enums(protocol_schema()))
    assert len(enums) > 10
    for enum in enums:
        meanings = enum.get("x-enum-descriptions", [])
        assert len(meanings) == len(enum["enum"]), enum["enum"]
        assert all(m.strip() for m in meanings)


def test_the_vocabularies_name_what_the_code_produces() -> None:
    assert set(VARIANTS) == set(RULESETS)
    assert set(LEDGER_REASONS) == set(REASONS)
    specials = (
        set(lishui.SPECIALS) | set(wenzhou.SPECIALS) | {"three_wilds_any_shape"}
        | set(huzhou.DOUBLINGS) | {"robbing_kong", "dealt_four_wilds"}
        | {fuzhou.ROB_GOLD, fuzhou.FLOWERLESS, fuzhou.THREE_GOLDS, fuzhou.GOLDEN_PAIR}
        | {name for name, _ in shanghai.LA_HANDS}
        | {"mixed_suit", "all_pungs", "kong_win", "concealed_hand", "robbing_kong", "draw_bonus"}
    )
    assert specials == set(SPECIALS)


def test_the_score_vocabularies_name_what_the_rules_produce() -> None:
    assert set(SCORE_ITEMS) == set(SCORE_ITEM_NAMES) >= set(SPECIALS)
    names = [*scoring.ITEM_NAMES.items(), *huzhou._NAMES.items(), *shanghai._NAMES.items()]
    for key, name in names:
        assert name in SCORE_ITEMS[key], (key, name)  # the Chinese name with its meaning
    assert set(SCORE_RULES) == {
        scoring.RULE_SUM, scoring.RULE_HIGHEST, scoring.RULE_DOUBLINGS,
        scoring.RULE_BASE_AND_FLOWERS, scoring.RULE_LA_OR_FLOWERS,
    }
    assert set(SCORE_ITEM_KINDS) == {
        scoring.MULTIPLIER, scoring.DOUBLING, scoring.BASE_MULTIPLE, scoring.FLOWER_POINTS,
        scoring.FAN, scoring.LA, scoring.PAYMENT_FACTOR, scoring.SHARE, scoring.HOUSE_SILVER,
    }
    assert set(HUZHOU_LEVELS) == {title for _, title, _ in huzhou.LEVELS}
    assert set(GROUP_SHAPES) == {"pair", "chow", "pung", "single", "loose"}


def test_a_message_outside_a_vocabulary_is_refused_by_the_schema() -> None:
    won = {"kind": "won", "seat": 0, "from_seat": None, "tile": "5s", "self_draw": True,
           "robbed_kong": False, "hand": ["5s"], "specials": ["pure_suit"], "multiplier": 8}
    event = {"v": 2, "type": "event", "table_id": "T1", "hand_id": "T1-1", "seq": 3,
             "event": won}
    assert violation(event) is None
    assert violation({**event, "event": {**won, "specials": ["big_pungs"]}}) is not None
    # a field it does not name is one the server added within the version: allowed
    # (docs/protocol.md, "Compatibility")
    assert violation({**event, "event": {**won, "surprise": 1}}) is None
    assert violation({**event, "seq": -1}) is not None


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "$ref":
                yield inner
            else:
                yield from _refs(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _refs(inner)


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part]
    return node


@pytest.mark.parametrize("make", [protocol_schema, asyncapi_document])
def test_every_reference_resolves(make: Any) -> None:
    document = make()
    refs = set(_refs(document))
    assert refs
    for ref in refs:
        assert _resolve(document, ref) is not None


def test_the_asyncapi_document_lists_every_message_both_ways() -> None:
    document = asyncapi_document()
    assert document["asyncapi"] == "3.0.0"
    assert document["channels"]["table"]["address"] == "/ws"
    operations = document["operations"]
    received = {r["$ref"].rsplit("/", 1)[1] for r in operations["receiveClientMessages"]["messages"]}
    sent = {r["$ref"].rsplit("/", 1)[1] for r in operations["sendServerMessages"]["messages"]}
    assert received == {"hello", "action", "resume", "autoplay", "leave", "ready", "ping",
                        "watch", "unwatch", "send_chat", "mute", "unmute"}
    assert sent == {"seated", "table_state", "event", "prompt", "snapshot", "error", "pong",
                    "room", "tournament", "watching", "chat_said", "muted"}
    # every message of the schema's unions, none forgotten (`room` once was)
    defs = protocol_schema()["$defs"]
    messages = document["components"]["messages"]
    for union, listed in (("ServerMessage", sent), ("ClientMessage", received - {"hello"})):
        members = {ref["$ref"].rsplit("/", 1)[1] for ref in defs[union]["oneOf"]}
        assert {messages[key]["title"] for key in listed} == members, union
    for key in received | sent:
        message = messages[key]
        assert message["name"] == key
        payload = _resolve(document, message["payload"]["$ref"])
        assert payload["title"] == message["title"]
        # named by its wire type, but for the chats, which share one (`chat`)
        wire = payload["properties"]["type"]["const"]
        assert (key == wire) == (wire != "chat"), key
    # a type sent both ways (chat) is one message each way, each with its own schema
    assert messages["send_chat"]["title"] == "SendChatMessage"
    assert messages["chat_said"]["title"] == "ChatSaidMessage"


def test_no_two_definitions_or_messages_share_a_name() -> None:
    """What a client developer's tools name a class after is unique: each schema
    definition's title, each AsyncAPI message's name and title, each heading of the
    reference (`chat` was once the name of two messages, and `ChatMessage` read as either
    direction's)."""
    defs = protocol_schema()["$defs"]
    titles = [d.get("title", name) for name, d in defs.items()]
    assert len(titles) == len(set(titles)), sorted(t for t in titles if titles.count(t) > 1)
    assert all(d.get("title", name) == name for name, d in defs.items())
    assert "ChatMessage" not in defs
    document = asyncapi_document()
    messages = document["components"]["messages"]
    for field in ("name", "title"):
        values = [m[field] for m in messages.values()]
        assert len(values) == len(set(values)), field
    schemas = document["components"]["schemas"]
    assert [s.get("title", n) for n, s in schemas.items()] == titles
    headings = [line for line in doc.reference().splitlines() if line.startswith("#### ")]
    assert len(headings) == len(set(headings))
    assert "#### `chat` (SendChatMessage)" in headings
    assert "#### `chat` (ChatSaidMessage)" in headings
    assert "#### phrase" in headings  # the chats' vocabulary, named after neither


def test_what_only_the_server_sends_may_gain_fields_what_a_client_sends_may_not() -> None:
    """docs/protocol.md, "Compatibility": a client generated from the schema keeps working
    when the server adds a field to its messages within a version; the server still
    refuses a field it does not know in a client's message (and in an action, which both
    sides send)."""
    schema = protocol_schema()

    def errors(name: str, message: dict[str, object]) -> list[object]:
        wrapped = {"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]}
        return list(Draft202012Validator(wrapped).iter_errors(message))

    assert not errors("PongMessage", {"v": 2, "type": "pong", "nonce": "n", "added": 1})
    assert errors("PingMessage", {"v": 2, "type": "ping", "nonce": "n", "added": 1})
    closed = {n for n, d in schema["$defs"].items() if d.get("additionalProperties") is False}
    assert "DiscardAction" in closed and "SeatedMessage" not in closed


def test_the_asyncapi_discriminators_are_property_names() -> None:
    """AsyncAPI's schema object names a discriminator by a string; the OpenAPI-style object
    pydantic writes made the official parser report 80 errors."""
    found: list[object] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if "discriminator" in value:
                found.append(value["discriminator"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(asyncapi_document())
    assert found and all(d in ("type", "kind") for d in found), found


def test_docs_protocol_md_holds_the_generated_reference_and_examples() -> None:
    text = doc.DOC.read_text(encoding="utf-8")
    assert doc.render(text, doc.blocks()) == text, "run: python -m app.protocol.doc"


def test_every_example_in_the_schema_validates_as_its_message() -> None:
    """The examples the schema carries (the watching and chat messages', a room's; AsyncAPI
    and OpenAPI show them) are valid by the schema, and a message's by the server's own
    models."""
    schema = protocol_schema()
    defs = schema["$defs"]
    found = 0
    for name, definition in defs.items():
        for example in definition.get("examples", []):
            found += 1
            check = Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})
            assert check.is_valid(example), (name, example)
            if not name.endswith("Message"):  # a value inside messages (a room, a vote)
                continue
            model = CLIENT_MESSAGE if name in CLIENT_NAMES else SERVER_MESSAGE
            assert model.validate_python(example).model_dump(mode="json") == example, name
    assert found >= 8


CLIENT_NAMES = {"WatchMessage", "UnwatchMessage", "SendChatMessage", "MuteMessage",
                "UnmuteMessage"}

"""The protocol's machine-readable contract, generated from the pydantic models.

- `protocol_schema()`: one JSON Schema (draft 2020-12) whose ``$defs`` hold every message
  both ways: ``HelloMessage``, ``ClientMessage`` (what a client sends after it) and
  ``ServerMessage`` (what the server sends), each vocabulary an ``enum`` with the meaning of
  each value in ``x-enum-descriptions``, every field described. Served at
  ``/protocol/schema.json``.
- `asyncapi_document()`: an AsyncAPI 3.0 document of the ``/ws`` channel on the same
  schemas, for WebSocket tooling. Served at ``/protocol/asyncapi.json``.

Server messages are described as the server writes them (every field present), client
messages as the server reads them (fields with a default may be left out).
"""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import Any

from pydantic import TypeAdapter

from app.protocol import messages as m
from app.protocol.messages import CLIENT_MESSAGE, HELLO, SERVER_MESSAGE, VERSION

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
CLIENT_MESSAGES: tuple[type[m.ClientModel], ...] = (
    m.HelloMessage, m.ActionMessage, m.ResumeMessage, m.AutoplayMessage, m.LeaveMessage,
    m.ReadyMessage, m.PingMessage, m.WatchMessage, m.UnwatchMessage, m.SendChatMessage,
    m.MuteMessage, m.UnmuteMessage,
)  # fmt: skip
SERVER_MESSAGES: tuple[type[m.WireModel], ...] = (
    m.SeatedMessage, m.TableStateMessage, m.EventMessage, m.PromptMessage, m.SnapshotMessage,
    m.ErrorMessage, m.PongMessage, m.RoomMessage, m.TournamentMessage, m.WatchingMessage,
    m.ChatSaidMessage, m.MutedMessage,
)  # fmt: skip
_UNIONS: dict[str, tuple[str, TypeAdapter[Any]]] = {
    "HelloMessage": ("validation", HELLO),
    "ClientMessage": ("validation", CLIENT_MESSAGE),
    "ServerMessage": ("serialization", SERVER_MESSAGE),
}


@cache
def _schema() -> dict[str, Any]:
    inputs = [(name, mode, adapter) for name, (mode, adapter) in _UNIONS.items()]
    tops, defs = TypeAdapter.json_schemas(inputs, ref_template="#/$defs/{model}")  # type: ignore[arg-type]
    defs = dict(defs["$defs"])
    for name, (mode, _) in _UNIONS.items():
        top = tops[(name, mode)]  # type: ignore[index]
        if "$ref" not in top:  # the unions come inline; the hello model as a reference
            defs[name] = {
                "title": name,
                "description": _UNION_DESCRIPTIONS[name],
                **top,
            }
    for definition in defs.values():
        _describe_constants(definition)
    _open_to_added_fields(defs)
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": f"zjmahjong table protocol, version {VERSION}",
        "description": "Every WebSocket message of /ws (docs/protocol.md). A client's first "
        "message is a HelloMessage, then ClientMessages; the server sends ServerMessages.",
        "anyOf": [{"$ref": f"#/$defs/{name}"} for name in _UNIONS],
        "$defs": dict(sorted(defs.items())),
    }


_UNION_DESCRIPTIONS = {
    "ClientMessage": "What a client sends after its hello, by `type`.",
    "ServerMessage": "What the server sends, by `type`.",
}


def _open_to_added_fields(defs: dict[str, Any]) -> None:
    """What only the server sends may gain fields within a version (docs/protocol.md,
    "Compatibility"), so its schemas allow fields they do not name: a client generated from
    them keeps working when the server adds one. What a client sends stays closed (the
    server refuses a field it does not know), and so does a definition the client's
    messages share."""
    sent_by_clients = reachable(defs, ("HelloMessage", "ClientMessage"))
    for name, definition in defs.items():
        if name not in sent_by_clients and definition.get("additionalProperties") is False:
            del definition["additionalProperties"]


def reachable(defs: dict[str, Any], roots: tuple[str, ...]) -> set[str]:
    """The definitions `roots` refer to, themselves included, however deep."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        todo += [ref.rsplit("/", 1)[1] for ref in _refs(defs[name])]
    return seen


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return found + [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


def _describe_constants(definition: dict[str, Any]) -> None:
    """A model's `type` or `kind` (a constant that names it) gets a description."""
    for name, prop in definition.get("properties", {}).items():
        if "description" not in prop and "const" in prop:
            prop["description"] = f'always "{prop["const"]}": names this {name}'


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of every message (a fresh copy: callers may change it)."""
    return copy.deepcopy(_schema())


def message_names(models: tuple[type[Any], ...]) -> list[tuple[str, str]]:
    """(the `type` of each message model, its $defs name)."""
    return [(model.model_fields["type"].default, model.__name__) for model in models]


def message_key(name: str) -> str:
    """A message's key and name in the AsyncAPI document: its schema name in snake case,
    without `Message` (`TableStateMessage`: `table_state`). That is its wire `type` for every
    message but the two chats, which share `type` `chat` and are told apart by direction:
    `send_chat` (SendChatMessage, from a client) and `chat_said` (ChatSaidMessage, from the
    server). Names are unique: tooling generates one class per message from them."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name.removesuffix("Message")).lower()


def asyncapi_document() -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the /ws channel, its schemas those of `protocol_schema`."""
    schema = protocol_schema()
    schemas = _asyncapi_discriminators(
        _rewrite_refs(schema["$defs"], "#/$defs/", "#/components/schemas/"))
    clients = [message_key(model.__name__) for model in CLIENT_MESSAGES]
    servers = [message_key(model.__name__) for model in SERVER_MESSAGES]
    titles = {message_key(model.__name__): model.__name__
              for model in (*CLIENT_MESSAGES, *SERVER_MESSAGES)}  # fmt: skip
    messages = {
        key: {
            "name": key,
            "title": name,
            "summary": (schemas[name].get("description") or name).split("\n")[0],
            "contentType": "application/json",
            "payload": {"$ref": f"#/components/schemas/{name}"},
        }
        for key, name in titles.items()
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "zjmahjong table protocol",
            "version": str(VERSION),
            "description": "One WebSocket per client at /ws: the client says hello with its "
            "access token, then plays the tables it sits at and watches others "
            "(docs/protocol.md).",
        },
        "defaultContentType": "application/json",
        "channels": {
            "table": {
                "address": "/ws",
                "title": "The table socket",
                "messages": {
                    key: {"$ref": f"#/components/messages/{key}"} for key in messages
                },
            }
        },
        "operations": {
            "receiveClientMessages": {
                "action": "receive",
                "title": "What a client sends",
                "channel": {"$ref": "#/channels/table"},
                "messages": [
                    {"$ref": f"#/channels/table/messages/{key}"} for key in clients
                ],
            },
            "sendServerMessages": {
                "action": "send",
                "title": "What the server sends",
                "channel": {"$ref": "#/channels/table"},
                "messages": [
                    {"$ref": f"#/channels/table/messages/{key}"} for key in servers
                ],
            },
        },
        "components": {"messages": messages, "schemas": schemas},
    }


def _asyncapi_discriminators(value: Any) -> Any:
    """AsyncAPI's schema object names a discriminator by its property (a string); pydantic
    writes OpenAPI's object (`propertyName` and `mapping`), which the AsyncAPI parser
    refuses."""
    if isinstance(value, dict):
        return {
            k: (v["propertyName"] if k == "discriminator" and isinstance(v, dict) else
                _asyncapi_discriminators(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_asyncapi_discriminators(v) for v in value]
    return value


def _rewrite_refs(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {
            k: (v.replace(old, new, 1) if k == "$ref" and isinstance(v, str) else
                _rewrite_refs(v, old, new))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_rewrite_refs(v, old, new) for v in value]
    return value

"""The protocol's published JSON Schema as a check on what the server sends.

`check_server_message` validates one message against ``$defs.ServerMessage`` with a JSON
Schema validator (not the pydantic models: it checks the schema a client developer reads):
jsonschema-rs says whether it is valid (3 us a message where the pure-Python jsonschema took
600 us: an e2e client receiving tens of thousands of messages on a loaded machine fell so far
behind that the server's keepalive pings timed out), jsonschema says why one is not.
The e2e clients (tests/e2e/test_ws_hand.Player) pass every message they receive through
it; what fails is kept in `VIOLATIONS` (what passed is counted in `SEEN`), which tests/e2e/conftest.py asserts empty after
each test.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from app.protocol.schema import protocol_schema

VIOLATIONS: list[str] = []
SEEN: Counter[str] = Counter()  # message types and event kinds checked


def _schema(kind: str, event: str) -> dict[str, Any]:
    """The schema of a server message of type `kind` (and event kind `event`), chosen by
    the published discriminators as a client would; an unknown type gets the whole union."""
    defs = protocol_schema()["$defs"]
    ref = defs["ServerMessage"]["discriminator"]["mapping"].get(kind)
    if ref is None:
        return {"$defs": defs, "$ref": "#/$defs/ServerMessage"}
    name = ref.rsplit("/", 1)[1]
    envelope = dict(defs[name])
    payloads = envelope["properties"].get("event", {}).get("discriminator", {}).get("mapping", {})
    if event in payloads:  # one payload, not all fourteen: a twentieth of the time
        envelope["properties"] = {**envelope["properties"], "event": {"$ref": payloads[event]}}
    return {"$defs": defs, **envelope}


@cache
def _fast(kind: str, event: str) -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator(_schema(kind, event))


@cache
def _explaining(kind: str, event: str) -> Draft202012Validator:
    return Draft202012Validator(_schema(kind, event))


def violation(message: Any) -> str | None:
    """Why `message` is not a valid server message by the published schema, or None."""
    kind = message.get("type", "") if isinstance(message, dict) else ""
    event = message.get("event") if kind == "event" else None
    key = (str(kind), str(event.get("kind", "")) if isinstance(event, dict) else "")
    if _fast(*key).is_valid(message):
        return None
    error = best_match(_explaining(*key).iter_errors(message))
    if error is None:  # the two validators disagree: say what the compiled one found
        return f"{next(iter(_fast(*key).iter_errors(message)))} in {str(message)[:300]}"
    return f"{error.json_path}: {error.message} in {str(message)[:300]}"


def check_server_message(message: Any) -> None:
    """Keep a violation of the schema for the test's end."""
    SEEN[message.get("type", "?")] += 1
    if message.get("type") == "event":
        SEEN[f"event.{message['event'].get('kind', '?')}"] += 1
    found = violation(message)
    if found is not None:
        VIOLATIONS.append(found)

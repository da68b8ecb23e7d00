"""The protocol's published JSON Schema as a check on what the server sends.

`check_server_message` validates one message against ``$defs.ServerMessage`` with a JSON
Schema validator (not the pydantic models: it checks the schema a client developer reads).
The e2e clients (tests/e2e/test_ws_hand.Player) pass every message they receive through
it; what fails is kept in `VIOLATIONS` (what passed is counted in `SEEN`), which tests/e2e/conftest.py asserts empty after
each test.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from app.protocol.schema import protocol_schema

VIOLATIONS: list[str] = []
SEEN: Counter[str] = Counter()  # message types and event kinds checked


@cache
def validator(root: str = "ServerMessage") -> Draft202012Validator:
    schema = protocol_schema()
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{root}"})


def violation(message: Any, schema: dict[str, Any] | None = None) -> str | None:
    """Why `message` is not a valid server message (of `schema`, default: ours), or None."""
    check = validator() if schema is None else Draft202012Validator(
        {"$defs": schema["$defs"], "$ref": "#/$defs/ServerMessage"}
    )
    error = best_match(check.iter_errors(message))
    if error is None:
        return None
    return f"{error.json_path}: {error.message} in {str(message)[:300]}"


def check_server_message(message: Any) -> None:
    """Keep a violation of the schema for the test's end."""
    SEEN[message.get("type", "?")] += 1
    if message.get("type") == "event":
        SEEN[f"event.{message['event'].get('kind', '?')}"] += 1
    found = violation(message)
    if found is not None:
        VIOLATIONS.append(found)

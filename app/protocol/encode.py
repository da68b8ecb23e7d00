"""The JSON text of the server's hottest messages, written straight from the core's values.

Every action fans out to four seats as events and prompts; building a pydantic model per
seat per message and validating what the server itself made was most of the shell's cost.
These functions write the same text `EventMessage(...).model_dump_json()` and
`PromptMessage(...).model_dump_json()` write (same fields, same order, compact JSON,
UTF-8 unescaped), from data the server built and so trusts; tests/protocol checks the two
agree on every event and prompt of real hands of every variant. Everything else the server
sends still goes through its model.

`Encoded` carries a message's text with its type (the label the metrics count it under).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import BaseModel

from app.protocol.events import _TILE_FIELDS as TILE_FIELDS
from app.protocol.events import (
    EventPayload,
    TransferPayload,
    event_payload,
    revealed_melds,
    score_sheets,
    tiles_to_codes,
)
from app.protocol.messages import VERSION, ReadyHint, ServerMessage
from app.protocol.tiles import to_code
from app.rules import actions as rules
from app.rules.events import Event
from app.rules.hints import ReadyDiscard

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True, slots=True)
class Encoded:
    """One server message as the text that goes on the wire, and its ``type``."""

    type: str
    text: str


def _field_names(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(model.model_fields)


# each event kind: its payload's fields in wire order (the payload models of the union;
# a new field holding tiles must be listed in `events._TILE_FIELDS`, a nested model here)
_FIELDS: dict[str, tuple[str, ...]] = {
    model.model_fields["kind"].default: _field_names(model)
    for model in get_args(get_args(EventPayload)[0])
}
_TRANSFER_FIELDS = _field_names(TransferPayload)
_TILES: dict[str, frozenset[str]] = {kind: frozenset(names) for kind, names in TILE_FIELDS.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def event_dict(event: Event) -> dict[str, Any]:
    """The wire payload of `event` as plain data (pass the copy the receiving seat may see:
    `Event.for_seat`)."""
    kind = event.kind
    fields = _FIELDS.get(kind)
    if fields is None:  # not a kind of the union: the model refuses it, as it always did
        return event_payload(event).model_dump(mode="json")
    tiles = _TILES.get(kind, frozenset())
    data: dict[str, Any] = {"kind": kind}
    for name in fields[1:]:
        value = getattr(event, name)
        if name in tiles:
            data[name] = tiles_to_codes(value)
        elif name == "melds":
            data[name] = revealed_melds(value)
        elif name == "scores":
            data[name] = score_sheets(value)
        elif name == "penalties":
            data[name] = [{"seat": p.seat, "reason": p.reason, "silver": p.silver} for p in value]
        elif name == "transfers":
            data[name] = [
                {f: getattr(t, f) for f in _TRANSFER_FIELDS} for t in value
            ]
        else:
            data[name] = _plain(value)
    return data


def event_text(table_id: str, hand_id: str, seq: int, event: Event) -> Encoded:
    """``EventMessage(table_id, hand_id, seq, event_payload(event)).model_dump_json()``."""
    return Encoded("event", _dumps({
        "v": VERSION, "type": "event", "table_id": table_id, "hand_id": hand_id, "seq": seq,
        "event": event_dict(event),
    }))


def action_dict(action: rules.Action) -> dict[str, Any]:
    """`from_rules_action(action).model_dump()` without building the model."""
    if isinstance(action, rules.Discard):
        return {"type": "discard", "tile": to_code(action.tile)}
    if isinstance(action, rules.Pass):
        return {"type": "pass"}
    if isinstance(action, rules.Chow):
        return {"type": "chow", "low": to_code(action.low)}
    if isinstance(action, rules.Pung):
        return {"type": "pung"}
    if isinstance(action, rules.ExposedKong):
        return {"type": "exposed_kong"}
    if isinstance(action, rules.ConcealedKong):
        return {"type": "concealed_kong", "tile": to_code(action.tile)}
    if isinstance(action, rules.AddedKong):
        return {"type": "added_kong", "tile": to_code(action.tile)}
    if isinstance(action, rules.Hu):
        return {"type": "hu"}
    if isinstance(action, rules.Decide):
        return {"type": "decide", "choice": action.choice}
    if isinstance(action, rules.Special):
        return {"type": "special", "name": action.name, "tile": to_code(action.tile)}
    raise ValueError(f"{action!r} has no wire action (an escape is sent as a leave message)")


def ready_dicts(ready: Sequence[ReadyDiscard]) -> list[dict[str, Any]]:
    """The prompt's `ready` (`ReadyHint`s) from `app.rules.hints.ready_discards`."""
    return [
        {"discard": to_code(r.tile),
         "waits": [{"tile": to_code(w.tile), "unseen": w.unseen} for w in r.waits]}
        for r in ready
    ]


def ready_hints(ready: Sequence[ReadyDiscard]) -> list[ReadyHint]:
    """The prompt's `ready` as models (`PromptMessage(ready=...)`)."""
    return [ReadyHint.model_validate(r) for r in ready_dicts(ready)]


def prompt_text(
    table_id: str,
    hand_id: str,
    seq: int,
    legal: Sequence[rules.Action],
    deadline_ms: int,
    timeout_action: rules.Action | None,
    ready: Sequence[ReadyDiscard] = (),
    dead_ends: Sequence[rules.Action] = (),
) -> Encoded:
    """``PromptMessage(...).model_dump_json()``: `legal` without the escape, and a None
    `timeout_action` meaning pass."""
    timeout = {"type": "pass"} if timeout_action is None else action_dict(timeout_action)
    return Encoded("prompt", _dumps({
        "v": VERSION, "type": "prompt", "table_id": table_id, "hand_id": hand_id, "seq": seq,
        "legal_actions": [action_dict(a) for a in legal],
        "deadline_ms": deadline_ms,
        "timeout_action": timeout,
        "ready": ready_dicts(ready),
        "dead_ends": [action_dict(a) for a in dead_ends],
    }))


def message_text(message: ServerMessage) -> Encoded:
    """Any other server message, through its model."""
    return Encoded(message.type, message.model_dump_json())


__all__ = [
    "Encoded",
    "action_dict",
    "event_dict",
    "event_text",
    "message_text",
    "prompt_text",
]

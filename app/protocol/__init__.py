"""The WebSocket protocol: pydantic models for every message, one union per direction.

See docs/protocol.md. The server validates a client's text once, with `parse_client`, and
builds what it sends from the rules core with `seat_payload`, `from_rules_action` and
`view_model`.
"""

from app.protocol.actions import WireAction, from_rules_action, logged_action, to_rules_action
from app.protocol.errors import ERROR_CODES, ErrorCode
from app.protocol.events import EventPayload, event_payload, seat_payload
from app.protocol.messages import (
    CLIENT_MESSAGE,
    SERVER_MESSAGE,
    ActionMessage,
    AutoplayMessage,
    ChatSaidMessage,
    ClientMessage,
    ErrorMessage,
    EventMessage,
    HelloMessage,
    LeaveMessage,
    MutedMessage,
    MuteMessage,
    PingMessage,
    PongMessage,
    PromptMessage,
    ReadyMessage,
    ResumeMessage,
    SeatedMessage,
    SeatInfo,
    SendChatMessage,
    ServerMessage,
    SnapshotMessage,
    TableStateMessage,
    UnmuteMessage,
    UnwatchMessage,
    WatchingMessage,
    WatchMessage,
)
from app.protocol.parse import MAX_MESSAGE_BYTES, hello_version, parse_client, parse_hello
from app.protocol.tiles import TileCode, to_code, to_tile
from app.protocol.views import SeatView, view_model

__all__ = [
    "CLIENT_MESSAGE",
    "ERROR_CODES",
    "MAX_MESSAGE_BYTES",
    "SERVER_MESSAGE",
    "ActionMessage",
    "AutoplayMessage",
    "ChatSaidMessage",
    "ClientMessage",
    "ErrorCode",
    "ErrorMessage",
    "EventMessage",
    "EventPayload",
    "HelloMessage",
    "LeaveMessage",
    "MuteMessage",
    "MutedMessage",
    "PingMessage",
    "PongMessage",
    "PromptMessage",
    "ReadyMessage",
    "ResumeMessage",
    "SeatInfo",
    "SeatView",
    "SeatedMessage",
    "SendChatMessage",
    "ServerMessage",
    "SnapshotMessage",
    "TableStateMessage",
    "TileCode",
    "UnmuteMessage",
    "UnwatchMessage",
    "WatchMessage",
    "WatchingMessage",
    "WireAction",
    "event_payload",
    "from_rules_action",
    "hello_version",
    "logged_action",
    "parse_client",
    "parse_hello",
    "seat_payload",
    "to_code",
    "to_rules_action",
    "to_tile",
    "view_model",
]

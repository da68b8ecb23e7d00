"""Every WebSocket message, one discriminated union on ``type`` per direction, and the
``hello`` a client opens its socket with (`HelloMessage`, not part of the union: it is only
ever the first message).

Messages are JSON objects validated once at the edge (`parse_client`, `parse_hello`),
frozen, with no unknown fields, and versioned: each carries ``"v": 2`` (a client may leave
it out, except in ``hello``). Tiles are codes ("5m", "7z", "1f").
Every event the server sends carries the table's sequence number ``seq``; a client sends
the last one it saw with each action, and ``resume`` with it after a reconnect.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field, StringConstraints, TypeAdapter

from app.protocol.actions import WireAction
from app.protocol.base import ClientModel, HandId, SeatNumber, Seq, TableId, WireModel
from app.protocol.errors import ErrorCode
from app.protocol.events import EventPayload
from app.protocol.views import SeatView

Nonce = Annotated[str, StringConstraints(max_length=64)]
VERSION: Final = 2  # docs/protocol.md: what changed from version 1
Version = Literal[2]
MAX_TOKEN_LENGTH = 2048  # an access token is a JWT of about 200 characters


# --- client -> server ------------------------------------------------------------------


class HelloMessage(ClientModel):
    """The first message on a socket, within a few seconds of opening it: the protocol
    version the client speaks (required) and its access token (from /auth/login or
    /auth/refresh). The token never travels in the URL."""

    v: Version
    type: Literal["hello"] = "hello"
    token: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOKEN_LENGTH)]


class ActionMessage(ClientModel):
    """Take `action` in the current hand; `seq` is the last event seq the client saw (a
    server may refuse an action sent on an older state with ``stale``)."""

    v: Version = VERSION
    type: Literal["action"] = "action"
    table_id: TableId
    seq: Seq
    action: WireAction


class ResumeMessage(ClientModel):
    """After a (re)connect: send a snapshot of my view and every event after `last_seq`."""

    v: Version = VERSION
    type: Literal["resume"] = "resume"
    table_id: TableId
    last_seq: Seq


class AutoplayMessage(ClientModel):
    """托管 (auto-play) on or off: the server plays the greedy bot's choice for this seat
    until the player turns it off (or acts: any action turns it off)."""

    v: Version = VERSION
    type: Literal["autoplay"] = "autoplay"
    table_id: TableId
    on: bool


class LeaveMessage(ClientModel):
    """Leave the table. Between hands this is free. During a hand it is an escape (逃跑):
    the hand ends at once and the leaver pays the variant's escape penalty."""

    v: Version = VERSION
    type: Literal["leave"] = "leave"
    table_id: TableId


class PingMessage(ClientModel):
    """Keep-alive; the server answers ``pong`` with the same nonce."""

    v: Version = VERSION
    type: Literal["ping"] = "ping"
    nonce: Nonce


ClientMessage = Annotated[
    ActionMessage | ResumeMessage | AutoplayMessage | LeaveMessage | PingMessage,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
HELLO: TypeAdapter[HelloMessage] = TypeAdapter(HelloMessage)


# --- server -> client ------------------------------------------------------------------


class EventMessage(WireModel):
    """Something happened in the hand, as this seat may see it."""

    v: Version = VERSION
    type: Literal["event"] = "event"
    table_id: TableId
    hand_id: HandId
    seq: Seq
    event: EventPayload


class PromptMessage(WireModel):
    """The seat must decide: one of `legal_actions` within `deadline_ms` (the time left when
    sent), or the server takes `timeout_action` (in a claim window: pass). `seq` is the
    last event the prompt follows."""

    v: Version = VERSION
    type: Literal["prompt"] = "prompt"
    table_id: TableId
    hand_id: HandId
    seq: Seq
    legal_actions: list[WireAction]
    deadline_ms: int = Field(ge=0)
    timeout_action: WireAction


class SnapshotMessage(WireModel):
    """The seat's whole view at event `seq` (after ``resume`` or on joining mid-hand);
    `deadline_ms` is the time left for the seat's own pending decision, if any."""

    v: Version = VERSION
    type: Literal["snapshot"] = "snapshot"
    table_id: TableId
    hand_id: HandId
    seq: Seq
    view: SeatView
    deadline_ms: int | None = Field(default=None, ge=0)


class ErrorMessage(WireModel):
    """A refused message. `code` is stable (see `app.protocol.errors`); `message` is for
    people; `ref_seq` is the seq the refused message carried, if it was readable."""

    v: Version = VERSION
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str = Field(max_length=300)
    ref_seq: Seq | None = None


class PongMessage(WireModel):
    """The answer to ``ping``."""

    v: Version = VERSION
    type: Literal["pong"] = "pong"
    nonce: Nonce


class SeatedMessage(WireModel):
    """You sit at `seat` of `table_id`, which plays `variant` at `stake` silver per point."""

    v: Version = VERSION
    type: Literal["seated"] = "seated"
    table_id: TableId
    seat: SeatNumber
    variant: str
    stake: int = Field(ge=0)


class SeatInfo(WireModel):
    """One seat of a table: who sits there (null name: empty), their title (e.g. 菜鸟) and
    silver (银两), whether they are connected, ready for the next hand, or on 托管."""

    seat: SeatNumber
    name: str | None
    title: str | None
    balance: int | None
    connected: bool
    ready: bool
    autoplay: bool


class TableStateMessage(WireModel):
    """The table around the hands: its seats, the dealer (庄家) and the hand in play (null
    between hands). Sent on joining and whenever a seat changes."""

    v: Version = VERSION
    type: Literal["table_state"] = "table_state"
    table_id: TableId
    variant: str
    dealer: SeatNumber
    hand_id: HandId | None
    seats: list[SeatInfo] = Field(min_length=4, max_length=4)
    settling: bool = Field(
        default=False,
        description="the last hand's result is being stored: its hand_ended comes once the "
        "database has it, and no hand is dealt before",
    )


ServerMessage = Annotated[
    EventMessage
    | PromptMessage
    | SnapshotMessage
    | ErrorMessage
    | PongMessage
    | SeatedMessage
    | TableStateMessage,
    Field(discriminator="type"),
]
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)

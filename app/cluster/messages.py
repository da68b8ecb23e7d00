"""What nodes publish to each other's channel: one JSON object with a `kind`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToTable(_Model):
    """A client's message for a table this node does not own (raw client JSON); the owner
    answers errors to `reply_node`."""

    kind: Literal["to_table"] = "to_table"
    account: int
    table_id: str
    reply_node: str
    message: str


class Away(_Model):
    """The account's socket closed on another node: its seat at `table_id` is disconnected."""

    kind: Literal["away"] = "away"
    account: int
    table_id: str


class Arrived(_Model):
    """The account's socket opened on another node, and its seat claim names `table_id`,
    which this node owns: connect the seat and greet the socket (``seated`` first)."""

    kind: Literal["arrived"] = "arrived"
    account: int
    table_id: str


class ToAccount(_Model):
    """A server message for the account whose socket this node holds (raw server JSON).
    With `type` it is the text exactly as the socket sends it (a table's event or prompt,
    written by `app.protocol.encode`): passed on as is, neither parsed nor written again."""

    kind: Literal["to_account"] = "to_account"
    account: int
    message: str
    type: str | None = None


class ToAccounts(_Model):
    """Messages for accounts whose sockets this node holds, gathered by the sending node's
    writer (app/cluster/writer.py) and grouped by Redis (`ROUTE_ACCOUNTS`): each item is
    `[account, type, text]`, as `ToAccount`, in the order they were sent."""

    kind: Literal["to_accounts"] = "to_accounts"
    items: list[tuple[int, str | None, str]]


class ToSpectators(_Model):
    """A watched table's message (raw server JSON of `type`) for the spectators whose sockets
    this node holds: one per node, however many of its sockets watch the table."""

    kind: Literal["to_spectators"] = "to_spectators"
    accounts: list[int]
    type: str
    message: str


class Close(_Model):
    """The account logged in on `by_node`: close its socket here (WebSocket code `code`)."""

    kind: Literal["close"] = "close"
    account: int
    code: int
    by_node: str


class Banned(_Model):
    """An administrator banned the account on `by_node`: close its socket here and give up
    its seats at this node's tables (`app.tables.bans.ban_here`)."""

    kind: Literal["banned"] = "banned"
    account: int
    by_node: str


class Call(_Model):
    """A lobby change of a table another node owns (`sit` or `leave`)."""

    kind: Literal["call"] = "call"
    id: str
    reply_node: str
    op: Literal["sit", "leave"]
    table_id: str
    account: int
    seat: int | None = None
    bot: bool = False  # a bot account (托管 for good), chosen by the calling node


class AdminCall(_Model):
    """An admin table command (`app.tables.admin.run`) for the table's owner, or (`list`)
    for every node."""

    kind: Literal["admin"] = "admin"
    id: str
    reply_node: str
    op: Literal["list", "inspect", "pause", "resume", "kick", "dissolve", "close_abandoned"]
    table_id: str = ""
    seat: int | None = None
    reveal: bool = False


class Reply(_Model):
    """The owner's answer to a `Call` (an error code, or the table's summary and the seat)
    or to an `AdminCall` (an error code, or the command's result in `table`)."""

    kind: Literal["reply"] = "reply"
    id: str
    code: str | None = None
    message: str = ""
    details: dict[str, Any] | None = None  # the refusal's details (`seated_elsewhere`)
    table: dict[str, Any] | None = None
    seat: int | None = None


NodeMessage = Annotated[
    ToTable | Away | Arrived | ToAccount | ToAccounts | ToSpectators | Close | Banned | Call
    | AdminCall | Reply,
    Field(discriminator="kind"),
]
NODE_MESSAGE: TypeAdapter[NodeMessage] = TypeAdapter(NodeMessage)

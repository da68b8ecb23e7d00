"""A client's message to the table it names: the one routing of a valid client message,
for a socket on this node (`app.api.ws`) and for a message another node forwarded to the
table's owner (`app.cluster`).

- `ping` is answered with ``pong``;
- a table this node does not hold goes to its owner when the network can forward it
  (`Delivery.forward`: the owner answers), else ``wrong_table``, as for a table where the
  account does not sit;
- `action`, `resume`, `autoplay`, `ready` and `leave` go to the inbox of the table's actor for the
  seat the account holds there;
- `watch` and `unwatch` (旁观), `chat` (快捷语), `mute` and `unmute` go to the table's
  watchers (`Watchers.watch`, `chat`, `mute`; ``no_table`` when this node has no such
  table): a spectator needs no seat. `via` names the node holding the socket when another
  node forwarded the message (a spectator there).
"""

from __future__ import annotations

import time

from app.protocol import (
    ActionMessage,
    AutoplayMessage,
    ClientMessage,
    ErrorMessage,
    LeaveMessage,
    MuteMessage,
    PingMessage,
    PongMessage,
    ReadyMessage,
    ResumeMessage,
    SendChatMessage,
    ServerMessage,
    UnmuteMessage,
    UnwatchMessage,
    WatchMessage,
    to_rules_action,
)
from app.protocol.parse import carried_seq
from app.tables.errors import TableError
from app.tables.host import LiveTable
from app.tables.messages import Autoplay, Leave, PlayerAction, Ready, Resume
from app.tables.registry import TableRegistry


def _error(code: str, message: str, refused: ClientMessage) -> ErrorMessage:
    return ErrorMessage(code=code, message=message, ref_seq=carried_seq(refused))  # type: ignore[arg-type]


def route(
    message: ClientMessage, registry: TableRegistry, account_id: int, via: str | None = None
) -> ServerMessage | None:
    """Hand one valid message to its table; an immediate answer, if any."""
    if isinstance(message, PingMessage):
        return PongMessage(nonce=message.nonce)
    live = registry.get(message.table_id)
    seat = live.seat_of(account_id) if live is not None else None
    if live is None and registry.network.delivery.forward(account_id, message):
        return None  # the table lives on another node, which answers
    if isinstance(message, WatchMessage | UnwatchMessage | SendChatMessage | MuteMessage
                  | UnmuteMessage):
        try:
            return _social(message, live, account_id, via)
        except TableError as refused:
            return _error(refused.code, refused.message, message)
    if live is None or seat is None:
        return _error("wrong_table", "you do not sit at that table", message)
    if isinstance(message, ActionMessage):
        action = to_rules_action(message.action, seat)
        live.table.submit(PlayerAction(seat, action, message.seq, time.perf_counter()))
    elif isinstance(message, ResumeMessage):
        live.table.submit(Resume(seat, message.last_seq))
        # ``table_state`` and a ``resume`` (``seated``) on the seat's connection, not a new one
        live.announce([seat], seated=True, new_connection=False)
    elif isinstance(message, AutoplayMessage):
        live.table.submit(Autoplay(seat, message.on, message.level))
    elif isinstance(message, ReadyMessage):
        live.table.submit(Ready(seat))
    elif isinstance(message, LeaveMessage):
        live.table.submit(Leave(seat, account_id))
    return None


def _social(
    message: WatchMessage | UnwatchMessage | SendChatMessage | MuteMessage | UnmuteMessage,
    live: LiveTable | None,
    account_id: int,
    via: str | None,
) -> ServerMessage | None:
    """What needs no seat: watching, chat and mutes at the table `live` (None: this node
    has none) (TableError when refused)."""
    if isinstance(message, UnwatchMessage):
        if live is not None:
            live.watchers.unwatch(account_id)
        return None
    if live is None:
        raise TableError("no_table", f"no table {message.table_id!r}")
    if isinstance(message, WatchMessage):
        live.watchers.watch(account_id, message.code, via)
    elif isinstance(message, SendChatMessage):
        live.watchers.chat(account_id, message.phrase)
    else:
        return live.watchers.mute(account_id, message.seat, isinstance(message, MuteMessage))
    return None

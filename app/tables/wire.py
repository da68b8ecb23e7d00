"""The wire messages of the actor's outbound items (`app.protocol`), as the registry sends
them to a seat's socket: events, prompts (with the action the server takes when the time
is up), snapshots and errors, as models (`wire_message`) or straight as their JSON text
(`encoded_message`, the socket's fast path).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.protocol import (
    ERROR_CODES,
    ErrorMessage,
    EventMessage,
    PromptMessage,
    SeatedMessage,
    ServerMessage,
    SnapshotMessage,
    event_payload,
    from_rules_action,
    view_model,
)
from app.protocol.actions import PassAction, WireAction
from app.protocol.encode import Encoded, event_text, message_text, prompt_text, ready_hints
from app.protocol.vocabulary import as_variant
from app.rules.actions import Action, Escape, Pass
from app.rules.bots import TimeoutBot
from app.rules.events import Event
from app.rules.state import HandState
from app.tables.messages import (
    ErrorOut,
    EventOut,
    Outbound,
    PromptOut,
    SeatedOut,
    SnapshotOut,
)

_TIMEOUT = TimeoutBot()


class WireTable(Protocol):
    """What the wire messages of a table's items need of the table: its id, variant and
    stake, the hand in play (the prompt's timeout action), and the last event's text,
    kept to share between the seats that see the same copy."""

    table_id: str
    variant: str
    stake: int
    last_event: tuple[int, Event, Encoded] | None

    @property
    def hand(self) -> HandState | None: ...


def wire_message(live: WireTable, seat: int, item: Outbound) -> ServerMessage:
    """The wire message of one outbound item (events are already redacted for `seat`)."""
    table_id = live.table_id
    if isinstance(item, EventOut):
        return EventMessage(
            table_id=table_id, hand_id=item.hand_id, seq=item.seq, event=event_payload(item.event)
        )
    if isinstance(item, PromptOut):
        legal = [a for a in item.legal if not isinstance(a, Escape)]
        return PromptMessage(
            table_id=table_id,
            hand_id=item.hand_id,
            seq=item.seq,
            legal_actions=[from_rules_action(a) for a in legal],
            deadline_ms=int(item.remaining * 1000),
            timeout_action=_timeout_action(live, seat, legal),
            ready=ready_hints(item.ready),
            dead_ends=[from_rules_action(a) for a in item.dead_ends],
        )
    if isinstance(item, SnapshotOut):
        return SnapshotMessage(
            table_id=table_id,
            hand_id=item.hand_id,
            seq=item.seq,
            view=view_model(item.view),
            deadline_ms=None if item.remaining is None else int(item.remaining * 1000),
        )
    if isinstance(item, SeatedOut):
        return SeatedMessage(
            table_id=table_id, seat=item.seat, variant=as_variant(live.variant), stake=live.stake
        )
    assert isinstance(item, ErrorOut)
    # a code the actor uses that the wire protocol does not list reaches the client as internal
    code = item.code if item.code in ERROR_CODES else "internal"
    message = item.message[:300]
    return ErrorMessage(code=code, message=message, ref_seq=item.ref_seq)  # type: ignore[arg-type]


def encoded_message(live: WireTable, seat: int, item: Outbound) -> Encoded:
    """`wire_message(live, seat, item)` as its JSON text, the same text the model writes.
    Events and prompts are written straight from the core's values (`app.protocol.encode`),
    and an event every seat sees alike is written once and shared: the last event's text
    is kept per table, and the four copies of one event are sent one after another."""
    if isinstance(item, EventOut):
        cached = live.last_event
        if cached is not None and cached[0] == item.seq and cached[1] == item.event:
            return cached[2]
        encoded = event_text(live.table_id, item.hand_id, item.seq, item.event)
        live.last_event = (item.seq, item.event, encoded)
        return encoded
    if isinstance(item, PromptOut):
        legal = [a for a in item.legal if not isinstance(a, Escape)]
        return prompt_text(
            live.table_id,
            item.hand_id,
            item.seq,
            legal,
            int(item.remaining * 1000),
            _timeout_choice(live, seat, legal),
            item.ready,
            item.dead_ends,
        )
    return message_text(wire_message(live, seat, item))


def _timeout_action(live: WireTable, seat: int, legal: Sequence[Action]) -> WireAction:
    """What the server does when the time is up: pass in a claim window, else the clock's
    choice (`TimeoutBot`)."""
    choice = _timeout_choice(live, seat, legal)
    return PassAction() if choice is None else from_rules_action(choice)


def _timeout_choice(live: WireTable, seat: int, legal: Sequence[Action]) -> Action | None:
    """The core action behind `_timeout_action` (None: pass)."""
    if any(isinstance(a, Pass) for a in legal):
        return None
    state = live.hand
    if state is None or not legal:
        return None
    return _TIMEOUT.choose(state, seat, list(legal))

"""What a table has numbered and shown: the one owner of its sequence numbers, of the events
of the hand in play (or the last one) and of a result not shown yet.

- numbering: every event gets the next per-table sequence number, and every seat receives
  its own redacted copy (`Event.for_seat`) under that same number. The events are kept for
  resumes: `events[i]` carries seq `first_seq + i`;
- spectators (旁观): while the table's `public` is set (the registry sets it while anyone
  watches), every event is also given to it as an observer's copy (`Event.for_seat(None)`:
  no concealed tile of any seat), ``hand_ended`` when it is shown; `snapshot` is the
  observer's view of the hand in play (or the last one) at the last event shown. The table
  never waits on a spectator: `public` only queues;
- results are stored before they are shown (DESIGN.md): the hand's ``hand_ended`` event
  (its settlement) is numbered when the hand ends but held back; `show` sends it once the
  record and its silver are stored, carrying what each seat's balance moved by (`silver`:
  the balance floor may have made it smaller than net x stake), and writes the same into the
  kept events, so that a resume sends it again. Meanwhile nothing of the result is shown:
  `shown_seq` stops before it and a snapshot has no outcome, net or seed;
- resumes (`missed`): what a seat lacks after the last seq it saw: the events after it in
  the current hand, or a full snapshot of its own view when they are of an older hand (or
  unknown); then the seat's prompt, if any.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.ops import metrics
from app.rules.events import Event, HandEnded, SeatPenalty
from app.rules.state import HandState
from app.rules.views import seat_view
from app.tables.messages import EventOut, Outbound, PromptOut, SnapshotOut
from app.tables.settlement.record import Silver
from app.tables.tableside import Prompt, Send, TableSide


class Transcript:
    """The numbered events of one table, sent to its seats and its spectators."""

    def __init__(self, table: TableSide, send: Send) -> None:
        self._table = table  # for its `public`, set and unset while the table runs
        self._send = send
        self._seq = 0  # the seq of the last event numbered
        self._hand_id = ""  # the hand the events are of
        self._first_seq = 1
        self._events: list[Event] = []  # events[i] carries seq first_seq + i
        self._held: list[EventOut] = []  # the result, numbered, shown once stored

    @property
    def seq(self) -> int:
        """The sequence number of the last event numbered."""
        return self._seq

    @property
    def hand_id(self) -> str:
        return self._hand_id

    @property
    def events(self) -> list[Event]:
        """The events of the hand in play (or the last one), in order."""
        return self._events

    @property
    def holding(self) -> bool:
        """A result is numbered but not shown yet (it is being stored)."""
        return bool(self._held)

    @property
    def shown_seq(self) -> int:
        """The seq of the last event sent (a result being stored is not sent yet)."""
        return self._seq - len(self._held)

    def begin(self, hand_id: str) -> None:
        """A new hand: its events are numbered from the next seq on."""
        self._hand_id = hand_id
        self._events = []
        self._first_seq = self._seq + 1

    def restart(self) -> None:
        """Forget the last hand's events (the seats were redrawn: they were redacted for
        the old seats, and can no longer be resumed)."""
        self._events = []
        self._first_seq = self._seq + 1

    def publish(self, events: list[Event]) -> None:
        """Number the events, log them for resumes, then send each seat its copy."""
        first = self._seq + 1
        self._events.extend(events)
        self._seq += len(events)
        for offset, event in enumerate(events):
            if isinstance(event, HandEnded):  # the settlement: shown once stored (`show`)
                self._held.append(EventOut(first + offset, self._hand_id, event))
                continue
            for seat in range(4):
                self._send(seat, EventOut(first + offset, self._hand_id, event.for_seat(seat)))
            public = self._table.public
            if public is not None:
                public(EventOut(first + offset, self._hand_id, event.for_seat(None)))
        metrics.events_published()

    def show(self, silver: Silver, penalties: tuple[SeatPenalty, ...] = ()) -> None:
        """Send the held result, with what each seat's balance moved by and the penalties
        charged apart, to every seat and to the spectators (``hand_ended`` is alike for
        all)."""
        held, self._held = self._paid(silver, penalties), []
        for item in held:
            for seat in range(4):
                self._send(seat, item)
            public = self._table.public
            if public is not None:
                public(item)

    def _paid(self, silver: Silver, penalties: tuple[SeatPenalty, ...]) -> list[EventOut]:
        """The held result with the silver each seat's balance moved by, also in the hand's
        events (what a resume sends again)."""
        held = []
        for item in self._held:
            if isinstance(item.event, HandEnded):
                item = replace(item, event=replace(item.event, silver=silver,
                                                   penalties=penalties))
                index = item.seq - self._first_seq
                if 0 <= index < len(self._events) and self._events[index].kind == "hand_ended":
                    self._events[index] = item.event
            held.append(item)
        return held

    def drop_held(self) -> None:
        """The hand was voided: no result of it will be shown."""
        self._held = []

    def adopt(self, seq: int) -> None:
        """Go on from `seq`, the last event another process numbered at this table."""
        self._seq = seq

    def adopt_hand(self, hand_id: str, first_seq: int, events: list[Event]) -> None:
        """The events of a hand another process played here, from `first_seq` on; a result
        among them is shown once this process has stored it."""
        self._hand_id = hand_id
        self._events = events
        self._first_seq = first_seq
        self._seq = first_seq - 1 + len(events)
        self._held = [
            EventOut(first_seq + i, hand_id, e)
            for i, e in enumerate(events) if isinstance(e, HandEnded)
        ]

    def missed(
        self, seat: int, last_seq: int, state: HandState, prompt: Prompt | None, now: float
    ) -> list[Outbound]:
        """The answer to a resume from `last_seq` (docs/protocol.md, `resume`): the events
        after it in the current hand, or a snapshot; then the seat's prompt, if any."""
        shown = self.shown_seq  # a result not yet stored is not resent
        items: list[Outbound] = []
        if self._first_seq - 1 <= last_seq <= shown:
            first = last_seq + 1
            missed = self._events[first - self._first_seq:shown + 1 - self._first_seq]
            for offset, event in enumerate(missed):
                items.append(EventOut(first + offset, self._hand_id, event.for_seat(seat)))
        else:
            remaining = prompt.remaining(now) if prompt is not None else None
            view = self._shown_view(state, seat)
            items.append(SnapshotOut(shown, self._hand_id, view, remaining))
        if prompt is not None:
            items.append(self.prompt_out(prompt, now))
        return items

    def _shown_view(self, state: HandState, seat: int) -> dict[str, Any]:
        """`seat`'s view as shown: while the result is held (being stored) the hand has no
        outcome, net or seed yet; they come with ``hand_ended``."""
        view = seat_view(state, seat)
        if self._held:
            view["outcome"] = view["net"] = view["seed"] = None
        return view

    def snapshot(self, state: HandState | None) -> SnapshotOut | None:
        """An observer's view (`seat_view(state, None)`: no concealed tile until the hand
        ends, no legal action, no claim offer) of `state`, the hand in play or the last one,
        at the last event shown; None when there is none."""
        if state is None:
            return None
        view = seat_view(state, None)
        if self._held:  # the points come with ``hand_ended``, once stored
            view["net"] = None
        return SnapshotOut(self.shown_seq, self._hand_id, view, None)

    def prompt_out(self, prompt: Prompt, now: float) -> PromptOut:
        return PromptOut(
            prompt.seq, self._hand_id, list(prompt.legal), prompt.deadline, prompt.remaining(now),
            prompt.ready, prompt.dead_ends,
        )

"""A disconnect penalty is part of the result a table shows (RULES.md 1 and 7): a seat that
drops during a hand and is still away at its end, charged by the store on its third
disconnect in 24 hours, is named with the silver it paid in the ``hand_ended`` every seat
and a resume receive; a hand with nobody away carries none."""

from __future__ import annotations

import json

from app.protocol import EventMessage, event_payload
from app.protocol.encode import event_text
from app.rules.events import HandEnded, SeatPenalty
from app.tables.messages import Disconnected, EventOut, Resume
from app.tables.settlement.record import HandRecordData, Paid
from tests.tables.test_actor import (
    HUZHOU,
    HUZHOU_QUIET,
    Harness,
    stored_silver,
    throw_until_drawn,
)


class ChargingHarness(Harness):
    """A store that answers, for each seat away at the end, a penalty of 4 silver (what it
    charges a third disconnect in 24 hours at 2 x a base of 2)."""

    async def on_hand_end(self, record: HandRecordData) -> Paid:
        self.records.append(record)
        return Paid(stored_silver(record),
                    tuple(SeatPenalty(s, "disconnect_penalty", 4) for s in record.away))


def _wire(item: EventOut) -> dict:
    """The event's text as the socket sends it, the same as the model writes."""
    text = event_text("t1", item.hand_id, item.seq, item.event).text
    model = EventMessage(table_id="t1", hand_id=item.hand_id, seq=item.seq,
                         event=event_payload(item.event))
    assert text == model.model_dump_json()
    return json.loads(text)["event"]


def _ended(h: Harness, seat: int) -> list[EventOut]:
    return [i for i in h.sent(seat, EventOut) if isinstance(i.event, HandEnded)]


async def test_a_seat_that_drops_during_a_hand_has_its_penalty_in_everyones_result() -> None:
    h = ChargingHarness(HUZHOU, scenario=HUZHOU_QUIET)
    await h.deal()
    await h.handle(Disconnected(2))  # seat 2 drops during the hand and stays away
    record = await throw_until_drawn(h)
    assert record.away == (2,)
    for seat in (0, 1, 3):
        (shown,) = _ended(h, seat)
        wire = _wire(shown)
        assert wire["penalties"] == [{"seat": 2, "reason": "disconnect_penalty", "silver": 4}]
    # a resume sends the same result again
    again = [i for s, i in await h.handle(Resume(0, 0)) if s == 0
             and isinstance(i, EventOut) and isinstance(i.event, HandEnded)]
    assert again and again[-1].event.penalties == (SeatPenalty(2, "disconnect_penalty", 4),)


async def test_a_hand_with_nobody_away_shows_no_penalty() -> None:
    h = ChargingHarness(HUZHOU, scenario=HUZHOU_QUIET)
    await h.deal()
    await throw_until_drawn(h)
    (shown,) = _ended(h, 0)
    assert _wire(shown)["penalties"] == []

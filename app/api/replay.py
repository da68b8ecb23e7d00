"""Hand replays (回放): a stored hand re-run from its record (`app.rules.hand.replay`), as
protocol event payloads.

Who sees what (information hiding holds after the hand too):
- an administrator sees every seat's tiles (the events unredacted), and the read is audited;
- a player who sat in the hand sees it as their seat saw it (`seat_payload(event, seat)`);
- anyone else: `forbidden`; an unknown hand: `not_found`.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, TypeAdapter

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.protocol import EventPayload, WireAction, event_payload, seat_payload, to_rules_action
from app.protocol.tiles import to_tile
from app.rules.actions import Action, Escape
from app.rules.events import Event
from app.rules.hand import Preset, replay
from app.rules.variants import get_ruleset
from app.rules.variants.base import TableContext
from app.store import audit
from app.store.models import HandRecord

router = APIRouter(tags=["hands"])

_WIRE_ACTION: TypeAdapter[WireAction] = TypeAdapter(WireAction)


class ReplayOut(BaseModel):
    hand_id: str
    table_id: str
    variant: str
    voided: bool
    seats: list[int | None]  # account id per seat
    seat: int | None  # the viewer's seat; null: an administrator's full view
    events: list[EventPayload]


def recorded_events(record: HandRecord) -> list[Event]:
    """Every event of the stored hand, unredacted, by re-running its seed and action log."""
    ctx: dict[str, Any] = json.loads(record.ctx)
    context = TableContext(
        dealer=ctx["dealer"],
        streak=ctx["streak"],
        seat_points=tuple(ctx["seat_points"]),  # type: ignore[arg-type]
        draw_bonus=ctx["draw_bonus"],
    )
    preset = None
    if record.preset is not None:
        stored = json.loads(record.preset)
        preset = Preset(
            tuple(to_tile(code) for code in stored["wall"]),
            tuple(stored["dice"]),  # type: ignore[arg-type]
            tuple(stored["wild_dice"]),  # type: ignore[arg-type]
        )
    actions: list[Action] = [
        Escape(a["seat"]) if a["action"]["type"] == "escape"
        else to_rules_action(_WIRE_ACTION.validate_python(a["action"]), a["seat"])
        for a in json.loads(record.actions)
    ]
    _, events = replay(get_ruleset(record.variant), record.seed, context, actions, preset)
    return events


@router.get(
    "/hands/{hand_id}/replay",
    responses=errors.responses("not_found", "forbidden", *AUTH_ERRORS),
)
async def hand_replay(hand_id: str, account: CurrentAccount, session: SessionDep) -> ReplayOut:
    """Every event of a finished (or voided) hand, as the viewer may see it: an admin sees
    every seat's tiles, a player of the hand their own seat's view."""
    async with session.begin():
        record = await session.get(HandRecord, hand_id)
        if record is None:
            raise ApiError("not_found", f"no hand {hand_id!r}")
        seats: list[int | None] = json.loads(record.seats)
        is_admin = account.role == "admin"
        if is_admin:
            await audit.record(session, account.id, "replay_hand", None, {"hand_id": hand_id})
    seat = None if is_admin else next((s for s, a in enumerate(seats) if a == account.id), None)
    if not is_admin and seat is None:
        raise ApiError("forbidden", "only the hand's players and administrators see its replay")
    events = recorded_events(record)
    payloads = [event_payload(e) if seat is None else seat_payload(e, seat) for e in events]
    return ReplayOut(
        hand_id=record.id,
        table_id=record.table_id,
        variant=record.variant,
        voided=record.voided,
        seats=seats,
        seat=seat,
        events=payloads,
    )

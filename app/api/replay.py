"""Hand replays (回放): a stored hand re-run from its record (`app.rules.hand.replay`), as
protocol event payloads, with what a viewer needs to step through it forwards and back:
who sat where (names, bots), the variant and dealer, the result (points and the silver
each seat's balance moved by) and, on request (`views=true`), the viewer's whole view
after each step, so that a client can show any step without folding the events itself.

Who sees what (information hiding holds after the hand too):
- an administrator sees every seat's tiles (the events unredacted), and the read is audited;
  with `seat` the hand as that seat saw it;
- a player who sat in the hand sees it as their seat saw it (`seat_payload(event, seat)`);
  `seat` may name their own seat only;
- anyone else: `forbidden`; an unknown hand: `not_found`.

A hand is stored once it is over (ended or voided), so a replay never shows the seed of a
hand in play; a finished hand's seed and commitment are in its events (`hand_ended.seed`,
`hand_started.commitment`), a voided hand's seed nowhere.

A step is what one action showed: the events it caused and the view after them. An action
that showed nothing yet (a 过 in a claim window, which the window's result shows) belongs
to the next step, so a step never tells who could have claimed.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, TypeAdapter
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.protocol import (
    EventPayload,
    SeatView,
    WireAction,
    event_payload,
    seat_payload,
    to_rules_action,
    view_model,
)
from app.protocol.tiles import to_tile
from app.protocol.vocabulary import Outcome
from app.rules.actions import Action, Escape
from app.rules.events import Event
from app.rules.hand import HandState, Preset, new_hand, replay, step
from app.rules.variants import get_ruleset
from app.rules.variants.base import Ruleset, TableContext
from app.rules.views import seat_view
from app.store import audit, house
from app.store.models import Account, HandRecord, LedgerEntry

router = APIRouter(tags=["hands"])

_WIRE_ACTION: TypeAdapter[WireAction] = TypeAdapter(WireAction)


class ReplayPlayer(BaseModel):
    """Who sat at one seat of the hand."""

    seat: int = Field(ge=0, le=3)
    account_id: int | None = Field(description="null: nobody (a voided hand's empty seat)")
    name: str | None = Field(description="the account's name now; null: no account")
    bot: bool = Field(description="a bot of the house, not a person")


class ReplayResult(BaseModel):
    """How the hand ended and what it paid, per seat (lists of four, by seat)."""

    outcome: Outcome
    net: list[int] = Field(description="points won (+) or lost (-), as `hand_ended` showed")
    silver: list[int] = Field(
        description="the silver (银两) each seat's balance moved by because of this hand: its "
        "settlement, house rewards, and penalties charged with it (the ledger's rows)"
    )


class ReplayStep(BaseModel):
    """One step of the hand: the view after the events `events[previous upto:upto]`."""

    upto: int = Field(ge=1, description="how many of `events` this step has shown")
    view: SeatView = Field(description="the viewer's whole view after them (a snapshot's)")


class ReplayOut(BaseModel):
    hand_id: str
    table_id: str
    variant: str
    voided: bool
    seats: list[int | None] = Field(description="account id per seat")
    players: list[ReplayPlayer] = Field(description="per seat, who sat there")
    dealer: int = Field(ge=0, le=3, description="the dealer (庄家) of the hand")
    ended_at: datetime = Field(description="when the hand was stored")
    seat: int | None = Field(description="the viewer's seat; null: an administrator's view "
                             "of every seat's tiles")
    events: list[EventPayload] = Field(description="every event of the hand, in order, as "
                                       "the viewer's seat saw it (or unredacted)")
    result: ReplayResult | None = Field(description="null: the hand was voided")
    steps: list[ReplayStep] | None = Field(
        default=None, description="with `views=true`: the hand step by step (see `ReplayStep`)"
    )


class Recorded:
    """A stored hand as the rules core replays it."""

    def __init__(self, record: HandRecord) -> None:
        stored: dict[str, Any] = json.loads(record.ctx)
        self.ruleset: Ruleset = get_ruleset(record.variant)
        if record.options is not None:  # a private room's house rules
            chosen = type(self.ruleset.options)(**json.loads(record.options))
            self.ruleset = replace(self.ruleset, options=chosen)
        self.seed = bytes.fromhex(record.seed)
        self.ctx = TableContext(
            dealer=stored["dealer"],
            streak=stored["streak"],
            seat_points=tuple(stored["seat_points"]),  # type: ignore[arg-type]
            draw_bonus=stored["draw_bonus"],
        )
        self.preset: Preset | None = None
        if record.preset is not None:
            wall = json.loads(record.preset)
            self.preset = Preset(
                tuple(to_tile(code) for code in wall["wall"]),
                tuple(wall["dice"]),  # type: ignore[arg-type]
                tuple(wall["wild_dice"]),  # type: ignore[arg-type]
            )
        self.actions: list[Action] = [
            Escape(a["seat"]) if a["action"]["type"] == "escape"
            else to_rules_action(_WIRE_ACTION.validate_python(a["action"]), a["seat"])
            for a in json.loads(record.actions)
        ]

    def events(self) -> list[Event]:
        """Every event of the hand, unredacted."""
        _, events = replay(self.ruleset, self.seed, self.ctx, self.actions, self.preset)
        return events

    def steps(self, seat: int | None) -> list[ReplayStep]:
        """The hand step by step, as `seat` saw it (None: every seat's tiles)."""
        state, events = new_hand(self.ruleset, self.seed, self.ctx, self.preset)
        shown = len(events)
        out = [ReplayStep(upto=shown, view=_view(state, seat))]
        for action in self.actions:
            state, more = step(state, action)
            if not more:
                continue  # nothing shown yet: part of the next step
            shown += len(more)
            out.append(ReplayStep(upto=shown, view=_view(state, seat)))
        return out


def recorded_events(record: HandRecord) -> list[Event]:
    """Every event of the stored hand, unredacted, by re-running its seed and action log."""
    return Recorded(record).events()


def _view(state: HandState, seat: int | None) -> SeatView:
    view = seat_view(state, seat)
    if seat is None:  # an administrator: every seat's tiles (as `/admin/tables` reveals)
        for number, shown in enumerate(view["seats"]):
            shown["hand"] = seat_view(state, number)["seats"][number]["hand"]
    return view_model(view)


async def _players(session: AsyncSession, seats: list[int | None]) -> list[ReplayPlayer]:
    ids = [a for a in seats if a is not None]
    rows = (await session.execute(
        select(Account.id, Account.username).where(Account.id.in_(ids))
    )).all() if ids else []
    names = {row.id: row.username for row in rows}
    return [
        ReplayPlayer(
            seat=seat,
            account_id=account,
            name=names.get(account) if account is not None else None,
            bot=account is not None and house.is_bot_name(names.get(account, "")),
        )
        for seat, account in enumerate(seats)
    ]


async def _result(
    session: AsyncSession, record: HandRecord, seats: list[int | None]
) -> ReplayResult | None:
    stored: dict[str, Any] = json.loads(record.result)
    if record.voided or "outcome" not in stored:
        return None
    moved = {
        account: int(total) for account, total in (await session.execute(
            select(LedgerEntry.account_id, func.sum(LedgerEntry.delta))
            .where(LedgerEntry.hand_id == record.id)
            .group_by(LedgerEntry.account_id)
        )).all()
    }
    return ReplayResult(
        outcome=stored["outcome"],
        net=list(stored["net"]),
        silver=[moved.get(account, 0) if account is not None else 0 for account in seats],
    )


SeatQuery = Annotated[
    int | None,
    Query(ge=0, le=3, description="see the hand as this seat saw it (a player: their own)"),
]
ViewsQuery = Annotated[
    bool, Query(description="add `steps`: the viewer's whole view after each step")
]


@router.get(
    "/hands/{hand_id}/replay",
    responses=errors.responses("not_found", "forbidden", "validation_error", *AUTH_ERRORS),
)
async def hand_replay(
    hand_id: str,
    account: CurrentAccount,
    session: SessionDep,
    seat: SeatQuery = None,
    views: ViewsQuery = False,
) -> ReplayOut:
    """Every event of a finished (or voided) hand, as the viewer may see it: an admin sees
    every seat's tiles (or, with `seat`, that seat's view), a player of the hand their own
    seat's view; with the players' names, the dealer, the result in points and silver and,
    with `views=true`, the view after each step. A finished hand shows the commitment its
    `hand_started` published and the seed its `hand_ended` revealed: `python -m
    app.rules.verify` checks this answer as it is (docs/protocol.md, "Verifying a hand")."""
    async with session.begin():
        record = await session.get(HandRecord, hand_id)
        if record is None:
            raise ApiError("not_found", f"no hand {hand_id!r}")
        seats: list[int | None] = json.loads(record.seats)
        is_admin = account.role == "admin"
        own = next((s for s, a in enumerate(seats) if a == account.id), None)
        if not is_admin and (own is None or seat not in (None, own)):
            raise ApiError(
                "forbidden", "only the hand's players (their own seat) and administrators "
                "see its replay"
            )
        if is_admin:
            await audit.record(session, account.id, "replay_hand", None, {"hand_id": hand_id})
        players = await _players(session, seats)
        result = await _result(session, record, seats)
    viewer = seat if is_admin else own
    recorded = Recorded(record)
    events = recorded.events()
    payloads = [event_payload(e) if viewer is None else seat_payload(e, viewer) for e in events]
    return ReplayOut(
        hand_id=record.id,
        table_id=record.table_id,
        variant=record.variant,
        voided=record.voided,
        seats=seats,
        players=players,
        dealer=recorded.ctx.dealer,
        ended_at=record.created_at,
        seat=viewer,
        events=payloads,
        result=result,
        steps=recorded.steps(viewer) if views else None,
    )

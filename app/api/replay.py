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
- a player who sat in the hand may ask for `reveal=true`: every seat's tiles, step by step,
  once the hand has ended (not for a voided hand, whose seed was never revealed: their own
  seat then). Nothing is told that the ended hand did not tell its players already: its
  revealed seed gives the wall, and with the events every seat's tiles at every step;
- a hand a player made public (app/api/replay_share.py) is read with every seat's tiles by
  anyone: any account here, and without an account at `GET /replays/{hand_id}` (the
  anonymous reader's builds counted against its address);
- anyone else: `forbidden`; an unknown hand: `not_found` (at `/replays/`, a hand that is not
  public answers `not_found` too, so that a link tells nothing of a private hand).

A hand is stored once it is over (ended or voided), so a replay never shows the seed of a
hand in play; a finished hand's seed and commitment are in its events (`hand_ended.seed`,
`hand_started.commitment`), a voided hand's seed nowhere.

The events and steps are built once per (hand, viewer, views) in a worker process and kept
(app/api/replay_build.py builds them, app/api/replay_cache.py keeps them and bounds what an
account may have built: `rate_limited` past REPLAY_BUILDS_PER_ACCOUNT builds per
REPLAY_WINDOW_SECONDS, a kept replay costing nothing). The names, the silver and an
administrator's audit row are read for every request.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from datetime import datetime
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field, TypeAdapter
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.ratelimit import client_address
from app.api.replay_build import Built, ReplayStep, StoredHand
from app.api.replay_cache import ReplayCache, public_budget_key
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.protocol import EventPayload
from app.protocol.vocabulary import Outcome
from app.store import audit, house
from app.store.models import Account, HandRecord, LedgerEntry, SharedHand

router = APIRouter(tags=["hands"])


class ReplayPlayer(BaseModel):
    """Who sat at one seat of the hand."""

    seat: int = Field(ge=0, le=3)
    account_id: int | None = Field(description="null: nobody (a voided hand's empty seat)")
    name: str | None = Field(description="the account's name now; null: no account")
    bot: bool = Field(description="a bot of the house, not a person")


class ReplayPenalty(BaseModel):
    """A penalty charged with the hand that is none of its transfers: the third disconnect in
    24 hours (RULES.md 1), paid by a seat still away when the hand ended to the others."""

    seat: int = Field(ge=0, le=3, description="the seat that paid")
    reason: Literal["disconnect_penalty"]
    silver: int = Field(ge=0, description="the silver it paid (the balance floor may have "
                        "cut it), divided among the other seats")


class ReplayResult(BaseModel):
    """How the hand ended and what it paid, per seat (lists of four, by seat)."""

    outcome: Outcome
    net: list[int] = Field(description="points won (+) or lost (-), as `hand_ended` showed")
    silver: list[int] = Field(
        description="the silver (银两) each seat's balance moved by because of this hand: its "
        "settlement, house rewards, and penalties charged with it (the ledger's rows)"
    )
    penalties: list[ReplayPenalty] = Field(
        default_factory=list, description="the penalties in `silver` that are none of the "
        "hand's transfers, each with its cause (a disconnect)"
    )


class ReplayOut(BaseModel):
    hand_id: str
    table_id: str
    variant: str
    voided: bool
    seats: list[int | None] = Field(description="account id per seat")
    players: list[ReplayPlayer] = Field(description="per seat, who sat there")
    dealer: int = Field(ge=0, le=3, description="the dealer (庄家) of the hand")
    ended_at: datetime = Field(description="when the hand was stored")
    seat: int | None = Field(description="the viewer's seat; null: every seat's tiles (an "
                             "administrator's view, a player's `reveal`, a public replay)")
    events: list[EventPayload] = Field(description="every event of the hand, in order, as "
                                       "the viewer's seat saw it (or unredacted)")
    result: ReplayResult | None = Field(description="null: the hand was voided")
    public: bool = Field(
        default=False, description="a player of the hand made its replay public: anyone "
        "with the link reads it (`GET /replays/{hand_id}`)"
    )
    steps: list[ReplayStep] | None = Field(
        default=None, description="with `views=true`: the hand step by step (see `ReplayStep`)"
    )


# Each field of the answer serialized as pydantic serializes it within `ReplayOut`: the
# answer is these in the model's order, with the kept `events` and `steps` spliced in as
# they were built (tests/api/test_replay_cache.py holds it equal to `ReplayOut`'s own JSON).
_BUILT = frozenset({"events", "steps"})
_FIELDS: dict[str, TypeAdapter[Any]] = {
    name: TypeAdapter(cast(Any, field.annotation))  # every field has one
    for name, field in ReplayOut.model_fields.items() if name not in _BUILT
}


def answer_json(fields: dict[str, Any], built: Built) -> bytes:
    """The answer's JSON: `fields` (every field of `ReplayOut` but events and steps) and
    the built events and steps."""
    spliced = {"events": built.events, "steps": built.steps or b"null"}
    parts = [
        b'"' + name.encode() + b'":'
        + (spliced[name] if name in _BUILT else _FIELDS[name].dump_json(fields[name]))
        for name in ReplayOut.model_fields
    ]
    return b"{" + b",".join(parts) + b"}"


def stored_hand(record: HandRecord) -> StoredHand:
    return StoredHand(
        variant=record.variant,
        seed=record.seed,
        ctx=record.ctx,
        actions=record.actions,
        preset=record.preset,
        options=record.options,
    )


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
    paid = (await session.execute(
        select(LedgerEntry.account_id, LedgerEntry.delta)
        .where(LedgerEntry.hand_id == record.id, LedgerEntry.reason == "disconnect_penalty",
               LedgerEntry.delta < 0)
        .order_by(LedgerEntry.id)
    )).all()
    return ReplayResult(
        outcome=stored["outcome"],
        net=list(stored["net"]),
        silver=[moved.get(account, 0) if account is not None else 0 for account in seats],
        penalties=[
            ReplayPenalty(seat=seats.index(account), reason="disconnect_penalty", silver=-delta)
            for account, delta in paid if account in seats
        ],
    )


SeatQuery = Annotated[
    int | None,
    Query(ge=0, le=3, description="see the hand as this seat saw it (a player: their own)"),
]
ViewsQuery = Annotated[
    bool, Query(description="add `steps`: the viewer's whole view after each step")
]
RevealQuery = Annotated[
    bool, Query(description="a player of an ended hand: every seat's tiles (a voided hand: "
                "the player's own seat still)")
]


async def _fields(
    session: AsyncSession, record: HandRecord, viewer: int | None, public: bool
) -> dict[str, Any]:
    """Every field of the answer but the built events and steps (read per request)."""
    seats: list[int | None] = json.loads(record.seats)
    return {
        "hand_id": record.id,
        "table_id": record.table_id,
        "variant": record.variant,
        "voided": record.voided,
        "seats": seats,
        "players": await _players(session, seats),
        "dealer": json.loads(record.ctx)["dealer"],
        "ended_at": record.created_at,
        "seat": viewer,
        "result": await _result(session, record, seats),
        "public": public,
    }


async def _respond(fields: dict[str, Any], built: Awaitable[Built]) -> Response:
    return Response(answer_json(fields, await built), media_type="application/json")


async def is_public(session: AsyncSession, hand_id: str) -> bool:
    return await session.get(SharedHand, hand_id) is not None


@router.get(
    "/hands/{hand_id}/replay",
    response_model=ReplayOut,
    responses=errors.responses(
        "not_found", "forbidden", "validation_error", "rate_limited", "busy", *AUTH_ERRORS
    ),
)
async def hand_replay(
    hand_id: str,
    account: CurrentAccount,
    session: SessionDep,
    request: Request,
    seat: SeatQuery = None,
    views: ViewsQuery = False,
    reveal: RevealQuery = False,
) -> Response:
    """Every event of a finished (or voided) hand, as the viewer may see it: an admin sees
    every seat's tiles (or, with `seat`, that seat's view), a player of the hand their own
    seat's view (every seat's with `reveal=true` once the hand ended), anyone else a public
    hand's every seat's tiles; with the players' names, the dealer, the result in points and silver and,
    with `views=true`, the view after each step. A finished hand shows the commitment its
    `hand_started` published and the seed its `hand_ended` revealed: `python -m
    app.rules.verify` checks this answer as it is (docs/protocol.md, "Verifying a hand").

    A replay is built once per hand, seat and `views` on a node and kept; a replay not kept
    yet spends one of the account's REPLAY_BUILDS_PER_ACCOUNT builds per
    REPLAY_WINDOW_SECONDS (20 a minute by default): past them, 429 `rate_limited` with
    Retry-After and `details.retry_after` (seconds), while kept replays are still served.
    503 `busy` (Retry-After: 1) when the node has too many replays to build at once."""
    replays: ReplayCache = request.app.state.replays
    async with session.begin():
        record = await session.get(HandRecord, hand_id)
        if record is None:
            raise ApiError("not_found", f"no hand {hand_id!r}")
        seats: list[int | None] = json.loads(record.seats)
        is_admin = account.role == "admin"
        own = next((s for s, a in enumerate(seats) if a == account.id), None)
        public = await is_public(session, hand_id)
        viewer: int | None
        if is_admin:
            viewer = seat
        elif own is not None and seat in (None, own):
            viewer = None if reveal and not record.voided else own
        elif own is None and seat is None and public:
            viewer = None  # a public replay: every seat's tiles
        else:
            raise ApiError(
                "forbidden", "only the hand's players (their own seat) and administrators "
                "see its replay, unless a player made it public"
            )
        # asked (and refused, if it must be) before the audit row is written
        built = replays.get((hand_id, viewer, views), account.id, lambda: stored_hand(record))
        if is_admin:
            await audit.record(session, account.id, "replay_hand", None, {"hand_id": hand_id})
        fields = await _fields(session, record, viewer, public)
    return await _respond(fields, built)


@router.get(
    "/replays/{hand_id}",
    response_model=ReplayOut,
    responses=errors.responses("not_found", "validation_error", "rate_limited", "busy"),
)
async def public_replay(
    hand_id: str, session: SessionDep, request: Request, views: ViewsQuery = False
) -> Response:
    """A public replay (a player of the hand made it public: `PUT /hands/{id}/public`), for
    anyone, without an account: every event and every seat's tiles of the ended hand, as
    `GET /hands/{id}/replay` answers a player's `reveal=true`. A hand that is not public
    answers `not_found`, as an unknown hand does. Counted as every anonymous request is (per
    address, app/api/throttle.py), and a replay not kept yet spends one of the address's
    REPLAY_BUILDS_PER_ACCOUNT builds per REPLAY_WINDOW_SECONDS (429 `rate_limited` past
    them)."""
    replays: ReplayCache = request.app.state.replays
    async with session.begin():
        record = await session.get(HandRecord, hand_id)
        if record is None or record.voided or not await is_public(session, hand_id):
            raise ApiError("not_found", f"no public replay of hand {hand_id!r}")
        budget = public_budget_key(client_address(request))
        built = replays.get((hand_id, None, views), budget, lambda: stored_hand(record))
        fields = await _fields(session, record, None, True)
    return await _respond(fields, built)

"""Tournaments (比赛场) over REST, before any round is played: an operator creates and
cancels events; anyone lists them and reads one; a signed-in player registers (the fee
held by the event) and unregisters (the fee paid back) until the start.
docs/tournaments.md, "Registering and money" and "The API".

Rules:
- the server draws each event's seed (32 random bytes) when it is created and shows its
  SHA-256 (`commitment`) from then on; the seed itself only once round 1 is drawn;
- registering and unregistering are each one transaction with their ledger rows, refused
  with nothing changed: `registration_closed` (the event is not open or its start has
  come), `tournament_full`, `already_registered`, `not_registered`,
  `insufficient_balance`; the house's accounts (its bots, the events') are `forbidden`;
- a player's registration changes are bounded: `rate_limited` (429, Retry-After) past
  `CHANGES_PER_HOUR` in an hour on this node, on top of the edge's request limits;
- creating and cancelling are written to the audit log.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from app.api import errors
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ApiError
from app.api.lobby import TimersIn
from app.api.params import INT64_MAX, VARIANT_NAMES, Offset
from app.api.ratelimit import MemoryQuota
from app.api.rooms import RoomLengthIn, house_rules
from app.api.schemas import Utc
from app.api.security import (
    ADMIN_ERRORS,
    AUTH_ERRORS,
    AdminAccount,
    CurrentAccount,
    account_for_token,
)
from app.protocol.rooms import RoomLength
from app.rules.wall import commitment
from app.store import audit, house
from app.store.models import Account, Tournament
from app.tables.levels import DEFAULT_BOT_LEVEL, BotLevel
from app.tables.timers import Timers
from app.tournaments import events, prizes
from app.tournaments.events import TournamentRefused
from app.tournaments.swiss import MAX_ENTRANTS, MIN_ENTRANTS

router = APIRouter(tags=["tournaments"])

CHANGES_PER_HOUR = 30  # registrations and unregistrations an account may ask for in an hour
MAX_FEE = 10**9
MAX_GUARANTEE = 10**9  # silver: far past any event's, far inside an adjustment's bound
MAX_PLACES = 64
MAX_ROUNDS = 8
TournamentId = Annotated[int, Path(ge=1, le=INT64_MAX, description="a tournament's id")]


class CreateTournamentIn(BaseModel):
    """An event: its rules and stake (as a private room's), its money, its seats and
    format, its prize table and its start."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"example": {
            "name": "冬至杯", "variant": "lishui", "options": {}, "stake": 1,
            "fee": 500, "rake_bp": 1000, "guarantee": 20000, "seats": 32, "rounds": 4,
            "length": {"unit": "hands", "count": 8}, "final_table": True,
            "prize_shares": [50, 30, 20], "starts_at": "2026-12-21T12:00:00Z",
        }},
    )

    name: str = Field(min_length=1, max_length=40, description="1-40 characters")
    variant: str = Field(description="a rule set", json_schema_extra=VARIANT_NAMES)
    options: dict[str, bool | int | str | None] = Field(
        default_factory=dict, description="house rules, as a private room's (GET /rooms/options)")
    stake: int = Field(ge=1, le=1_000_000, strict=True, description="silver per point at its tables")
    timers: TimersIn | None = None
    fee: int = Field(ge=0, le=MAX_FEE, strict=True, description="silver each player pays to enter")
    rake_bp: int = Field(default=0, ge=0, le=prizes.BASIS, strict=True,
                         description="the house's cut of the fees, in basis points (0-10000)")
    guarantee: int = Field(default=0, ge=0, le=MAX_GUARANTEE, strict=True,
                           description="the least pool: the house pays the difference")
    seats: int = Field(ge=MIN_ENTRANTS, le=MAX_ENTRANTS, strict=True,
                       description="8-256, in fours; empty seats get house bots")
    rounds: int = Field(ge=1, le=MAX_ROUNDS, strict=True, description="Swiss rounds")
    length: RoomLengthIn = Field(description="each round's length: hands, or 版")
    final_table: bool = Field(default=False, strict=True,
                              description="the four best play a final table")
    prize_shares: list[Annotated[int, Field(ge=1, le=1_000_000, strict=True)]] = Field(
        min_length=1, max_length=MAX_PLACES,
        description="shares of the pool for places 1, 2, ...; no more places than seats")
    starts_at: AwareDatetime = Field(description="the start, in the future, with its offset")
    bot_level: BotLevel = Field(default=DEFAULT_BOT_LEVEL,
                                description="who plays the house bots filling empty seats")

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not name.strip():
            raise ValueError("a name is not blank")
        return name.strip()

    @field_validator("seats")
    @classmethod
    def _fours(cls, seats: int) -> int:
        if seats % 4:
            raise ValueError("seats come in fours")
        return seats

    @model_validator(mode="after")
    def _places(self) -> CreateTournamentIn:
        if len(self.prize_shares) > self.seats:
            raise ValueError("the prize table has more places than the event has seats")
        return self


class PoolOut(BaseModel):
    """The pool so far (`prizes.pool` of the players registered now)."""

    fees: int
    rake: int
    guarantee: int = Field(description="the house's top-up to the guarantee")
    total: int = Field(description="paid out as prizes: fees - rake + guarantee")


class TournamentOut(BaseModel):
    id: int
    name: str
    variant: str
    options: dict[str, Any]
    stake: int
    timers: dict[str, float]
    fee: int
    rake_bp: int
    guarantee: int
    seats: int
    rounds: int
    length: RoomLength
    final_table: bool
    prize_shares: list[int]
    starts_at: Utc
    status: Literal["open", "running", "finished", "cancelled"]
    commitment: str = Field(description="SHA-256 (hex) of the seed, shown from the start")
    seed: str | None = Field(description="the seed (hex), once round 1 is drawn")
    bot_level: str
    created_at: Utc | None
    players: int = Field(description="the players registered (whose fee the event holds)")
    pool: PoolOut
    prizes: list[int] = Field(description="each place's prize at the pool so far, every place "
                                          "of the table taken")
    registered: bool | None = Field(description="the caller is registered (null: signed out)")


class RegistrationOut(BaseModel):
    tournament: TournamentOut
    balance: int = Field(description="the caller's silver after the fee or the refund")


class CancelOut(BaseModel):
    tournament: TournamentOut
    refunded: int = Field(description="players refunded by this call (0 when cancelled before)")


def _quota(request: Request) -> MemoryQuota:
    quota: MemoryQuota | None = getattr(request.app.state, "tournament_quota", None)
    if quota is None:
        quota = request.app.state.tournament_quota = MemoryQuota(CHANGES_PER_HOUR, 3600)
    return quota


def _limited(request: Request, account: Account) -> None:
    """Count a registration change, refused past the account's hourly bar."""
    quota = _quota(request)
    wait = quota.retry_after(str(account.id), 1)
    if wait is not None:
        raise ApiError("rate_limited", f"at most {CHANGES_PER_HOUR} registration changes an hour",
                       {"retry_after": wait}, headers={"Retry-After": str(wait)})
    quota.spend(str(account.id), 1)


async def optional_account(
    request: Request, session: SessionDep, settings: SettingsDep
) -> Account | None:
    """The caller, when a good bearer token of an account in good standing is sent; anyone
    else (no token, or one that no longer works) reads as signed out. Not declared as a
    security scheme: the route is public."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    try:
        return await account_for_token(session, token.strip(), settings)
    except ApiError:
        return None


def _refused(refused: TournamentRefused) -> ApiError:
    return ApiError(refused.code, refused.message, refused.details)


def tournament_out(t: Tournament, players: int, registered: bool | None) -> TournamentOut:
    shares = json.loads(t.prize_shares)
    pool = prizes.pool(t.fee, players, t.rake_bp, t.guarantee)
    table = prizes.prizes(pool.total, shares, range(len(shares)), ())
    return TournamentOut(
        id=t.id, name=t.name, variant=t.variant, options=json.loads(t.options), stake=t.stake,
        timers=json.loads(t.timers), fee=t.fee, rake_bp=t.rake_bp, guarantee=t.guarantee,
        seats=t.seats, rounds=t.rounds,
        length=RoomLength(unit=t.length_unit, count=t.length),  # type: ignore[arg-type]
        final_table=t.final_table, prize_shares=shares, starts_at=events.aware(t.starts_at),
        status=t.status,  # type: ignore[arg-type]
        commitment=t.commitment, seed=t.seed if t.seed_revealed else None,
        bot_level=t.bot_level, created_at=t.created_at, players=players,
        pool=PoolOut(fees=pool.fees, rake=pool.rake, guarantee=pool.guarantee, total=pool.total),
        prizes=[table[place] for place in range(len(shares))], registered=registered,
    )


async def _one(session: SessionDep, tournament_id: int, account: Account | None
               ) -> TournamentOut:
    async with session.begin():
        found = await session.get(Tournament, tournament_id, populate_existing=True)
        if found is None:
            raise ApiError("not_found", f"no tournament {tournament_id}")
        counted = await events.players(session, [tournament_id])
        registered = None
        if account is not None:
            entry = await events.entry_of(session, tournament_id, account.id)
            registered = entry is not None and entry.status in events.PAID
        return tournament_out(found, counted[tournament_id], registered)


@router.post("/admin/tournaments", status_code=201,
             responses=errors.responses("validation_error", "house_funds_low", *ADMIN_ERRORS))
async def create_tournament(
    body: CreateTournamentIn, admin: AdminAccount, session: SessionDep
) -> TournamentOut:
    """Create an open event (operators only). The server draws its seed and shows its
    commitment. Refused with nothing made: `validation_error` (a bad field, an unknown
    option, a start not in the future), `house_funds_low` (the house holds less than the
    guarantee now; details `needed`, `house`)."""
    options = house_rules(body.variant, body.options)
    if body.starts_at <= datetime.now(UTC):
        raise ApiError("validation_error", "the start must be in the future",
                       [{"loc": ["body", "starts_at"], "msg": "not in the future",
                         "type": "value_error"}])
    timers = Timers(**body.timers.model_dump()) if body.timers is not None else Timers()
    seed = secrets.token_bytes(32)
    made = Tournament(
        name=body.name, variant=body.variant, options=json.dumps(options), stake=body.stake,
        timers=json.dumps({"discard": timers.discard, "claim": timers.claim,
                           "decide": timers.decide, "ready": timers.ready}),
        fee=body.fee, rake_bp=body.rake_bp, guarantee=body.guarantee, seats=body.seats,
        rounds=body.rounds, length_unit=body.length.unit, length=body.length.count,
        final_table=body.final_table, prize_shares=json.dumps(body.prize_shares),
        starts_at=body.starts_at, status="open", seed=seed.hex(), seed_revealed=False,
        commitment=commitment(seed), bot_level=body.bot_level, created_by=admin.id,
    )
    try:
        made = await events.create(session, made)
    except TournamentRefused as refused:
        raise _refused(refused) from None
    async with session.begin():
        await audit.record(session, admin.id, "create_tournament", None,
                           {"tournament_id": made.id, "name": made.name, "fee": made.fee,
                            "guarantee": made.guarantee, "seats": made.seats})
    return await _one(session, made.id, None)


@router.get("/tournaments", responses=errors.responses("validation_error"))
async def list_tournaments(
    session: SessionDep,
    account: Annotated[Account | None, Depends(optional_account)],
    status: Annotated[Literal["upcoming", "running", "finished"], Query(
        description="upcoming (open, soonest first), running, or finished (over or "
                    "cancelled, latest first)")] = "upcoming",
    limit: Annotated[int, Query(ge=1, le=50)] = 20,
    offset: Offset = 0,
) -> list[TournamentOut]:
    """The events, by status (anyone; a caller sending their bearer token sees whether they
    are registered)."""
    async with session.begin():
        found = await events.listing(session, status, limit, offset)
        counted = await events.players(session, [t.id for t in found])
        mine = set() if account is None else await events.registered_for(
            session, account.id, [t.id for t in found])
        return [tournament_out(t, counted[t.id], None if account is None else t.id in mine)
                for t in found]


@router.get("/tournaments/{tournament_id}",
            responses=errors.responses("validation_error", "not_found"))
async def get_tournament(
    tournament_id: TournamentId, session: SessionDep,
    account: Annotated[Account | None, Depends(optional_account)],
) -> TournamentOut:
    """One event: its rules, players registered, pool so far, prize table and commitment."""
    return await _one(session, tournament_id, account)


REGISTER_ERRORS = ("validation_error", "not_found", "forbidden", "registration_closed",
                   "rate_limited", *AUTH_ERRORS)


@router.post("/tournaments/{tournament_id}/register", status_code=201, responses=errors.responses(
    *REGISTER_ERRORS, "tournament_full", "already_registered", "insufficient_balance"))
async def register_tournament(
    tournament_id: TournamentId, account: CurrentAccount, session: SessionDep, request: Request
) -> RegistrationOut:
    """Take a seat: the fee moves from the caller to the event in the same transaction.
    Refused with nothing moved: `registration_closed`, `tournament_full`,
    `already_registered`, `insufficient_balance`, `forbidden` (the house's accounts),
    `rate_limited`."""
    _players_only(account)
    _limited(request, account)
    try:
        await events.register(session, tournament_id, account.id, datetime.now(UTC))
    except TournamentRefused as refused:
        raise _refused(refused) from None
    return await _answer(session, tournament_id, account)


@router.delete("/tournaments/{tournament_id}/register",
               responses=errors.responses(*REGISTER_ERRORS, "not_registered"))
async def unregister_tournament(
    tournament_id: TournamentId, account: CurrentAccount, session: SessionDep, request: Request
) -> RegistrationOut:
    """Give the seat up before the start: the fee comes back in the same transaction.
    Refused with nothing moved: `registration_closed`, `not_registered`, `rate_limited`."""
    _players_only(account)
    _limited(request, account)
    try:
        await events.unregister(session, tournament_id, account.id, datetime.now(UTC))
    except TournamentRefused as refused:
        raise _refused(refused) from None
    return await _answer(session, tournament_id, account)


def _players_only(account: Account) -> None:
    if account.role == house.HOUSE_ROLE or house.is_bot_name(account.username):
        raise ApiError("forbidden", "the house's accounts do not enter tournaments")


async def _answer(session: SessionDep, tournament_id: int, account: Account) -> RegistrationOut:
    tournament = await _one(session, tournament_id, account)
    async with session.begin():
        now = await session.get(Account, account.id, populate_existing=True)
        assert now is not None
        return RegistrationOut(tournament=tournament, balance=now.balance)


@router.post("/admin/tournaments/{tournament_id}/cancel", responses=errors.responses(
    "validation_error", "not_found", "tournament_finished", *ADMIN_ERRORS))
async def cancel_tournament(
    tournament_id: TournamentId, admin: AdminAccount, session: SessionDep
) -> CancelOut:
    """Cancel an event that has not finished (operators only): every fee it holds goes back
    to its player and the event is cancelled, in one transaction. Cancelled before: the
    same answer, nothing moved (`refunded` 0). `tournament_finished`: its prizes are paid."""
    try:
        _, refunded = await events.cancel(session, tournament_id)
    except TournamentRefused as refused:
        raise _refused(refused) from None
    async with session.begin():
        await audit.record(session, admin.id, "cancel_tournament", None,
                           {"tournament_id": tournament_id, "refunded": refunded})
    return CancelOut(tournament=await _one(session, tournament_id, None), refunded=refunded)

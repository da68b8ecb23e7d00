"""One JSON error shape for every failure, with a stable code:

    {"error": {"code": "duplicate_username", "message": "...", "details": null}}

Codes: validation_error, unauthorized, bad_credentials, banned, forbidden, not_found,
method_not_allowed (405, with the `Allow` header: the path takes other methods),
duplicate_username, insufficient_balance, seat_taken, table_full, already_seated,
seated_elsewhere (details: `{"table_id": ...}`, the table the account sits at), wrong_table,
too_many_tables, idempotency_conflict, vote_open, no_vote, already_voted (a private
room's dissolve vote, app/api/rooms.py), room_open (再来一局 of a room still open), rate_limited, too_many_bots, too_large, busy,
table_unavailable, house_funds_low, no_bots_free, match_forming, not_ready, internal_error,
not_a_player, hand_not_ended, hand_voided, practice_open (POST /practice: the caller's
practice table is still open; details `table_id`, app/api/practice.py),
registration_closed, tournament_full, already_registered, not_registered,
tournament_finished (tournaments, app/api/tournaments.py).

The edge (docs/architecture.md, "The edge"), answered before the app reads the request:
`rate_limited` (429 with Retry-After and `details: {"retry_after": seconds}`): the client's
address or account sent more requests, or opened more WebSocket connections, than its bar
allows in the window (app/api/throttle.py; a refused `/ws` handshake gets this same HTTP
answer instead of the upgrade); the login endpoint answers it too for repeated failed
logins. `too_large` (413, `details: {"max_bytes": limit}`, the connection closed after
it): the request body is over `max_body_bytes` (app/api/body_limit.py).

The lobby's limits (app/api/lobby.py, app/api/house_bots.py): `too_many_tables` (409: the
account already has `max_open_tables` open tables with players at them), `too_many_bots`
(429 with Retry-After: `bot_seats_per_hour` bot seats called in the last hour),
`house_funds_low` (503: the house account cannot fund the bots to the table's minimum; an
operator must fund it) and `no_bots_free` (503 with Retry-After: every bot of the house's
pool is seated).
Replays (app/api/replay_cache.py): `rate_limited` (429 with Retry-After and
`details: {"retry_after": seconds}`): the account had `replay_builds_per_account` replays
built on this node in the window (a kept replay is still served); `busy` (503, Retry-After:
1): the node has `replay_builds_waiting` replays to build already.
Public replays (app/api/replay_share.py): `not_a_player` (403): only a player of the hand
may make its replay public or private; `hand_not_ended` (409): the hand is still in play
(or its result not stored yet); `hand_voided` (409): a voided hand has no result to show.
Quick match (app/api/quickmatch.py): `match_forming` (409): a table is being formed for the
player right now, so they can neither leave the queue nor move to another; a moment later
they are seated (leave the table instead) or back in the queue.
`idempotency_conflict` (409): an admin adjustment's Idempotency-Key was used before for
another adjustment (app/api/admin.py).
`busy` (503 with Retry-After and `details: {"retry_after": seconds}`): this node sheds new
work: a new table or room, a sit or a quick-match join while its tables would get slower
(app/ops/pressure.py); another node of the cluster may take it, and this one takes it again
by itself once it is calm.
`table_unavailable` (503 with Retry-After): the table's node did not answer, or the table is
moving to another node (a failover); a private room's answers say so too while its table
moves (app/api/rooms.py).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.ops import observe
from app.rooms.service import RoomRefused
from app.store.db import NulCharacter

log = logging.getLogger(__name__)

STATUS = {
    "validation_error": 422,
    "unauthorized": 401,
    "bad_credentials": 401,
    "banned": 403,
    "forbidden": 403,
    "not_a_player": 403,  # a hand's replay is made public or private by its players only
    "not_found": 404,
    "method_not_allowed": 405,
    "duplicate_username": 409,
    "seat_taken": 409,
    "table_full": 409,
    "already_seated": 409,
    "seated_elsewhere": 409,  # one table at a time: details name the table
    "wrong_table": 409,
    "insufficient_balance": 409,
    "too_many_tables": 409,
    "idempotency_conflict": 409,
    "vote_open": 409,  # a private room's dissolve vote is running already
    "no_vote": 409,  # no dissolve vote is running
    "room_open": 409,  # 再来一局 asked of a room whose session still runs
    "already_voted": 409,
    "hand_not_ended": 409,  # a replay shared before its hand ended and was stored
    "hand_voided": 409,  # a voided hand's replay is never public
    "match_forming": 409,  # quick match: a table is being formed for the player right now
    "practice_open": 409,  # POST /practice: the caller's practice table is still open
    "registration_closed": 409,  # a tournament not open, or its start come (app/api/tournaments.py)
    "tournament_full": 409,  # every seat of the tournament is taken
    "already_registered": 409,  # registering for a tournament twice
    "not_registered": 409,  # unregistering from a tournament one is not registered for
    "tournament_finished": 409,  # cancelling a tournament whose prizes are paid
    "in_tournament": 409,  # sitting elsewhere while one's tournament runs (it seats the player)
    "rate_limited": 429,
    "too_many_bots": 429,
    "too_large": 413,  # the request body is over max_body_bytes (app/api/body_limit.py)
    "busy": 503,
    "table_unavailable": 503,  # an admin command whose table's node did not answer (cluster)
    "house_funds_low": 503,  # the house account cannot fund the bots a table needs
    "no_bots_free": 503,  # every bot of the house's pool is seated
    "not_ready": 503,  # GET /ready: the database or Redis is unreachable (details: each check)
    "internal_error": 500,
}


# the codes of the refusals Starlette and FastAPI raise themselves (as HTTPException)
HTTP_CODES = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed"}


class ErrorBody(BaseModel):
    code: str
    message: str
    details: Any = None


class ErrorResponse(BaseModel):
    """The body of every error response."""

    error: ErrorBody


class ApiError(Exception):
    """Raise anywhere in a request: becomes the error shape with its HTTP status."""

    def __init__(self, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers


RETRY_SOON = {"table_unavailable": "2"}
"""Codes that pass by themselves, with the Retry-After they carry unless the refusal set one:
a table's node did not answer or the table is moving to another (a failover takes 1.4-1.7 s,
docs/cluster.md)."""


def error_response(code: str, message: str, details: Any = None, headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorResponse(error=ErrorBody(code=code, message=message, details=details))
    if not (headers and "Retry-After" in headers):
        if isinstance(details, dict) and "retry_after" in details:  # the refusal's own wait
            headers = {**(headers or {}), "Retry-After": str(details["retry_after"])}
        elif code in RETRY_SOON:
            headers = {**(headers or {}), "Retry-After": RETRY_SOON[code]}
    return JSONResponse(body.model_dump(), status_code=STATUS.get(code, 400), headers=headers)


def responses(*codes: str) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` for the error codes an endpoint may answer with."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        status = STATUS[code]
        if status in out:  # several codes share a status: list them all
            out[status]["description"] += f", {code}"
        else:
            out[status] = {"model": ErrorResponse, "description": code}
    return out


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.code, exc.message, exc.details, exc.headers)

    @app.exception_handler(RoomRefused)
    async def _room_refused(_: Request, exc: RoomRefused) -> JSONResponse:
        """A private room's refusal (app/rooms/service.py), `table_unavailable` among them
        while the room's table moves to another node."""
        return error_response(exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")}
            for e in exc.errors()
        ]
        return error_response("validation_error", "the request is not valid", details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Starlette's and FastAPI's own refusals (no route, a method the path does not
        take, a body that cannot be parsed), in the error shape; their headers (`Allow`)
        are kept."""
        code = HTTP_CODES.get(
            exc.status_code, "validation_error" if exc.status_code < 500 else "internal_error"
        )
        return error_response(
            code, str(exc.detail), headers=dict(exc.headers) if exc.headers else None
        )

    @app.exception_handler(NulCharacter)
    async def _nul(_: Request, exc: NulCharacter) -> JSONResponse:
        return error_response("validation_error", str(exc))

    @app.exception_handler(OperationalError)
    async def _database(_: Request, exc: OperationalError) -> JSONResponse:
        if "database is locked" in str(exc.orig):  # SQLite: a writer held the file too long
            log.warning("the database stayed locked past its busy timeout: %s", exc.orig)
            return error_response(
                "busy", "the server is busy; try again", headers={"Retry-After": "1"}
            )
        log.exception("database error", exc_info=exc)
        return error_response("internal_error", "something went wrong on our side")

    @app.exception_handler(PoolTimeout)
    async def _pool_exhausted(_: Request, exc: PoolTimeout) -> JSONResponse:
        log.warning("no database connection came free in time: %s", exc)
        return error_response("busy", "the server is busy; try again", headers={"Retry-After": "1"})

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return error_response(  # sent past app/ops/observe.py, which names it otherwise
            "internal_error", "something went wrong on our side", headers=observe.id_header()
        )

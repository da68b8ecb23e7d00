"""The guided first hand (新手教学, REST): `POST /practice` makes a practice table of the
caller's own, with three house bots, dealt from the fixed friendly wall of
`app.rules.tutorial` (docs/practice.md).

Rules:
- a practice table plays 丽水 at stake 0: no silver moves for its hand (no settlement, no
  penalty), no rank or leaderboard changes (`app.tables.settlement.results`: a hand at
  stake 0 stores its record only), and it is not listed in the lobby (the lobby and the
  rooms refuse stake 0, so stake 0 means practice);
- the caller sits at seat 0 and deals; house bots (the lobby's pool and lock) take seats
  1-3; the table deals that one hand and no other (the learner then leaves: the idle
  closer ends it);
- refused: `practice_open` (409, details `table_id`) while the caller sits at a live
  practice table, `seated_elsewhere` while at any other table, `rate_limited` (429, with
  Retry-After) past `PRACTICE_PER_HOUR` tables an hour per account on this node,
  `house_funds_low` / `no_bots_free` / `busy` as the lobby's bot fill; a refusal makes
  no table.
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request

from app.api import errors
from app.api.deps import SessionDep, SettingsDep
from app.api.errors import ApiError
from app.api.house_bots import filling_lock, house_bots
from app.api.lobby import SeatOut, not_busy, registry_of, table_out
from app.api.quickmatch import seated_at
from app.api.ratelimit import MemoryQuota
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.rules.context import TableContext
from app.rules.tutorial import LEARNER, VARIANT, tutorial_preset
from app.tables.errors import TableError
from app.tables.timers import Timers

router = APIRouter(tags=["lobby"])

PRACTICE_PER_HOUR = 6  # practice tables an account may make in an hour (on this node)
PRACTICE_STAKE = 0
# a learner reads the guide's bubbles: longer turns than the house's (two timeouts are 托管)
PRACTICE_TIMERS = Timers(discard=120.0, claim=60.0, decide=8.0, ready=60.0)

PRACTICE_ERRORS = (
    "practice_open", "seated_elsewhere", "rate_limited", "house_funds_low", "no_bots_free",
    "busy", *AUTH_ERRORS,
)


def _quota(request: Request) -> MemoryQuota:
    quota: MemoryQuota | None = getattr(request.app.state, "practice_quota", None)
    if quota is None:
        quota = request.app.state.practice_quota = MemoryQuota(PRACTICE_PER_HOUR, 3600)
    return quota


@router.post("/practice", status_code=201, responses=errors.responses(*PRACTICE_ERRORS))
async def start_practice(
    account: CurrentAccount, request: Request, session: SessionDep, settings: SettingsDep
) -> SeatOut:
    """新手教学: a practice table of the caller's own (丽水, stake 0, three house bots), its
    hand dealt from the guided wall; the caller sits at seat 0 and deals. No silver, rank
    or leaderboard moves. Refused: `practice_open` (details `table_id`: the caller's live
    practice table), `seated_elsewhere`, `rate_limited` (Retry-After), `house_funds_low`,
    `no_bots_free`, `busy`."""
    registry = registry_of(request)
    caller = account.id
    not_busy(registry, "practice")
    elsewhere = await seated_at(registry, caller)
    if elsewhere is not None:
        live = registry.get(elsewhere)
        summary = None if live is not None else await registry.network.tables.summary(elsewhere)
        stake = live.stake if live is not None else (summary or {}).get("stake")
        if stake == PRACTICE_STAKE:  # on this node or another
            raise ApiError("practice_open", "your practice table is still open",
                           {"table_id": elsewhere})
        raise ApiError(
            "seated_elsewhere", f"you already sit at table {elsewhere}", {"table_id": elsewhere}
        )
    wait = _quota(request).retry_after(str(caller), 1)
    if wait is not None:
        raise ApiError(
            "rate_limited", f"at most {PRACTICE_PER_HOUR} practice tables an hour",
            {"retry_after": wait}, headers={"Retry-After": str(wait)},
        )
    table_id = secrets.token_hex(6)
    async with filling_lock(registry):  # the lobby's lock: a bot for one table
        bots = await house_bots(session, settings, registry, 3, 0, table_id)
        live = registry.create(
            VARIANT, PRACTICE_STAKE, timers=PRACTICE_TIMERS, preset=tutorial_preset(),
            ctx=TableContext(dealer=LEARNER), table_id=table_id, one_hand=True,
        )
        try:
            await registry.take_seat(table_id, caller, LEARNER)
            for seat, bot in enumerate(bots, start=1):
                await registry.take_seat(table_id, bot, seat, bot=True)
        except TableError as refused:
            await registry.dissolve(table_id)
            raise ApiError(refused.code, refused.message, refused.details) from None
    _quota(request).spend(str(caller), 1)
    return SeatOut(table=table_out(live), seat=LEARNER)

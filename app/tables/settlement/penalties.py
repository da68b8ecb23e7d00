"""Disconnect penalties (RULES.md 1): a seat still away (断线, played by 托管) when its hand
ends leaves the table and counts one disconnect on its account; the third disconnect in a
rolling 24 hours (and each one after it inside the window) costs 2 x that hand's base,
divided among the other seats of that hand as `split` divides points.

"That hand's base" is the base the variant's escape rule uses for that seat (RULES.md 1:
"the base in force for the escaper in that hand"), read from the rules' own values:

- 丽水 and 湖州: the hand's base (`base(ctx)`: 丽水 3/5/7/9 by the dealer's streak, 湖州 the
  lowest seat's level base, from the seated accounts' stored 积分 the table put in the
  hand's context when it was dealt, as the hand's escape uses it);
- 福州: the table's base, plus the streak c for a dealer (as its escape counts it);
- 温州: the 买底 / 顶底 amount the seat is party to + 底分 2k (its escape amount / 10);
- 上海: the 底注 (3 花) **[decided: 上海 counts 花, not a base; the 底注 is the part every
  hand pays]**.

Money moves through `ledger.penalize` (key `disconnect:{hand_id}:{account_id}`), so a hand
settled twice charges once. Times come from the caller's wall clock (injectable).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.rules.state import HandState
from app.rules.variants.base import Ruleset
from app.rules.variants.fuzhou import Fuzhou
from app.rules.variants.huzhou import Huzhou
from app.rules.variants.lishui import Lishui
from app.rules.variants.shanghai import Shanghai
from app.rules.variants.wenzhou import Wenzhou
from app.store import disconnects, ledger
from app.tables.settlement.record import HandRecordData

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DisconnectPolicy:
    """The disconnect rule's numbers (RULES.md 1; `enabled` is the rule's option)."""

    enabled: bool = True
    limit: int = 3  # the third disconnect in the window costs the penalty
    window: timedelta = disconnects.WINDOW
    multiple: int = 2  # x that hand's base


DEFAULT_POLICY = DisconnectPolicy()


@dataclass(frozen=True, slots=True)
class DisconnectOutcome:
    """One away seat at a hand's end: its disconnects in the window (this one included)
    and the silver it paid (0: no penalty)."""

    seat: int
    account_id: int
    count: int
    penalty: int


def hand_base(ruleset: Ruleset, state: HandState, seat: int) -> int:
    """The base in force for `seat` in the hand of `state`, in points (see the module)."""
    ctx = state.ctx
    if isinstance(ruleset, Lishui | Huzhou):
        return ruleset.base(ctx)
    if isinstance(ruleset, Fuzhou):
        o = ruleset.options
        streak = ctx.streak if seat == ctx.dealer and o.escape_dealer_streak else 0
        return int(o.base + streak)
    if isinstance(ruleset, Wenzhou):
        return ruleset.escape_amount(state, seat) // ruleset.options.escape_multiple
    if isinstance(ruleset, Shanghai):
        return int(ruleset.options.base_flowers)
    raise ValueError(f"no disconnect base for variant {ruleset.name!r}")


def disconnect_points(
    ruleset: Ruleset, state: HandState, seat: int, policy: DisconnectPolicy = DEFAULT_POLICY
) -> int:
    """The penalty in points for `seat`'s disconnect in this hand: 2 x its base."""
    return policy.multiple * hand_base(ruleset, state, seat)


async def settle_disconnects(
    session: AsyncSession,
    ruleset: Ruleset,
    record: HandRecordData,
    stake: int,
    at: datetime,
    policy: DisconnectPolicy = DEFAULT_POLICY,
) -> list[DisconnectOutcome]:
    """Record a disconnect for every seat away at the end of `record`'s hand (not the
    escaper: its escape is its penalty) and charge the ones over the limit. Idempotent:
    a second call records and charges nothing new. `session` must have no transaction
    open."""
    state = record.state
    if record.voided or state is None:
        return []
    outcomes = []
    for seat in record.away:
        account = record.seats[seat]
        if account is None or state.escaped == seat:
            continue
        async with session.begin():
            await disconnects.record(session, account, record.hand_id, record.variant, at)
            count = await disconnects.count_within(session, account, at, policy.window)
        silver = 0
        if policy.enabled and count >= policy.limit:
            silver = disconnect_points(ruleset, state, seat, policy) * stake
            others = [
                a for s in range(seat + 1, seat + 4) if (a := record.seats[s % 4]) is not None
            ]
            if silver > 0 and others:
                rows = await ledger.penalize(
                    session, account, others, silver, "disconnect_penalty",
                    f"disconnect:{record.hand_id}:{account}", record.hand_id,
                )
                silver = -rows[0].delta
                async with session.begin():
                    await disconnects.mark_penalty(session, account, record.hand_id, silver)
        outcomes.append(DisconnectOutcome(seat, account, count, silver))
    return outcomes

"""Storing a hand's result: its record, its silver and stats, and the disconnects of seats
still away at its end.

`store_hand` is idempotent, so it can be retried until the database has the hand: the
record and the settlement are written in one transaction (`ledger.settle_hands`, keyed by
the hand id), and the disconnects are keyed by hand and account. A voided hand, or one
without four seated accounts, stores only its record. It answers what each seat's balance
moved by (`Silver`), as the ledger has it: that, not net x stake, is what the table shows;
and each seat's name and silver afterwards (`Profile`), for the table and the leaderboards.
`store_hands` stores several hands at once, most in one transaction (a burst of endings).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.protocol import logged_action, to_code
from app.rules.events import SeatPenalty
from app.rules.variants import get_ruleset
from app.rules.variants.base import Ruleset
from app.store import house, ledger, ranks
from app.store.models import Account, HandRecord, LedgerEntry, VariantStats
from app.tables.settlement.penalties import DisconnectPolicy, settle_disconnects
from app.tables.settlement.record import HandRecordData, Paid, Silver

log = logging.getLogger(__name__)


NOTHING_MOVED: Silver = (0, 0, 0, 0)
# the longest stretch a batch makes up its hands' rows (the action logs as JSON, ~0.5 ms a
# hand) before it lets the event loop run other tables: a step of the loop per hand made
# each batch wait dozens of loop passes on a busy node (seconds, in a burst)
SLICE_SECONDS = 0.005


@dataclass(frozen=True, slots=True)
class Profile:
    """A seated account as the store has it right after its hand: what ``table_state``
    shows of it (name, silver) and what the leaderboards rank it by."""

    name: str
    balance: int
    points: int  # 积分 in the hand's variant, as stored
    ranked: bool  # on the leaderboards (`house.ranked`)


@dataclass(frozen=True, slots=True)
class Stored:
    """A hand stored: what it paid (each seat's silver with the settlement, and the
    disconnect penalties charged with it apart, RULES.md 1), and each seated account's
    profile afterwards (penalties included)."""

    paid: Paid
    profiles: dict[int, Profile]


@dataclass(frozen=True, slots=True)
class Job:
    """A hand to store: `ended_at` places its disconnects in the 24-hour window."""

    record: HandRecordData
    stake: int
    ended_at: datetime


async def store_hand(
    sessions: async_sessionmaker[AsyncSession],
    record: HandRecordData,
    stake: int,
    ended_at: datetime,
    policy: DisconnectPolicy,
) -> Stored:
    """Store `record`'s hand (结算), or raise; a second call after a success changes
    nothing and answers the same."""
    (outcome,) = await store_hands(sessions, [Job(record, stake, ended_at)], policy)
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


async def store_hands(
    sessions: async_sessionmaker[AsyncSession], jobs: Sequence[Job], policy: DisconnectPolicy
) -> list[Stored | Exception]:
    """Store several hands, each as `store_hand` would, and answer each one's outcome in
    its place: Stored, or what failed it. The hands settled without a seat away at their
    end go in one transaction (`ledger.settle_hands`); if that fails, each is tried alone,
    so one bad hand costs only itself. A hand with seats away (their disconnects are
    transactions of their own) and a hand that moves no silver are stored alone."""
    outcomes: list[Stored | Exception | None] = [None] * len(jobs)
    hands: dict[int, ledger.HandToSettle] = {}  # the rows of each hand that moves silver
    slice_ends = time.perf_counter() + SLICE_SECONDS
    for i, job in enumerate(jobs):
        if _settles(job.record) and job.stake > 0:  # stake 0: practice, its record only
            hands[i] = _to_settle(job.record, job.stake)
        if time.perf_counter() > slice_ends:  # other tables' steps between
            await asyncio.sleep(0)
            slice_ends = time.perf_counter() + SLICE_SECONDS
    batch = [i for i in hands if not jobs[i].record.away]
    if len(batch) == 1:
        batch = []
    alone = sorted(set(range(len(jobs))) - set(batch))
    moved: dict[int, Silver] = {}
    penalized: dict[int, tuple[SeatPenalty, ...]] = {}
    profiles: dict[tuple[int, str], Profile] = {}
    if batch:
        wanted = {(a, jobs[i].record.variant) for i in batch for a in jobs[i].record.seats
                  if a is not None}
        try:
            async with sessions() as session:
                async def read() -> None:  # in the batch's transaction: no round trips of its own
                    profiles.update(await _read_profiles(session, wanted))

                settled = await ledger.settle_hands(session, [hands[i] for i in batch], then=read)
            for i, entries in zip(batch, settled, strict=True):
                moved[i] = _moved_by(jobs[i], entries)
        except Exception:
            log.warning("a batch of %d hands failed; storing each alone", len(batch),
                        exc_info=True)
            alone = sorted(alone + batch)
            profiles.clear()
    for i in alone:
        try:
            moved[i], penalized[i] = await _store_alone(sessions, jobs[i], hands.get(i), policy)
        except Exception as error:  # noqa: BLE001 - that hand's outcome: its caller retries
            outcomes[i] = error
    if alone or not profiles:  # read after the last hand stored (its penalties included)
        try:
            profiles = await read_profiles(sessions, {
                (a, jobs[i].record.variant) for i in moved for a in jobs[i].record.seats
                if a is not None
            })
        except Exception as error:  # noqa: BLE001 - stored, but unread: the caller tries again, a no-op
            return [error if outcome is None else outcome for outcome in outcomes]
    for i, silver in moved.items():
        record = jobs[i].record
        outcomes[i] = Stored(Paid(silver, penalized.get(i, ())), {
            a: profiles[a, record.variant]
            for a in record.seats if a is not None and (a, record.variant) in profiles
        })
    answered = [outcome for outcome in outcomes if outcome is not None]
    assert len(answered) == len(jobs)  # each hand stored (moved) or failed
    return answered


def _settles(record: HandRecordData) -> bool:
    """The hand moves silver: played to its end by four seated accounts."""
    seats = [a for a in record.seats if a is not None]
    return not record.voided and record.state is not None and record.settlement is not None \
        and len(seats) == 4


def _to_settle(record: HandRecordData, stake: int) -> ledger.HandToSettle:
    assert record.state is not None and record.settlement is not None
    return ledger.HandToSettle(
        record.hand_id,
        [a for a in record.seats if a is not None],
        record.settlement,
        stake,
        record.variant,
        ranks.results_from(record.state, disconnected=record.away),
        hand_record(record),
    )


def _moved_by(job: Job, entries: Sequence[LedgerEntry]) -> Silver:
    seats = [a for a in job.record.seats if a is not None]
    moved = dict.fromkeys(seats, 0)
    for entry in entries:
        moved[entry.account_id] += entry.delta
    a, b, c, d = (moved[account] for account in seats)
    return a, b, c, d


async def _store_alone(
    sessions: async_sessionmaker[AsyncSession],
    job: Job,
    hand: ledger.HandToSettle | None,
    policy: DisconnectPolicy,
) -> tuple[Silver, tuple[SeatPenalty, ...]]:
    record = job.record
    penalties: tuple[SeatPenalty, ...] = ()
    async with sessions() as session:
        if hand is None:  # moves no silver: its record only
            async with session.begin():
                if await session.get(HandRecord, record.hand_id) is None:
                    session.add(hand_record(record))
            return NOTHING_MOVED, penalties
        (entries,) = await ledger.settle_hands(session, [hand])
        if record.away:
            outcomes = await settle_disconnects(
                session, _ruleset(record), record, job.stake, job.ended_at, policy
            )
            penalties = tuple(SeatPenalty(o.seat, "disconnect_penalty", o.penalty)
                              for o in outcomes if o.penalty > 0)
    return _moved_by(job, entries), penalties


async def read_profiles(
    sessions: async_sessionmaker[AsyncSession], wanted: Collection[tuple[int, str]]
) -> dict[tuple[int, str], Profile]:
    """(account, variant) -> the account's profile with its points in that variant, for
    each pair `wanted` whose account exists, in one read."""
    if not wanted:
        return {}
    async with sessions() as session, session.begin():
        return await _read_profiles(session, wanted)


async def _read_profiles(
    session: AsyncSession, wanted: Collection[tuple[int, str]]
) -> dict[tuple[int, str], Profile]:
    """`read_profiles` in `session`'s transaction."""
    if not wanted:
        return {}
    accounts = sorted({a for a, _ in wanted})
    variants = sorted({v for _, v in wanted})
    rows = (await session.execute(  # one statement: a row per account and variant played
        select(Account.id, Account.username, Account.balance, Account.banned, Account.role,
               VariantStats.variant, VariantStats.points)
        .outerjoin(VariantStats, and_(VariantStats.account_id == Account.id,
                                      VariantStats.variant.in_(variants)))
        .where(Account.id.in_(accounts))
    )).all()
    found = {row.id: row for row in rows}
    points = {(row.id, row.variant): row.points for row in rows if row.variant is not None}
    return {
        (a, variant): Profile(
            found[a].username, found[a].balance, points.get((a, variant), 0),
            house.ranked(found[a].username, found[a].role, found[a].banned),
        )
        for a, variant in wanted if a in found
    }


def _ruleset(record: HandRecordData) -> Ruleset:
    """The rules the hand was played by: its variant, with a private room's options."""
    ruleset = get_ruleset(record.variant)
    return ruleset if record.options is None else replace(ruleset, options=record.options)


def hand_record(record: HandRecordData) -> HandRecord:
    """The stored form of a hand: the action log as wire actions with their seats."""
    result: dict[str, object] = {}
    if record.settlement is not None and record.state is not None:
        result = {
            "outcome": record.state.outcome,
            "net": record.settlement.net(),
        }
    if record.reseat is not None:
        result["reseat"] = {"seed": record.reseat.seed, "order": list(record.reseat.order)}
    if record.round_end:
        result["round_end"] = True  # it ended a 圈 (a session of 圈 counts them)
    if record.session_end:
        result["session_end"] = True  # it ended a 版 (a private room counts them)
    preset = None
    if record.preset is not None:
        preset = json.dumps({
            "wall": [to_code(t) for t in record.preset.wall],
            "dice": list(record.preset.dice),
            "wild_dice": list(record.preset.wild_dice),
        })
    ctx = record.ctx
    return HandRecord(
        id=record.hand_id,
        table_id=record.table_id,
        variant=record.variant,
        seed=record.seed.hex(),
        seats=json.dumps(list(record.seats)),
        ctx=json.dumps({
            "dealer": ctx.dealer,
            "streak": ctx.streak,
            "seat_points": list(ctx.seat_points),
            "draw_bonus": ctx.draw_bonus,
        }),
        preset=preset,
        actions="[" + ",".join(logged_action(a) for a in record.actions) + "]",
        result=json.dumps(result),
        voided=record.voided,
        options=None if record.options is None else json.dumps(asdict(record.options)),
    )

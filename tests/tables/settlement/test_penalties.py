"""Disconnects and their penalty (RULES.md 1), on every backend: a seat still away when its
hand ends counts a disconnect; the third in a rolling 24 hours costs 2 x that hand's base,
shared by the other seats; the window runs on an injected wall clock."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.rules.actions import Decide, Escape
from app.rules.context import TableContext
from app.rules.events import SeatPenalty
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.selfplay import bot_factory, play_hand
from app.rules.state import HandState
from app.rules.variants import VARIANTS, get_ruleset
from app.store import disconnects
from app.store.db import Database
from app.store.models import Account, LedgerEntry
from app.store.ranks import stats_of
from app.tables.registry import TableRegistry
from app.tables.settlement.penalties import (
    DisconnectPolicy,
    disconnect_points,
    hand_base,
    settle_disconnects,
)
from app.tables.settlement.record import HandRecordData
from tests.funded import funded_accounts

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
STAKE = 10
LISHUI = get_ruleset("lishui")


async def _accounts(db: Database, n: int = 4, balance: int = 10000) -> list[int]:
    return await funded_accounts(db, n, "d", balance)


async def _balances(db: Database, ids: Sequence[int]) -> list[int]:
    async with db.sessions() as s:
        rows = dict((await s.execute(select(Account.id, Account.balance))).all())
    return [rows[i] for i in ids]


async def _books_balance(db: Database) -> None:
    async with db.sessions() as s:
        sums = dict((await s.execute(
            select(LedgerEntry.account_id, func.sum(LedgerEntry.delta))
            .group_by(LedgerEntry.account_id)
        )).all())
        for account_id, balance in (await s.execute(select(Account.id, Account.balance))).all():
            assert balance == sums.get(account_id, 0)


def _finished(seed: int, ctx: TableContext | None = None) -> HandState:
    return play_hand(LISHUI, seed, ctx or TableContext(), bot_factory("greedy"),
                     check=False).state


def _record(hand_id: str, seats: Sequence[int], state: HandState, away: tuple[int, ...],
            table_id: str = "t") -> HandRecordData:
    return HandRecordData(
        table_id=table_id, hand_id=hand_id, variant=state.ruleset.name,
        seed=bytes(8), ctx=state.ctx, seats=tuple(seats), actions=[], events=[],
        settlement=state.settlement, state=state, away=away,
    )


async def _settle(db: Database, record: HandRecordData, at: datetime) -> list[int]:
    async with db.sessions() as s:
        outcomes = await settle_disconnects(s, LISHUI, record, STAKE, at)
    return [o.penalty for o in outcomes]


# --- the base of a hand --------------------------------------------------------------------


def test_the_base_is_the_one_the_escape_rule_uses_for_that_seat() -> None:
    lishui = _finished(1, TableContext(dealer=0, streak=1))
    assert hand_base(LISHUI, lishui, 2) == 5  # 牢庄: 3, 5, 7, 9
    assert hand_base(LISHUI, replace(lishui, ctx=TableContext(streak=9)), 2) == 9
    fuzhou = get_ruleset("fuzhou")
    state = play_hand(fuzhou, 3, TableContext(dealer=1, streak=2), bot_factory("greedy"),
                      check=False).state
    assert hand_base(fuzhou, state, 1) == 1 + 2  # the dealer's base counts its streak c
    assert hand_base(fuzhou, state, 0) == 1
    shanghai = get_ruleset("shanghai")
    state = play_hand(shanghai, 3, TableContext(), bot_factory("greedy"), check=False).state
    assert hand_base(shanghai, state, 0) == 3  # the 底注
    huzhou = get_ruleset("huzhou")
    state = play_hand(huzhou, 3, TableContext(), bot_factory("greedy"), check=False).state
    assert hand_base(huzhou, state, 0) == huzhou.base(state.ctx)  # type: ignore[attr-defined]
    # the seats' 积分 the table put in the hand's context: 局长s play on 50, a 科员 makes 2
    masters = replace(state, ctx=TableContext(seat_points=(5000, 5000, 5000, 5000)))
    assert hand_base(huzhou, masters, 0) == 50
    assert disconnect_points(huzhou, masters, 0) == 100
    newcomer = replace(state, ctx=TableContext(seat_points=(5000, 5000, 5000, 0)))
    assert hand_base(huzhou, newcomer, 0) == 2


def test_the_wenzhou_base_includes_the_buy_in_the_seat_is_party_to() -> None:
    wenzhou = get_ruleset("wenzhou")
    state, _ = new_hand(wenzhou, 4, TableContext(dealer=0, streak=1))  # k = 2
    assert hand_base(wenzhou, state, 2) == 4  # 底分 2k
    # the dealer buys (买底 2k = 4); nobody counters
    while state.phase == "decide":
        seat = pending_seats(state)[0]
        choice = "buy" if seat == 0 else "decline"
        assert Decide(seat, choice) in legal_actions(state, seat)
        state, _ = step(state, Decide(seat, choice))
    assert hand_base(wenzhou, state, 2) == 4 + 4


# --- counting and charging -----------------------------------------------------------------


async def test_the_third_disconnect_in_24_hours_costs_twice_the_base(db: Database) -> None:
    seats = await _accounts(db)
    away = seats[2]
    state = _finished(1)  # a dealer's first hand: base 3
    assert await _settle(db, _record("h1", seats, state, (2,)), T0) == [0]
    assert await _settle(db, _record("h2", seats, state, (2,)), T0 + timedelta(hours=5)) == [0]
    assert await _balances(db, seats) == [10000] * 4
    third = _record("h3", seats, state, (2,))
    assert await _settle(db, third, T0 + timedelta(hours=23)) == [2 * 3 * STAKE]
    # 60 silver shared by the other three in turn order after the payer: 20 each
    assert await _balances(db, seats) == [10020, 10020, 9940, 10020]
    # the same hand again changes nothing
    assert await _settle(db, third, T0 + timedelta(hours=23)) == [60]
    assert await _balances(db, seats) == [10020, 10020, 9940, 10020]
    async with db.sessions() as s:
        rows = await disconnects.history(s, away)
        reasons = (await s.execute(
            select(LedgerEntry.reason).where(LedgerEntry.hand_id == "h3"))).scalars().all()
    assert [r.hand_id for r in rows] == ["h1", "h2", "h3"]
    assert [r.penalty for r in rows] == [0, 0, 60]
    assert set(reasons) == {"disconnect_penalty"}
    await _books_balance(db)


async def test_the_window_rolls(db: Database) -> None:
    seats = await _accounts(db)
    state = _finished(1)
    hours = [0, 10, 25, 30]  # at 25 h the first has left the window; at 30 h three are in it
    penalties = []
    for n, h in enumerate(hours):
        record = _record(f"w{n}", seats, state, (1,))
        penalties += await _settle(db, record, T0 + timedelta(hours=h))
    assert penalties == [0, 0, 0, 60]
    async with db.sessions() as s:
        assert await disconnects.count_within(s, seats[1], T0 + timedelta(hours=30)) == 3
        assert await disconnects.count_within(s, seats[1], T0 + timedelta(hours=60)) == 0


async def test_every_away_seat_counts_and_the_escaper_is_not_charged_twice(
    db: Database,
) -> None:
    seats = await _accounts(db)
    state, _ = new_hand(LISHUI, 5, TableContext())
    state, _ = step(state, Escape(3))
    for n in range(3):
        record = _record(f"e{n}", seats, state, (0, 3))
        assert await _settle(db, record, T0 + timedelta(hours=n)) == ([60] if n == 2 else [0])
    async with db.sessions() as s:
        assert await disconnects.history(s, seats[3]) == []  # the escape is its own penalty
        assert len(await disconnects.history(s, seats[0])) == 3


async def test_a_poor_seat_pays_what_it_has_and_a_disabled_rule_charges_nothing(
    db: Database,
) -> None:
    seats = await _accounts(db)
    poor = await _accounts(db, 1, balance=25)
    table = [seats[0], seats[1], poor[0], seats[3]]
    state = _finished(1)
    async with db.sessions() as s:
        off = DisconnectPolicy(enabled=False)
        for n in range(3):
            record = _record(f"p{n}", table, state, (2,))
            outcomes = await settle_disconnects(s, LISHUI, record, STAKE, T0, off)
            assert [o.count for o in outcomes] == [n + 1] and outcomes[0].penalty == 0
        record = _record("p3", table, state, (2,))
        outcomes = await settle_disconnects(s, LISHUI, record, STAKE, T0)
    assert outcomes[0].penalty == 25  # the balance floor
    assert await _balances(db, table) == [10008, 10008, 0, 10009]
    await _books_balance(db)


# --- through the registry ------------------------------------------------------------------


async def test_the_registry_counts_disconnects_and_escapes_at_a_hands_end(
    db: Database,
) -> None:
    seats = await _accounts(db)
    now = [T0]
    registry = TableRegistry(db.sessions, wall_clock=lambda: now[0])
    live = registry.create("lishui", STAKE)
    try:
        state = _finished(1)
        shown = []
        for n in range(3):
            now[0] = T0 + timedelta(hours=n)
            record = _record(f"{live.table_id}-{n}", seats, state, (1,), live.table_id)
            paid = await live.settle(record)
            assert paid is not None
            shown.append(paid.penalties)
        # the table shows the third hand's result with the penalty the store charged
        assert shown == [(), (), (SeatPenalty(1, "disconnect_penalty", 60),)]
        escape, _ = new_hand(LISHUI, 5, TableContext())
        escape, _ = step(escape, Escape(3))
        await live.settle(
            _record(f"{live.table_id}-x", seats, escape, (), live.table_id))
    finally:
        await registry.stop()
    async with db.sessions() as s:
        assert (await stats_of(s, seats[1]))["lishui"].disconnects == 3
        assert (await stats_of(s, seats[3]))["lishui"].escapes == 1
        assert (await stats_of(s, seats[0]))["lishui"].disconnects == 0
        rows = (await s.execute(select(LedgerEntry.reason, LedgerEntry.delta).where(
            LedgerEntry.account_id == seats[1],
            LedgerEntry.reason == "disconnect_penalty"))).all()
    assert rows == [("disconnect_penalty", -60)]
    await _books_balance(db)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_has_a_disconnect_base(variant: str) -> None:
    ruleset = get_ruleset(variant)
    state = play_hand(ruleset, 2, TableContext(), bot_factory("greedy"), check=False).state
    assert all(hand_base(ruleset, state, seat) > 0 for seat in range(4))

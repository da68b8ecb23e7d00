"""Settling hands, penalties, adjustments and the ledger's pages, on every backend."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import func, select

from app.rules.actions import Escape
from app.rules.context import Settlement, TableContext, Transfer
from app.rules.hand import new_hand, step
from app.rules.selfplay import bot_factory, play_hand
from app.rules.variants import VARIANTS
from app.store import ledger
from app.store.db import Database
from app.store.ledger import settlement as ledger_settlement
from app.store.models import Account, LedgerEntry
from app.store.ranks import SeatResult, record_stats, results_from, stats_of


async def _accounts(db: Database, *balances: int) -> list[int]:
    """Accounts funded by their signup grant (so balance == the sum of their rows)."""
    async with db.sessions() as s, s.begin():
        known = (await s.execute(select(func.count()).select_from(Account))).scalar_one()
        accounts = [
            Account(username=f"p{known + i}", password_hash="x", balance=0)
            for i in range(len(balances))
        ]
        s.add_all(accounts)
        await s.flush()
        ids = [a.id for a in accounts]
    for account_id, amount in zip(ids, balances, strict=True):
        async with db.sessions() as s:
            await ledger.grant_signup(s, account_id, amount)
    return ids


async def _balances(db: Database, ids: Sequence[int]) -> list[int]:
    async with db.sessions() as s:
        rows = dict((await s.execute(select(Account.id, Account.balance))).all())
    return [rows[i] for i in ids]


async def _assert_books_balance(db: Database) -> None:
    """Every balance is the sum of its rows, and the last row's balance_after."""
    async with db.sessions() as s:
        sums = dict(
            (
                await s.execute(
                    select(LedgerEntry.account_id, func.sum(LedgerEntry.delta)).group_by(
                        LedgerEntry.account_id
                    )
                )
            ).all()
        )
        for account_id, balance in (await s.execute(select(Account.id, Account.balance))).all():
            assert balance == sums.get(account_id, 0) >= 0


async def _settle(
    db: Database,
    hand_id: str,
    seats: Sequence[int],
    settlement: Settlement,
    stake: int,
    stats: Sequence[SeatResult] | None = None,
    variant: str = "lishui",
) -> list[LedgerEntry]:
    async with db.sessions() as s:
        return await ledger.settle_hand(
            s, hand_id, seats, settlement, stake, variant=variant, stats=stats
        )


def _pays(*transfers: tuple[int, int, int]) -> Settlement:
    return Settlement(tuple(Transfer(p, q, points, "win") for p, q, points in transfers))


async def test_a_played_hand_moves_points_times_stake_and_counts_stats(db: Database) -> None:
    run = play_hand(VARIANTS["lishui"], 1, TableContext(), bot_factory("greedy"))
    state = run.state
    assert state.settlement is not None
    (win,) = state.wins
    seats = await _accounts(db, 10000, 10000, 10000, 10000)
    rows = await _settle(db, "h1", seats, state.settlement, 10, results_from(state))

    net = state.settlement.net()
    assert [r.account_id for r in rows] == seats
    assert [r.delta for r in rows] == [10 * n for n in net]
    assert {r.reason for r in rows} == {"hand_settlement"}
    assert {r.hand_id for r in rows} == {"h1"}
    assert [r.idempotency_key for r in rows] == [f"hand:h1:{a}" for a in seats]
    assert await _balances(db, seats) == [10000 + 10 * n for n in net]

    async with db.sessions() as s:
        stats = [(await stats_of(s, a))["lishui"] for a in seats]
    assert [st.hands for st in stats] == [1, 1, 1, 1]
    assert [st.wins for st in stats] == [int(i == win.seat) for i in range(4)]
    assert [st.deal_ins for st in stats] == [int(i == win.from_seat) for i in range(4)]
    assert [st.self_draws for st in stats] == [0, 0, 0, 0]
    # 积分 never below 0: the losers stay at 0
    assert [st.points for st in stats] == [max(0, n) for n in net]
    await _assert_books_balance(db)


async def test_settling_a_hand_twice_changes_nothing(db: Database) -> None:
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    settlement = _pays((1, 0, 6), (2, 0, 2), (3, 0, 2))
    first = await _settle(db, "h1", seats, settlement, 5)
    again = await _settle(db, "h1", seats, settlement, 5)
    assert [r.id for r in again] == [r.id for r in first]
    assert await _balances(db, seats) == [1050, 970, 990, 990]
    async with db.sessions() as s:
        assert (await stats_of(s, seats[0]))["lishui"].hands == 1
        assert (await stats_of(s, seats[0]))["lishui"].points == 10


async def test_two_concurrent_settlements_of_one_hand_apply_once(db: Database) -> None:
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    settlement = _pays((1, 0, 3), (2, 0, 3), (3, 0, 3))

    async def settle() -> list[LedgerEntry]:
        return await _settle(db, "race", seats, settlement, 10)

    one, other = await asyncio.gather(settle(), settle())
    assert sorted(r.id for r in one) == sorted(r.id for r in other)
    assert await _balances(db, seats) == [1090, 970, 970, 970]
    async with db.sessions() as s:
        count = (await s.execute(select(func.count()).select_from(LedgerEntry))).scalar_one()
        assert (await stats_of(s, seats[0]))["lishui"].hands == 1
    assert count == 4 + 4  # the grants and one settlement


async def test_concurrent_settlements_of_different_hands_sharing_accounts_all_apply(
    db: Database,
) -> None:
    ids = await _accounts(db, 1000, 1000, 1000, 1000, 1000, 1000)
    # the same accounts in opposite seat orders: locks are taken in account-id order, so
    # PostgreSQL cannot deadlock
    tables = [ids[:4], ids[:4][::-1], ids[2:], ids[2:][::-1], [ids[0], ids[5], ids[1], ids[4]]]
    settlement = _pays((1, 0, 3), (2, 0, 3), (3, 0, 3))

    async def settle(n: int, seats: list[int]) -> list[LedgerEntry]:
        return await _settle(db, f"t{n}", seats, settlement, 10)

    await asyncio.gather(*(settle(n, seats) for n, seats in enumerate(tables * 2)))
    expected = dict.fromkeys(ids, 1000)
    for seats in tables * 2:
        expected[seats[0]] += 90
        for other in seats[1:]:
            expected[other] -= 30
    assert await _balances(db, ids) == [expected[i] for i in ids]
    await _assert_books_balance(db)


async def test_the_loser_of_the_unique_key_race_rolls_back_and_returns_the_winners_rows(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    settlement = _pays((1, 0, 3))
    first = await _settle(db, "h", seats, settlement, 10)
    # a settlement that does not see the first one's rows until its insert collides (as on
    # PostgreSQL, where the check reads from before the lock it waited for)
    real = ledger_settlement._lock

    async def lock_blind(*args: Any) -> tuple[dict[int, int], bool]:
        balances, _ = await real(*args)
        return balances, False

    monkeypatch.setattr(ledger_settlement, "_lock", lock_blind)
    again = await _settle(db, "h", seats, settlement, 10)
    assert [r.id for r in again] == [r.id for r in first]
    assert await _balances(db, seats) == [1030, 970, 1000, 1000]
    async with db.sessions() as s:
        assert (await stats_of(s, seats[1]))["lishui"].hands == 1


# --- several hands in one transaction (a burst of endings) -------------------------------


def _hand(hand_id: str, seats: Sequence[int], settlement: Settlement) -> ledger.HandToSettle:
    return ledger.HandToSettle(hand_id, seats, settlement, 10, "lishui")


async def test_a_batch_settles_each_hand_as_alone_in_order(db: Database) -> None:
    a, b, c, d, e, f, g = await _accounts(db, 100, 1000, 1000, 1000, 1000, 1000, 1000)
    first = _pays((0, 1, 8))  # a pays 80 of its 100 to b
    second = _pays((0, 1, 5))  # then 50 to e: it has 20 left, the balance floor
    async with db.sessions() as s:
        rows = await ledger.settle_hands(s, [
            _hand("b1", [a, b, c, d], first),
            _hand("b2", [a, e, f, g], second),
            _hand("b3", [g, f, e, d], _pays((1, 0, 2))),
        ])
    assert [[(r.account_id, r.delta) for r in hand] for hand in rows] == [
        [(a, -80), (b, 80), (c, 0), (d, 0)],
        [(a, -20), (e, 20), (f, 0), (g, 0)],
        [(g, 20), (f, -20), (e, 0), (d, 0)],
    ]
    assert rows[1][0].note == "balance floor: paid 20 of 50"
    assert await _balances(db, [a, b, e, f, g]) == [0, 1080, 1020, 980, 1020]
    async with db.sessions() as s:
        assert (await stats_of(s, a))["lishui"].hands == 2
        assert (await stats_of(s, d))["lishui"].hands == 2
    await _assert_books_balance(db)


async def test_a_batch_with_a_settled_hand_settles_only_the_others(db: Database) -> None:
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    settlement = _pays((1, 0, 3))
    (done,) = [await _settle(db, "s1", seats, settlement, 10)]
    async with db.sessions() as s:
        again, new = await ledger.settle_hands(
            s, [_hand("s1", seats, settlement), _hand("s2", seats, settlement)]
        )
    assert [r.id for r in again] == [r.id for r in done]
    assert [r.delta for r in new] == [30, -30, 0, 0]
    assert await _balances(db, seats) == [1060, 940, 1000, 1000]
    async with db.sessions() as s:
        assert (await stats_of(s, seats[0]))["lishui"].hands == 2


async def test_a_batch_refused_moves_nothing(db: Database) -> None:
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    bad = Settlement((Transfer(0, 0, 1, "win"),))
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError):
            await ledger.settle_hands(
                s, [_hand("r1", seats, _pays((1, 0, 3))), _hand("r2", seats, bad)]
            )
        with pytest.raises(ledger.LedgerError):  # one hand twice in a batch
            await ledger.settle_hands(
                s, [_hand("r1", seats, _pays((1, 0, 3))), _hand("r1", seats, _pays((1, 0, 3)))]
            )
    assert await _balances(db, seats) == [1000] * 4


async def test_a_batch_racing_a_settlement_of_one_of_its_hands_settles_the_rest(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    first = await _settle(db, "x1", seats, _pays((1, 0, 3)), 10)
    real = ledger_settlement._lock

    async def lock_blind(*args: Any) -> tuple[dict[int, int], bool]:
        balances, _ = await real(*args)
        return balances, False  # as if x1's rows were written after the check

    monkeypatch.setattr(ledger_settlement, "_lock", lock_blind)
    async with db.sessions() as s:
        again, other = await ledger.settle_hands(
            s, [_hand("x1", seats, _pays((1, 0, 3))), _hand("x2", seats, _pays((2, 0, 1)))]
        )
    assert [r.id for r in again] == [r.id for r in first]
    assert [r.delta for r in other] == [10, 0, -10, 0]
    assert await _balances(db, seats) == [1040, 970, 990, 1000]
    await _assert_books_balance(db)


async def test_a_loser_short_of_silver_pays_all_shared_in_proportion(db: Database) -> None:
    seats = await _accounts(db, 0, 0, 500, 101)
    # seat 3 owes seat 0 300 and seat 1 200 silver but has 101: 101 x 3/5 = 60.6 -> 60 and
    # 101 x 2/5 = 40.4 -> 40; the remainder 1 goes to seat 0, the first after seat 3
    rows = await _settle(db, "h", seats, _pays((3, 0, 30), (3, 1, 20)), 10)
    assert [r.delta for r in rows] == [61, 40, 0, -101]
    assert await _balances(db, seats) == [61, 40, 500, 0]
    assert rows[3].note == "balance floor: paid 101 of 500"
    assert rows[0].note == "balance floor: received 61 of 300"
    assert rows[2].note is None


async def test_the_remainder_goes_by_turn_order_from_the_payer(db: Database) -> None:
    seats = await _accounts(db, 0, 10, 0, 0)
    # seat 1 owes 100 to each of the others and has 10: 3 each, the remainder to seat 2
    rows = await _settle(db, "h", seats, _pays((1, 0, 100), (1, 2, 100), (1, 3, 100)), 1)
    assert [r.delta for r in rows] == [3, -10, 4, 3]


async def test_debts_are_netted_pair_by_pair_before_the_floor(db: Database) -> None:
    seats = await _accounts(db, 0, 25, 0, 0)
    # seat 1 owes seat 0 50 and seat 0 owes seat 1 20: a net debt of 30, of which 25 is paid
    rows = await _settle(db, "h", seats, _pays((1, 0, 50), (0, 1, 20), (2, 3, 7)), 1)
    assert [r.delta for r in rows] == [25, -25, -0, 0]


async def test_a_creditor_whose_receipts_shrink_pays_less_in_turn(db: Database) -> None:
    seats = await _accounts(db, 0, 0, 0, 50)
    # seat 3 owes seat 1 100 but has 50; seat 1 owes seat 0 100 and has nothing but what it
    # receives: it passes on the 50
    rows = await _settle(db, "h", seats, _pays((3, 1, 100), (1, 0, 100)), 1)
    assert [r.delta for r in rows] == [50, 0, 0, -50]
    assert rows[1].note == "balance floor: paid 50 of 100, received 50 of 100"
    await _assert_books_balance(db)


def test_the_floor_iterates_until_every_seat_can_pay() -> None:
    # seat 3 (funds 30) owes seat 2 90; seat 2 (funds 0) owes seat 1 60; seat 1 (funds 0)
    # owes seat 0 60: 30 passes down the chain
    debts = {(3, 2): 90, (2, 1): 60, (1, 0): 60}
    assert ledger.floor_payments(debts, [0, 0, 0, 30]) == {(3, 2): 30, (2, 1): 30, (1, 0): 30}
    assert ledger.floor_payments(debts, [0, 0, 0, 90]) == debts
    assert ledger.share_out(7, 0, {1: 10, 2: 10, 3: 10}) == {1: 3, 2: 2, 3: 2}
    assert ledger.share_out(2, 2, {0: 5, 1: 5}) == {0: 1, 1: 1}
    assert ledger.share_out(1, 2, {0: 5, 1: 5}) == {0: 1, 1: 0}


async def test_house_rewards_are_rows_of_their_own(db: Database) -> None:
    seats = await _accounts(db, 100, 100, 100, 100)
    # 湖州 起手四财神: seat 2 wins as a self-draw and gets 500000 silver from the house; a
    # ruleset may also grant house points (x stake)
    settlement = Settlement(
        tuple(Transfer(s, 2, 8, "win") for s in (0, 1, 3)),
        house=(0, 3, 0, 0),
        house_silver=(0, 0, 500000, 0),
    )
    rows = await _settle(db, "hz", seats, settlement, 10, variant="huzhou")
    house = [(r.account_id, r.delta, r.idempotency_key) for r in rows if r.reason == "house_reward"]
    assert house == [
        (seats[1], 30, f"hand:hz:{seats[1]}:house_points"),
        (seats[2], 500000, f"hand:hz:{seats[2]}:house_silver"),
    ]
    play = [r.delta for r in rows if r.reason == "hand_settlement"]
    # seat 1 pays 80 out of its 100 + the house's 30
    assert play == [-80, -80, 240, -80]
    assert await _balances(db, seats) == [20, 50, 500340, 20]
    async with db.sessions() as s:
        assert (await stats_of(s, seats[1]))["huzhou"].points == 0  # -8 + 3, never below 0
        assert (await stats_of(s, seats[2]))["huzhou"].points == 24
    again = await _settle(db, "hz", seats, settlement, 10, variant="huzhou")
    assert [r.id for r in again] == [r.id for r in rows]


async def test_an_escape_settled_with_the_hand_is_an_escape_penalty(db: Database) -> None:
    state, _ = new_hand(VARIANTS["lishui"], 5, TableContext())
    state, _ = step(state, Escape(2))
    assert state.settlement is not None
    seats = await _accounts(db, 1000, 1000, 1000, 1000)
    rows = await _settle(db, "esc", seats, state.settlement, 10, results_from(state))
    assert [r.delta for r in rows] == [100, 100, -300, 100]
    assert {r.reason for r in rows} == {"escape_penalty"}
    async with db.sessions() as s:
        assert (await stats_of(s, seats[2]))["lishui"].escapes == 1


async def test_a_penalty_is_divided_among_the_others_and_capped_by_the_balance(
    db: Database,
) -> None:
    payer, a, b, c = await _accounts(db, 1000, 0, 0, 0)
    async with db.sessions() as s:
        rows = await ledger.penalize(s, payer, [a, b, c], 301, "escape_penalty", "esc:1", "h9")
    assert [(r.account_id, r.delta) for r in rows] == [(payer, -301), (a, 101), (b, 100), (c, 100)]
    assert {r.reason for r in rows} == {"escape_penalty"} and {r.hand_id for r in rows} == {"h9"}

    poor, x, y, z = await _accounts(db, 20, 0, 0, 0)
    async with db.sessions() as s:
        rows = await ledger.penalize(s, poor, [x, y, z], 50, "disconnect_penalty", "dc:1", None)
    assert [(r.account_id, r.delta) for r in rows] == [(poor, -20), (x, 7), (y, 7), (z, 6)]
    assert rows[0].note == "balance floor: paid 20 of 50"
    async with db.sessions() as s:
        again = await ledger.penalize(s, poor, [x, y, z], 50, "disconnect_penalty", "dc:1", None)
    assert [r.id for r in again] == [r.id for r in rows]
    assert await _balances(db, [poor, x, y, z]) == [0, 7, 7, 6]

    async with db.sessions() as s:
        broke = await ledger.penalize(s, poor, [x], 50, "escape_penalty", "esc:2", None)
    assert [(r.account_id, r.delta) for r in broke] == [(poor, 0)]
    await _assert_books_balance(db)


async def test_penalties_refuse_what_is_not_a_penalty(db: Database) -> None:
    payer, a = await _accounts(db, 100, 0)
    for args in (
        (payer, [a], 10, "gift", "k1"),
        (payer, [payer], 10, "escape_penalty", "k2"),
        (payer, [], 10, "escape_penalty", "k3"),
        (payer, [a], -1, "escape_penalty", "k4"),
    ):
        async with db.sessions() as s:
            with pytest.raises(ledger.LedgerError) as refused:
                await ledger.penalize(s, *args, None)  # type: ignore[arg-type]
        assert refused.value.code == "validation_error"


async def test_an_adjustment_needs_a_note_and_never_goes_below_0(db: Database) -> None:
    (aid,) = await _accounts(db, 100)
    for note in ("", "   "):
        async with db.sessions() as s:
            with pytest.raises(ledger.LedgerError) as refused:
                await ledger.adjust(s, aid, 50, note, admin_id=aid)
        assert refused.value.code == "validation_error"
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError) as refused:
            await ledger.adjust(s, aid, -101, "chargeback", admin_id=aid)
    assert refused.value.code == "insufficient_balance"
    assert await _balances(db, [aid]) == [100]
    async with db.sessions() as s:
        one = await ledger.adjust(s, aid, -40, "chargeback", admin_id=aid)
    async with db.sessions() as s:
        two = await ledger.adjust(s, aid, -40, "chargeback", admin_id=aid)
    assert one.idempotency_key != two.idempotency_key
    assert (one.reason, one.note, one.balance_after, two.balance_after) == (
        "admin_adjustment", "chargeback", 60, 20,
    )
    await _assert_books_balance(db)


async def test_a_signup_grant_is_given_once(db: Database) -> None:
    (aid,) = await _accounts(db, 10000)
    async with db.sessions() as s:
        again = await ledger.grant_signup(s, aid, 10000)
    assert again.idempotency_key == f"signup:{aid}" and again.reason == "signup_grant"
    assert await _balances(db, [aid]) == [10000]


async def test_the_ledger_pages_newest_first(db: Database) -> None:
    (aid,) = await _accounts(db, 100)
    for i in range(1, 7):
        async with db.sessions() as s:
            await ledger.adjust(s, aid, i, f"note {i}", admin_id=aid)
    pages: list[list[int]] = []
    before: int | None = None
    while True:
        async with db.sessions() as s:
            page = await ledger.ledger_page(s, aid, limit=3, before_id=before)
        if not page:
            break
        pages.append([r.delta for r in page])
        before = page[-1].id
    assert pages == [[6, 5, 4], [3, 2, 1], [100]]
    async with db.sessions() as s:
        with pytest.raises(ledger.LedgerError):
            await ledger.ledger_page(s, aid, limit=0, before_id=None)


async def test_stats_points_never_go_below_0(db: Database) -> None:
    (aid,) = await _accounts(db, 0)
    async with db.sessions() as s:
        await record_stats(s, aid, "huzhou", SeatResult(won=True, self_draw=True, points=30))
        await record_stats(s, aid, "huzhou", SeatResult(dealt_in=True, points=-50))
        await record_stats(s, aid, "huzhou", SeatResult(disconnected=True, points=12))
        await record_stats(s, aid, "lishui", SeatResult(escaped=True, points=-30))
        stats = await stats_of(s, aid)
    hz, ls = stats["huzhou"], stats["lishui"]
    assert (hz.hands, hz.wins, hz.self_draws, hz.deal_ins, hz.disconnects, hz.points) == (
        3, 1, 1, 1, 1, 12,
    )
    assert (ls.hands, ls.escapes, ls.points) == (1, 1, 0)


async def test_a_settlement_is_checked_before_anything_moves(db: Database) -> None:
    seats = await _accounts(db, 10, 10, 10, 10)
    bad = [
        (seats[:3], _pays((1, 0, 1)), 1, "lishui", "validation_error"),
        ([seats[0]] * 4, _pays((1, 0, 1)), 1, "lishui", "validation_error"),
        (seats, _pays((1, 1, 1)), 1, "lishui", "validation_error"),
        (seats, _pays((1, 0, 0)), 1, "lishui", "validation_error"),
        (seats, _pays((1, 0, 1)), -1, "lishui", "validation_error"),
        (seats, _pays((1, 0, 1)), 1, "mars", "validation_error"),
        ([*seats[:3], 999], _pays((1, 0, 1)), 1, "lishui", "not_found"),
    ]
    for hand_seats, settlement, stake, variant, code in bad:
        async with db.sessions() as s:
            with pytest.raises(ledger.LedgerError) as refused:
                await ledger.settle_hand(
                    s, "bad", hand_seats, settlement, stake, variant=variant
                )
        assert refused.value.code == code
    assert await _balances(db, seats) == [10, 10, 10, 10]
    async with db.sessions() as s:
        assert await stats_of(s, seats[0]) == {}

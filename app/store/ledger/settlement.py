"""Moving silver between accounts under the balance floor (RULES.md 1: nobody ends below 0
silver): a hand's settlement (结算, `settle_hand`), a penalty (`penalize`), and the house
bringing its bots to a table's minimum (`level_bots`). The floor's arithmetic
(`pairwise_debts`, `share_out`, `floor_payments`) is pure; each operation writes its rows
through the posting primitives (`posting`), in one transaction, once per key.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, cast

from sqlalchemy import Insert, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.schema import ScalarElementColumnDefault

from app.rules.context import Settlement, Transfer
from app.rules.variants import VARIANTS
from app.rules.variants.base import split
from app.store.ledger.posting import (
    LedgerError,
    _book,
    _Change,
    _is_int,
    _lock,
    _once,
    _refuse,
    _rows,
)
from app.store.models import HandRecord, LedgerEntry
from app.store.ranks import SeatResult, record_hand_stats

# --- the balance floor: pure arithmetic on seats 0-3 ---------------------------------------

Debts = dict[tuple[int, int], int]  # (payer seat, payee seat) -> silver


def pairwise_debts(transfers: Iterable[Transfer], stake: int) -> Debts:
    """Net the hand's transfers pair by pair: what each seat owes each other seat, in silver
    (points x stake). At most one direction per pair is left, and only amounts above 0."""
    gross: dict[tuple[int, int], int] = defaultdict(int)
    for t in transfers:
        gross[t.payer, t.payee] += t.points
    debts: Debts = {}
    for a in range(4):
        for b in range(a + 1, 4):
            net = gross[a, b] - gross[b, a]
            if net > 0:
                debts[a, b] = net * stake
            elif net < 0:
                debts[b, a] = -net * stake
    return debts


def share_out(amount: int, payer: int, owed: Mapping[int, int]) -> dict[int, int]:
    """Divide what a payer can pay (`amount`) among the seats it owes, in proportion to what
    each is owed: rounded down, then the remainder 1 each to the owed seats in turn order
    from the payer (RULES.md 1, balance floor). Nobody gets more than it is owed."""
    total = sum(owed.values())
    if amount >= total:
        return dict(owed)
    parts = {seat: amount * due // total for seat, due in owed.items()}
    rest = amount - sum(parts.values())  # fewer than len(owed)
    for seat in sorted((s for s, due in owed.items() if due > 0), key=lambda s: (s - payer) % 4):
        if rest == 0:
            break
        parts[seat] += 1
        rest -= 1
    return parts


def floor_payments(debts: Debts, funds: Sequence[int]) -> Debts:
    """What each seat actually pays each other seat so that nobody ends below 0 silver.

    A seat can pay its funds (balance, plus any house reward of the hand) and what it
    actually receives in the hand. A seat that owes more pays all it can, shared out among its
    creditors (`share_out`). That can shrink a creditor's receipts below what it owes itself,
    so repeat until nothing changes. A seat's means only ever shrink from one round to the
    next (taken as the smaller of the last round's and the new one), so this ends."""
    paid = dict(debts)
    means: list[int] | None = None
    by_payer: dict[int, dict[int, int]] = defaultdict(dict)
    for (payer, payee), due in debts.items():
        by_payer[payer][payee] = due
    while True:
        receipts = [0] * 4
        for (_, payee), amount in paid.items():
            receipts[payee] += amount
        now = [funds[s] + receipts[s] for s in range(4)]
        means = now if means is None else [min(a, b) for a, b in zip(means, now, strict=True)]
        after: Debts = {}
        for payer, owed in by_payer.items():
            for payee, amount in share_out(means[payer], payer, owed).items():
                after[payer, payee] = amount
        if after == paid:
            return paid
        paid = after


# --- settling a hand, penalties, the house's bots -------------------------------------------


def _check_settlement(settlement: Settlement) -> None:
    for t in settlement.transfers:
        if not (_is_int(t.points) and t.points > 0):
            raise _refuse(f"a transfer moves a whole number of points above 0: {t}")
        if not (0 <= t.payer < 4 and 0 <= t.payee < 4) or t.payer == t.payee:
            raise _refuse(f"a transfer is between two different seats 0-3: {t}")
    for amounts in (settlement.house, settlement.house_silver):
        if len(amounts) != 4 or not all(_is_int(a) and a >= 0 for a in amounts):
            raise _refuse("house rewards are 4 whole numbers, none below 0")


def _floor_note(owed: int, paid: int, due: int, got: int) -> str | None:
    notes = []
    if paid < owed:
        notes.append(f"paid {paid} of {owed}")
    if got < due:
        notes.append(f"received {got} of {due}")
    return "balance floor: " + ", ".join(notes) if notes else None


@dataclass(frozen=True)
class HandToSettle:
    """One hand for `settle_hands`: `seats` are the 4 account ids by seat; silver moved =
    points x `stake`; `stats` one `SeatResult` per seat (see `ranks.results_from`; without
    them each seat counts a hand and its net points only); `record` stored with it unless
    stored already."""

    hand_id: str
    seats: Sequence[int]
    settlement: Settlement
    stake: int
    variant: str
    stats: Sequence[SeatResult] | None = None
    record: HandRecord | None = None

    def check(self) -> None:
        if not (isinstance(self.hand_id, str) and 0 < len(self.hand_id) <= 64):
            raise _refuse("a hand id is 1 to 64 characters")
        seats = self.seats
        if len(seats) != 4 or len(set(seats)) != 4 or not all(_is_int(s) for s in seats):
            raise _refuse("a hand has 4 different accounts")
        if not (_is_int(self.stake) and self.stake >= 0):
            raise _refuse("the stake is a whole number of silver per point, not below 0")
        if self.variant not in VARIANTS:
            raise _refuse(f"unknown variant {self.variant!r}")
        if self.stats is not None and len(self.stats) != 4:
            raise _refuse("stats are one result per seat")
        _check_settlement(self.settlement)

    @property
    def seat_keys(self) -> list[str]:
        return [f"hand:{self.hand_id}:{account_id}" for account_id in self.seats]

    @property
    def keys(self) -> list[str]:
        seat_keys = self.seat_keys
        return seat_keys + [f"{k}:house_{kind}" for k in seat_keys for kind in ("points", "silver")]

    def changes(self, balances: Mapping[int, int]) -> list[_Change]:
        """The rows this hand writes, from the seats' balances before it (pure)."""
        settlement, stake, seats = self.settlement, self.stake, self.seats
        escape = any(t.reason == "escape" for t in settlement.transfers)
        reason = "escape_penalty" if escape else "hand_settlement"
        seat_keys = self.seat_keys
        house = [(settlement.house[s] * stake, settlement.house_silver[s]) for s in range(4)]
        debts = pairwise_debts(settlement.transfers, stake)
        funds = [balances[seats[s]] + sum(house[s]) for s in range(4)]
        paid = floor_payments(debts, funds)
        changes: list[_Change] = []
        for s, account_id in enumerate(seats):
            for kind, amount in zip(("points", "silver"), house[s], strict=True):
                if amount:
                    key = f"{seat_keys[s]}:house_{kind}"
                    changes.append(_Change(account_id, amount, "house_reward", key, self.hand_id))
        for s, account_id in enumerate(seats):
            owed = sum(v for (p, _), v in debts.items() if p == s)
            due = sum(v for (_, c), v in debts.items() if c == s)
            out = sum(v for (p, _), v in paid.items() if p == s)
            got = sum(v for (_, c), v in paid.items() if c == s)
            note = _floor_note(owed, out, due, got)
            changes.append(
                _Change(account_id, got - out, reason, seat_keys[s], self.hand_id, note)
            )
        return changes

    def results(self) -> list[SeatResult]:
        if self.stats is not None:
            return list(self.stats)
        return [SeatResult(points=p) for p in self.settlement.net()]


async def settle_hand(
    session: AsyncSession,
    hand_id: str,
    seats: Sequence[int],
    settlement: Settlement,
    stake: int,
    *,
    variant: str,
    stats: Sequence[SeatResult] | None = None,
    record: HandRecord | None = None,
) -> list[LedgerEntry]:
    """Settle one hand (结算): every seat's silver and stats, and its `record` when given
    (unless stored already), in one transaction.

    `seats` are the 4 account ids by seat. Silver moved = points x stake. Each seat gets one
    row (key `hand:{hand_id}:{account_id}`, also when it moves nothing), reason
    `hand_settlement` (`escape_penalty` when the hand ended by an escape); house points
    (x stake) and house silver are `house_reward` rows of their own. The balance floor
    (RULES.md 1) applies to the pairwise net debts (`floor_payments`). Stats: `stats`, one
    `SeatResult` per seat (see `ranks.results_from`); without it each seat counts a hand and
    its net points only. Settling a hand again is a no-op returning the first rows.
    `session` must have no transaction open."""
    hand = HandToSettle(hand_id, seats, settlement, stake, variant, stats, record)
    (entries,) = await settle_hands(session, [hand])
    return entries


async def settle_hands(
    session: AsyncSession,
    hands: Sequence[HandToSettle],
    *,
    then: Callable[[], Awaitable[None]] | None = None,
) -> list[list[LedgerEntry]]:
    """Settle several hands in one transaction, each as `settle_hand` would, one after the
    other (an account in two of them pays the second from what the first left it): all or
    none. A hand settled already is a no-op returning its first rows; each hand's rows are
    returned in its place. `session` must have no transaction open. `then` is awaited in
    the transaction after the writes, before it commits (a read of what they left, without
    a transaction of its own); not when a concurrent writer settled the hands first (its
    key fails our insert, before `then`: no constraint here is deferred to the commit).

    One batch is a few statements whatever its size (lock, move, insert, stats, records),
    where a hand at a time is as many per hand: a burst of endings costs the database and
    the event loop a fraction (docs/architecture.md, "Settlement bursts")."""
    for hand in hands:
        hand.check()
    if len({hand.hand_id for hand in hands}) != len(hands):
        raise _refuse("a batch settles each hand once")
    keys = [key for hand in hands for key in hand.keys]

    async def write() -> list[LedgerEntry]:
        accounts = [a for hand in hands for a in hand.seats]
        balances, posted = await _lock(session, accounts, keys)
        found = await _rows(session, keys) if posted else []  # the hands stored already
        done = {entry.hand_id for entry in found}
        running = dict(balances)
        changes: list[_Change] = []
        new = [hand for hand in hands if hand.hand_id not in done]
        for hand in new:
            made = hand.changes(running)
            for change in made:
                running[change.account_id] += change.delta
            changes += made
        entries = await _book(session, balances, changes) if changes else []
        by_variant: dict[str, list[tuple[int, SeatResult]]] = defaultdict(list)
        for hand in new:
            by_variant[hand.variant] += zip(hand.seats, hand.results(), strict=True)
        for variant, results in by_variant.items():
            await record_hand_stats(session, variant, results)
        await _add_records(session, [hand.record for hand in new if hand.record is not None])
        if then is not None:
            await then()
        return entries + found

    entries = await _once(session, keys, write)
    by_hand: dict[str | None, list[LedgerEntry]] = defaultdict(list)
    for entry in entries:
        by_hand[entry.hand_id].append(entry)
    missing = [hand for hand in hands if not by_hand[hand.hand_id]]
    if missing:  # a concurrent writer settled some first (`_once`): ours rolled back
        for hand, rows in zip(missing, await settle_hands(session, missing), strict=True):
            by_hand[hand.hand_id] = rows
    return [by_hand[hand.hand_id] for hand in hands]


_RECORDS = cast(Table, HandRecord.__table__)
# each column the insert writes, and its value when a record leaves it unset (the model's
# scalar default, as a flush would use; created_at is the database's own)
_RECORD_COLUMNS = {
    c.key: c.default.arg if isinstance(c.default, ScalarElementColumnDefault) else None
    for c in _RECORDS.columns if c.server_default is None
}


@lru_cache
def _insert_records(dialect: str) -> Insert:
    """The hand records' insert, built once per dialect: a record stored already (a retry
    finds its own) is skipped, in the same statement."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(_RECORDS).on_conflict_do_nothing(index_elements=[_RECORDS.c.id])


async def _add_records(session: AsyncSession, records: Sequence[HandRecord]) -> None:
    """Store the hand records not stored already, in one statement."""
    if not records:
        return
    connection = await session.connection()
    await connection.execute(
        _insert_records(connection.dialect.name),
        [_row(record) for record in records],
    )


def _row(record: HandRecord) -> dict[str, object]:
    row = {}
    for key, default in _RECORD_COLUMNS.items():
        value = getattr(record, key)
        row[key] = default if value is None else value
    return row


PenaltyReason = Literal["escape_penalty", "disconnect_penalty"]


async def penalize(
    session: AsyncSession,
    account_id: int,
    others: Sequence[int],
    amount: int,
    reason: PenaltyReason,
    key: str,
    hand_id: str | None,
) -> list[LedgerEntry]:
    """A penalty (逃跑 escape, or the third disconnect in 24 hours) paid by `account_id` to
    `others` (1-3 accounts, in turn order after the payer), in one transaction.

    The payer pays `amount`, or its whole balance if that is less (the balance floor); what it
    pays is divided as `split` divides points: each gets floor(P/k), the remainder 1 each in
    turn order. The payer's row has key `key`, each receiver's `{key}:{account_id}`; posting
    the same key again is a no-op returning the first rows. `session` must have no
    transaction open."""
    if reason not in ("escape_penalty", "disconnect_penalty"):
        raise _refuse(f"a penalty is escape_penalty or disconnect_penalty, not {reason!r}")
    if not (_is_int(amount) and amount >= 0):
        raise _refuse("a penalty is a whole number of silver, not below 0")
    if not 1 <= len(others) <= 3 or len(set(others)) != len(others) or account_id in others:
        raise _refuse("a penalty goes to 1-3 other accounts, each once")
    if not (isinstance(key, str) and 0 < len(key) <= 120):
        raise _refuse("a penalty key is 1 to 120 characters")
    if hand_id is not None and not 0 < len(hand_id) <= 64:
        raise _refuse("a hand id is 1 to 64 characters")
    keys = [key, *(f"{key}:{other}" for other in others)]

    async def write() -> list[LedgerEntry]:
        balances, posted = await _lock(session, [account_id, *others], [key])
        if posted:
            return await _rows(session, keys)
        paid = min(amount, balances[account_id])
        note = f"balance floor: paid {paid} of {amount}" if paid < amount else None
        changes = [_Change(account_id, -paid, reason, key, hand_id, note)]
        # the payer is position 0 and the others 1..k, so `split`'s turn order is theirs
        for position, share in split(paid, 0, list(range(1, len(others) + 1))):
            if share:
                other = others[position - 1]
                changes.append(_Change(other, share, reason, f"{key}:{other}", hand_id))
        return await _book(session, balances, changes)

    return await _once(session, keys, write)


async def level_bots(
    session: AsyncSession,
    house_id: int,
    targets: Mapping[int, int],
    key: str,
    note: str | None = None,
) -> list[LedgerEntry]:
    """Bring each bot account to exactly `targets[bot]` silver through the house account
    (reason `house_funding`), in one transaction: a bot below its target is paid the
    difference by the house, a bot above it pays the surplus back. Each move is two rows
    that sum to 0: the bot's (key `{key}:{bot}`) and the house's (`{key}:{bot}:house`).

    All or nothing: when the house, with the surpluses paid back first, cannot pay every
    difference, `LedgerError("house_funds_low")` and nothing moves. Posting the same `key`
    again is a no-op returning the first rows. `session` must have no transaction open."""
    if house_id in targets:
        raise _refuse("the house does not fund itself")
    if not all(_is_int(t) and t >= 0 for t in targets.values()):
        raise _refuse("a bot's target is a whole number of silver, not below 0")
    if not (isinstance(key, str) and 0 < len(key) <= 120):
        raise _refuse("a funding key is 1 to 120 characters")
    if not targets:
        return []
    bots = sorted(targets)
    keys = [k for bot in bots for k in (f"{key}:{bot}", f"{key}:{bot}:house")]

    async def write() -> list[LedgerEntry]:
        balances, posted = await _lock(session, [house_id, *bots], keys)
        if posted:
            return await _rows(session, keys)
        moves = {bot: targets[bot] - balances[bot] for bot in bots}
        needed = sum(d for d in moves.values() if d > 0)
        returned = -sum(d for d in moves.values() if d < 0)
        if balances[house_id] + returned < needed:
            raise LedgerError(
                "house_funds_low",
                f"the house can pay {balances[house_id] + returned} of the {needed} silver "
                "the bots need",
                {"needed": needed - returned, "house": balances[house_id]},
            )
        changes: list[_Change] = []
        for bot in sorted(bots, key=lambda b: (moves[b] > 0, b)):  # paid back first
            if moves[bot]:
                changes += [
                    _Change(bot, moves[bot], "house_funding", f"{key}:{bot}", note=note),
                    _Change(house_id, -moves[bot], "house_funding", f"{key}:{bot}:house",
                            note=f"bot {bot}" + (f", {note}" if note else "")),
                ]
        if not changes:
            return []
        return await _book(session, balances, changes)

    return await _once(session, keys, write)

"""The silver ledger (银两): every change is an append-only row, and the account's balance
changes in the same transaction. A row's idempotency key is unique: posting the same change
twice is a no-op. Money is whole units, never a float.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal, cast
from weakref import WeakKeyDictionary

from sqlalchemy import BigInteger, Table, bindparam, exists, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.rules.variants import VARIANTS
from app.rules.variants.base import Settlement, Transfer, split
from app.store.models import REASONS, Account, HandRecord, LedgerEntry
from app.store.ranks import SeatResult, in_transaction, record_hand_stats


class LedgerError(Exception):
    """A change the ledger refuses: `code` is the API error code, `details` its details."""

    def __init__(self, code: str, message: str, details: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.details = details


@dataclass(frozen=True)
class Posted:
    entry: LedgerEntry
    created: bool  # False: the key was posted before, nothing changed


async def _existing(session: AsyncSession, key: str) -> LedgerEntry | None:
    return (
        await session.execute(select(LedgerEntry).where(LedgerEntry.idempotency_key == key))
    ).scalar_one_or_none()


async def apply(
    session: AsyncSession,
    account_id: int,
    delta: int,
    reason: str,
    key: str,
    *,
    hand_id: str | None = None,
    note: str | None = None,
    allow_partial: bool = False,
) -> LedgerEntry:
    """Add one ledger row and move the balance, inside the caller's transaction.

    The balance never goes below 0: a debit larger than the balance is refused
    (`insufficient_balance`), or, with `allow_partial`, reduced to the whole balance.
    The caller must have checked the key is new (see `post`)."""
    if type(delta) is not int:
        raise LedgerError("validation_error", "a silver amount is a whole number")
    if reason not in REASONS:
        raise LedgerError("validation_error", f"unknown ledger reason {reason!r}")
    account = (
        await session.execute(select(Account).where(Account.id == account_id).with_for_update())
    ).scalar_one_or_none()
    if account is None:
        raise LedgerError("not_found", f"no account {account_id}")
    if account.balance + delta < 0:
        if not allow_partial:
            raise LedgerError(
                "insufficient_balance", f"balance {account.balance} cannot pay {-delta}"
            )
        delta = -account.balance
    result = await session.execute(
        update(Account)
        .where(Account.id == account_id)
        .values(balance=Account.balance + delta)
        .returning(Account.balance)
    )
    balance_after = result.scalar_one()
    entry = LedgerEntry(
        account_id=account_id,
        delta=delta,
        balance_after=balance_after,
        reason=reason,
        hand_id=hand_id,
        note=note,
        idempotency_key=key,
    )
    session.add(entry)
    await session.flush()
    return entry


async def post(
    session: AsyncSession,
    account_id: int,
    delta: int,
    reason: str,
    key: str,
    *,
    hand_id: str | None = None,
    note: str | None = None,
) -> Posted:
    """One silver change in a transaction of its own (`session` must have none open); a key
    already posted changes nothing and returns the first row."""
    try:
        async with session.begin():
            found = await _existing(session, key)
            if found is not None:
                return Posted(found, False)
            entry = await apply(session, account_id, delta, reason, key, hand_id=hand_id, note=note)
    except IntegrityError:
        # the same key was posted concurrently, and that post won
        async with session.begin():
            found = await _existing(session, key)
        if found is None:
            raise
        return Posted(found, False)
    return Posted(entry, True)


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


# --- writing rows ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Change:
    account_id: int
    delta: int
    reason: str
    key: str
    hand_id: str | None = None
    note: str | None = None


def _refuse(message: str) -> LedgerError:
    return LedgerError("validation_error", message)


def _is_int(value: object) -> bool:
    return type(value) is int


_ACCOUNTS = cast(Table, Account.__table__)
_LEDGER = cast(Table, LedgerEntry.__table__)

# Built once (the hot path of every table): the accounts' balances, their rows locked in
# account-id order (so that two transactions touching some of the same accounts cannot
# deadlock), and whether any of the operation's keys is posted already.
_LOCK = (
    select(
        _ACCOUNTS.c.id,
        _ACCOUNTS.c.balance,
        exists()
        .where(_LEDGER.c.idempotency_key.in_(bindparam("l_keys", expanding=True)))
        .label("posted"),
    )
    .where(_ACCOUNTS.c.id.in_(bindparam("l_accounts", expanding=True)))
    .order_by(_ACCOUNTS.c.id)
    .with_for_update(of=_ACCOUNTS)
)
# run for several accounts at once, on rows `_LOCK` holds
_MOVE = (
    update(_ACCOUNTS)
    .where(_ACCOUNTS.c.id == bindparam("m_account"))
    .values(balance=_ACCOUNTS.c.balance + bindparam("m_delta", type_=BigInteger))
)

_INSERT = insert(_LEDGER).returning(
    _LEDGER.c.idempotency_key, _LEDGER.c.id, _LEDGER.c.created_at
)


async def _lock(
    session: AsyncSession, account_ids: Iterable[int], keys: Collection[str]
) -> tuple[dict[int, int], bool]:
    """Lock the accounts' rows and return their balances, and whether any of `keys` is posted
    already. (On PostgreSQL the second answer is as of before the lock: a concurrent writer
    of the same keys is caught by the unique key instead, see `_once`.)"""
    ids = sorted(set(account_ids))
    connection = await session.connection()  # Core statements skip the ORM's execute path
    rows = (await connection.execute(_LOCK, {"l_accounts": ids, "l_keys": list(keys)})).all()
    balances = {account_id: balance for account_id, balance, _ in rows}
    missing = [i for i in ids if i not in balances]
    if missing:
        raise LedgerError("not_found", f"no account {missing[0]}")
    return balances, bool(rows[0].posted)


async def _rows(session: AsyncSession, keys: Collection[str]) -> list[LedgerEntry]:
    """The rows already posted under any of `keys`, oldest first."""
    return list(
        (
            await session.execute(
                select(LedgerEntry)
                .where(LedgerEntry.idempotency_key.in_(list(keys)))
                .order_by(LedgerEntry.id)
            )
        ).scalars()
    )


async def _book(
    session: AsyncSession, balances: dict[int, int], changes: Sequence[_Change]
) -> list[LedgerEntry]:
    """Write the rows and move the balances of accounts `_lock`ed in this transaction; a row
    that would take a balance below 0 is refused (`insufficient_balance`). The entries
    returned are values, not attached to the session."""
    rows: list[dict[str, object]] = []
    moved: dict[int, int] = defaultdict(int)
    for change in changes:
        after = balances[change.account_id] + change.delta
        if after < 0:
            raise LedgerError(
                "insufficient_balance",
                f"balance {balances[change.account_id]} cannot pay {-change.delta}",
            )
        balances[change.account_id] = after
        moved[change.account_id] += change.delta
        rows.append(
            {
                "account_id": change.account_id,
                "delta": change.delta,
                "balance_after": after,
                "reason": change.reason,
                "hand_id": change.hand_id,
                "note": change.note,
                "idempotency_key": change.key,
            }
        )
    moves = [{"m_account": a, "m_delta": d} for a, d in sorted(moved.items()) if d]
    connection = await session.connection()
    if moves:
        await connection.execute(_MOVE, moves)
    # one multi-row INSERT; RETURNING is matched up by key (SQLite cannot promise its order)
    written = await connection.execute(_INSERT, rows)
    made = {key: (row_id, created_at) for key, row_id, created_at in written.all()}
    entries = []
    for row in rows:
        row_id, created_at = made[str(row["idempotency_key"])]
        entries.append(LedgerEntry(id=row_id, created_at=created_at, **row))
    return entries


_SQLITE_WRITERS: WeakKeyDictionary[Engine, asyncio.Lock] = WeakKeyDictionary()


@asynccontextmanager
async def _writing(session: AsyncSession) -> AsyncIterator[None]:
    """A write transaction of its own (`session` must have none open). SQLite takes one
    writer at a time: this process's ledger writers queue on an asyncio lock rather than in
    SQLite's busy handler, which sleeps and polls (about 3x slower with 8 writers)."""
    bind = session.get_bind()
    if not isinstance(bind, Engine) or bind.dialect.name != "sqlite":
        async with session.begin():
            yield
        return
    lock = _SQLITE_WRITERS.setdefault(bind, asyncio.Lock())
    async with lock, session.begin():
        yield


async def _once(
    session: AsyncSession,
    keys: Collection[str],
    write: Callable[[], Awaitable[list[LedgerEntry]]],
) -> list[LedgerEntry]:
    """Run `write` in a transaction of its own (`session` must have none open). If a
    concurrent writer posted the same keys first (the unique key refuses ours), ours rolls
    back and the winner's rows are returned."""
    try:
        async with _writing(session):
            return await write()
    except IntegrityError:
        async with _writing(session):
            found = await _rows(session, keys)
        if not found:
            raise
        return found


# --- the operations -------------------------------------------------------------------------


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
    if not (isinstance(hand_id, str) and 0 < len(hand_id) <= 64):
        raise _refuse("a hand id is 1 to 64 characters")
    if len(seats) != 4 or len(set(seats)) != 4 or not all(_is_int(s) for s in seats):
        raise _refuse("a hand has 4 different accounts")
    if not (_is_int(stake) and stake >= 0):
        raise _refuse("the stake is a whole number of silver per point, not below 0")
    if variant not in VARIANTS:
        raise _refuse(f"unknown variant {variant!r}")
    if stats is not None and len(stats) != 4:
        raise _refuse("stats are one result per seat")
    _check_settlement(settlement)
    escape = any(t.reason == "escape" for t in settlement.transfers)
    reason = "escape_penalty" if escape else "hand_settlement"
    net_points = settlement.net()
    results = list(stats) if stats is not None else [SeatResult(points=p) for p in net_points]
    seat_keys = [f"hand:{hand_id}:{account_id}" for account_id in seats]
    house_keys = [f"{key}:house_{kind}" for key in seat_keys for kind in ("points", "silver")]

    async def write() -> list[LedgerEntry]:
        balances, posted = await _lock(session, seats, seat_keys)
        if posted:
            return await _rows(session, seat_keys + house_keys)
        house = [
            (settlement.house[s] * stake, settlement.house_silver[s]) for s in range(4)
        ]
        debts = pairwise_debts(settlement.transfers, stake)
        funds = [balances[seats[s]] + sum(house[s]) for s in range(4)]
        paid = floor_payments(debts, funds)
        changes: list[_Change] = []
        for s, account_id in enumerate(seats):
            for kind, amount in zip(("points", "silver"), house[s], strict=True):
                if amount:
                    key = f"{seat_keys[s]}:house_{kind}"
                    changes.append(_Change(account_id, amount, "house_reward", key, hand_id))
        for s, account_id in enumerate(seats):
            owed = sum(v for (p, _), v in debts.items() if p == s)
            due = sum(v for (_, c), v in debts.items() if c == s)
            out = sum(v for (p, _), v in paid.items() if p == s)
            got = sum(v for (_, c), v in paid.items() if c == s)
            note = _floor_note(owed, out, due, got)
            changes.append(_Change(account_id, got - out, reason, seat_keys[s], hand_id, note))
        entries = await _book(session, balances, changes)
        await record_hand_stats(session, variant, zip(seats, results, strict=True))
        if record is not None and await session.get(HandRecord, record.id) is None:
            session.add(record)
        return entries

    return await _once(session, seat_keys + house_keys, write)


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


async def grant_signup(session: AsyncSession, account_id: int, amount: int) -> LedgerEntry:
    """The new account's silver (RULES.md 7: 10000), once per account (key `signup:{id}`);
    a second grant returns the first. `session` must have no transaction open."""
    return await _grant_once(session, account_id, amount, "signup_grant", f"signup:{account_id}")


async def grant_house_float(session: AsyncSession, house_id: int, amount: int) -> LedgerEntry:
    """The house account's opening float (setting `house_float`), once per database (key
    `house:float`); a second grant returns the first. `session` must have no transaction
    open."""
    return await _grant_once(session, house_id, amount, "house_float", "house:float")


async def _grant_once(
    session: AsyncSession, account_id: int, amount: int, reason: str, key: str
) -> LedgerEntry:
    if not (_is_int(amount) and amount >= 0):
        raise _refuse("a grant is a whole number of silver, not below 0")

    async def write() -> list[LedgerEntry]:
        balances, posted = await _lock(session, [account_id], [key])
        if posted:
            return await _rows(session, [key])
        return await _book(session, balances, [_Change(account_id, amount, reason, key)])

    return (await _once(session, [key], write))[0]


async def adjust(
    session: AsyncSession, account_id: int, delta: int, note: str, admin_id: int
) -> LedgerEntry:
    """An operator's change of a balance: only with a reason (`note`, not empty), never below
    0 (`insufficient_balance`). Each call is a new row (key `admin:{admin_id}:{random}`).
    `session` must have no transaction open."""
    if not (isinstance(note, str) and note.strip()):
        raise _refuse("an adjustment needs a note saying why")
    if not (_is_int(delta) and delta != 0):
        raise _refuse("an adjustment is a whole number of silver other than 0")
    change = _Change(
        account_id, delta, "admin_adjustment", f"admin:{admin_id}:{uuid.uuid4().hex}",
        note=note.strip(),
    )
    async with _writing(session):
        balances, _ = await _lock(session, [account_id], [change.key])
        (entry,) = await _book(session, balances, [change])
    return entry


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


ADJUSTMENT_KEY_LENGTH = 64  # the longest idempotency key an operator gives an adjustment


async def adjust_once(
    session: AsyncSession, account_id: int, delta: int, note: str, admin_id: int, key: str
) -> Posted:
    """`adjust` under the operator's idempotency key: the row's key is
    `admin:{admin_id}:key:{key}`, so one administrator's key makes at most one row. A key
    already posted changes nothing and returns its row (`created` False) whatever it holds:
    the caller compares it with the request. `session` must have no transaction open."""
    if not (isinstance(note, str) and note.strip()):
        raise _refuse("an adjustment needs a note saying why")
    if not (_is_int(delta) and delta != 0):
        raise _refuse("an adjustment is a whole number of silver other than 0")
    if not (isinstance(key, str) and 0 < len(key) <= ADJUSTMENT_KEY_LENGTH):
        raise _refuse(f"an idempotency key is 1 to {ADJUSTMENT_KEY_LENGTH} characters")
    change = _Change(
        account_id, delta, "admin_adjustment", f"admin:{admin_id}:key:{key}", note=note.strip()
    )
    made: list[bool] = []

    async def write() -> list[LedgerEntry]:
        balances, posted = await _lock(session, [account_id], [change.key])
        if posted:
            return await _rows(session, [change.key])
        entries = await _book(session, balances, [change])
        made.append(True)  # after the insert: a concurrent winner's key fails it first
        return entries

    (entry,) = await _once(session, [change.key], write)
    return Posted(entry, bool(made))


async def ledger_page(
    session: AsyncSession, account_id: int, *, limit: int, before_id: int | None
) -> list[LedgerEntry]:
    """One page of the account's rows, newest first: at most `limit` rows with ids below
    `before_id` (keyset pagination: the next page passes the last row's id)."""
    if not (_is_int(limit) and 1 <= limit <= 500):
        raise _refuse("a page holds 1 to 500 rows")
    query = select(LedgerEntry).where(LedgerEntry.account_id == account_id)
    if before_id is not None:
        query = query.where(LedgerEntry.id < before_id)
    async with in_transaction(session):
        rows = await session.execute(query.order_by(LedgerEntry.id.desc()).limit(limit))
        return list(rows.scalars())

"""Posting to the silver ledger (银两): the row-and-balance primitives every change goes
through, and the single-account changes built on them (the signup grant, the house's float,
an operator's adjustment). A row and its account's new balance are written in the same
transaction; a row's idempotency key is unique, so posting the same change twice is a no-op.
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
    Sequence,
)
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import cast
from weakref import WeakKeyDictionary

from sqlalchemy import BigInteger, Table, bindparam, exists, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import REASONS, Account, LedgerEntry


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


# --- grants and adjustments -----------------------------------------------------------------


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



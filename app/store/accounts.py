"""Account look-ups and creation (账号), inside the caller's transaction.

Rules:
- a username is shown as typed and is unique by its key (`username_key`: NFKC, casefolded,
  NFKC again; a unique index): `acc1_x`, `ACC1_X` and `ａｃｃ１＿ｘ` are one name, which any
  of its forms finds (`by_username`); `create` raises `DuplicateUsername` when the key is
  taken, also when a concurrent insert wins the race. (Accounts older than the key that
  differed in case only: see migrations/versions/0004_username_key.py);
- a banned account (封号) cannot log in, its tokens stop working, and `is_banned` is what the
  tables check before seating it;
- the admin search matches a prefix of the key (so any case or form of a name), with `%` and
  `_` taken literally.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Account, username_key


class DuplicateUsername(Exception):
    """The username is taken."""


async def by_id(session: AsyncSession, account_id: int) -> Account | None:
    return await session.get(Account, account_id)


async def by_username(session: AsyncSession, username: str) -> Account | None:
    query = select(Account).where(Account.username_key == username_key(username))
    return (await session.execute(query)).scalar_one_or_none()


async def create(
    session: AsyncSession, username: str, password_hash: str, role: str = "player"
) -> Account:
    """A new account with a zero balance (the signup grant is a ledger entry, posted next)."""
    if await by_username(session, username) is not None:
        raise DuplicateUsername(username)
    account = Account(username=username, password_hash=password_hash, role=role, balance=0)
    try:
        async with session.begin_nested():
            session.add(account)
            await session.flush()
    except IntegrityError as exc:
        raise DuplicateUsername(username) from exc
    return account


async def is_banned(session: AsyncSession, account_id: int) -> bool:
    """True for a banned account, and for one that does not exist."""
    banned = (
        await session.execute(select(Account.banned).where(Account.id == account_id))
    ).scalar_one_or_none()
    return banned is None or bool(banned)


async def search(session: AsyncSession, prefix: str, *, limit: int, offset: int) -> list[Account]:
    """Accounts whose username starts with `prefix` in any case or form, by key."""
    query = select(Account)
    if prefix:
        key = username_key(prefix)
        query = query.where(Account.username_key.startswith(key, autoescape=True))
    query = query.order_by(Account.username_key, Account.id).limit(limit).offset(offset)
    return list((await session.execute(query)).scalars().all())

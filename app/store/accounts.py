"""Account look-ups and creation (账号), inside the caller's transaction.

Rules:
- a username is unique (exactly as typed); `create` raises `DuplicateUsername` when taken,
  also when a concurrent insert wins the race;
- a banned account (封号) cannot log in, its tokens stop working, and `is_banned` is what the
  tables check before seating it;
- the admin search matches a username prefix, ignoring case, with `%` and `_` taken literally.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import Account


class DuplicateUsername(Exception):
    """The username is taken."""


async def by_id(session: AsyncSession, account_id: int) -> Account | None:
    return await session.get(Account, account_id)


async def by_username(session: AsyncSession, username: str) -> Account | None:
    return (
        await session.execute(select(Account).where(Account.username == username))
    ).scalar_one_or_none()


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
    """Accounts whose username starts with `prefix` (any case), by username."""
    query = select(Account)
    if prefix:
        query = query.where(
            func.lower(Account.username).startswith(prefix.lower(), autoescape=True)
        )
    query = query.order_by(Account.username, Account.id).limit(limit).offset(offset)
    return list((await session.execute(query)).scalars().all())

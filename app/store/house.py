"""The house (庄家的银库): the account that funds the bots, and the silver supply.

Rules (docs/architecture.md, "House bots and the silver supply"):
- the house is one account, `house-bank` (a name no player can register), made with 0
  silver on first use (an operator funding it, a bot fill, the supply report), role
  `house`, banned (it never logs in, sits or appears on a leaderboard), no usable password;
- neither the house nor its bots are on the leaderboards (`on_leaderboards`);
  only an operator funds it: its opening float (`open_house`) and admin adjustments
  (POST /admin/house/adjust);
- bots (`bot-<n>`) are the house's players: a bounded pool of accounts whose silver comes
  from the house account and goes back to it (`ledger.level_bots`, reason `house_funding`);
- each tournament holds its fees in an account of its own (`event-<id>`, role `house`,
  banned, no usable password): silver in it is players' fees waiting for the prizes or a
  refund, reported apart (`events`);
- silver is made only by grants (signup grants, and the house's opening float: the setting
  `house_float`, granted once per database by `python -m app`), admin adjustments and
  house rewards (湖州); every other reason moves it between accounts. `supply` reports the
  total and where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, ScalarSelect, and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import SQLCoreOperations

from app.settings import Settings
from app.store import accounts, ledger
from app.store.db import Database
from app.store.models import Account, LedgerEntry, Tournament, TournamentEntry

HOUSE_USERNAME = "house-bank"
HOUSE_ROLE = "house"
BOT_PREFIX = "bot-"
EVENT_PREFIX = "event-"  # a tournament's account, holding its fees (app/tournaments/money.py)
NO_PASSWORD = "!"  # not an Argon2 hash: no password ever matches it
GRANTS = ("signup_grant", "house_float")
MINTING = (*GRANTS, "admin_adjustment", "house_reward")
"""The ledger reasons that add silver to the system (or, an adjustment below 0, take it)."""


async def account_id(session: AsyncSession) -> int:
    """The house account's id, inside the caller's transaction; the first call makes it,
    with 0 silver (a row, not schema: no migration, and a database without bots has none)."""
    found = (
        await session.execute(select(Account.id).where(Account.username == HOUSE_USERNAME))
    ).scalar_one_or_none()
    if found is not None:
        return int(found)
    try:
        account = await accounts.create(session, HOUSE_USERNAME, NO_PASSWORD, role=HOUSE_ROLE)
    except accounts.DuplicateUsername:  # made by a concurrent request
        return await account_id(session)
    account.banned = True
    await session.flush()
    return account.id


@dataclass(frozen=True, slots=True)
class Bot:
    id: int
    balance: int
    banned: bool


def is_bot_name(username: str) -> bool:
    """A bot's account name (`bot-<n>`: a name no player can register)."""
    return username.startswith(BOT_PREFIX)


def on_leaderboards() -> ColumnElement[bool]:
    """The accounts a leaderboard ranks: people in good standing. Not a banned account, not
    the house account (banned anyway, and its float is no player's silver) and not its
    bots (their silver is the house's, lent to a table)."""
    return and_(
        Account.banned.is_(False),
        Account.role != HOUSE_ROLE,
        ~Account.username.startswith(BOT_PREFIX),
    )


def ranked(username: str, role: str, banned: bool) -> bool:
    """`on_leaderboards` for one account already read."""
    return not banned and role != HOUSE_ROLE and not is_bot_name(username)


async def bots(session: AsyncSession, offset: int = 0, limit: int | None = None) -> list[Bot]:
    """The bot accounts (the pool, and any beyond its bound), oldest first: every one, or
    `limit` of them from the `offset`-th."""
    rows = await session.execute(
        select(Account.id, Account.balance, Account.banned)
        .where(Account.username.startswith(BOT_PREFIX))
        .order_by(Account.id)
        .offset(offset)
        .limit(limit)
    )
    return [Bot(r.id, r.balance, r.banned) for r in rows]


async def bot_count(session: AsyncSession) -> int:
    """How many bot accounts there are (the pool, and any beyond its bound)."""
    query = select(func.count()).select_from(Account).where(Account.username.startswith(BOT_PREFIX))
    return int((await session.execute(query)).scalar_one())


async def in_running_events(session: AsyncSession, bots: Sequence[int]) -> set[int]:
    """Which of `bots` are entered in a tournament that is running: the event seats them
    round after round, so no table of the lobby may take them meanwhile."""
    if not bots:
        return set()
    rows = await session.execute(
        select(TournamentEntry.account_id)
        .join(Tournament, Tournament.id == TournamentEntry.tournament_id)
        .where(TournamentEntry.account_id.in_(bots), TournamentEntry.bot.is_(True),
               Tournament.status == "running"))
    return {int(a) for a in rows.scalars()}


async def new_bot(session: AsyncSession, known: int) -> int:
    """A new bot account (`bot-<n>`, the first free n after `known`), with 0 silver, in a
    transaction of its own (`session` must have none open)."""
    number = known
    while True:
        number += 1
        try:
            async with session.begin():
                bot = await accounts.create(session, f"{BOT_PREFIX}{number}", NO_PASSWORD)
                return bot.id
        except accounts.DuplicateUsername:
            continue  # made by a concurrent request, or a gap: take the next number


@dataclass(frozen=True, slots=True)
class Supply:
    """Silver in the system: where it is, and where it came from. `unexplained` is
    total - (grants + adjustments + rewards): 0 unless silver was made or lost."""

    total: int
    house: int
    players: int
    bots: int
    events: int
    grants: int
    adjustments: int
    rewards: int
    unexplained: int
    bot_accounts: int


def _sum(column: SQLCoreOperations[int], *where: ColumnElement[bool]) -> ScalarSelect[Any]:
    return select(func.coalesce(func.sum(column), 0)).where(*where).scalar_subquery()


async def supply(session: AsyncSession) -> Supply:
    """The supply, read in one statement (so one snapshot: a settlement committing meanwhile
    is either wholly in it or not at all)."""
    is_house = Account.username == HOUSE_USERNAME
    is_bot = Account.username.startswith(BOT_PREFIX)
    is_event = Account.username.startswith(EVENT_PREFIX)
    row = (
        await session.execute(
            select(
                _sum(Account.balance, is_house),
                _sum(Account.balance, is_bot),
                _sum(Account.balance, ~is_house, ~is_bot, ~is_event),
                _sum(Account.balance, is_event),
                _sum(LedgerEntry.delta, LedgerEntry.reason.in_(GRANTS)),
                _sum(LedgerEntry.delta, LedgerEntry.reason == "admin_adjustment"),
                _sum(LedgerEntry.delta, LedgerEntry.reason == "house_reward"),
                select(func.count()).select_from(Account).where(is_bot).scalar_subquery(),
            )
        )
    ).one()
    house, bot_silver, players, events, grants, adjustments, rewards, bot_accounts = map(
        int, row)
    total = house + bot_silver + players + events
    return Supply(
        total=total,
        house=house,
        players=players,
        bots=bot_silver,
        events=events,
        grants=grants,
        adjustments=adjustments,
        rewards=rewards,
        unexplained=total - grants - adjustments - rewards,
        bot_accounts=bot_accounts,
    )


async def open_house(settings: Settings) -> None:
    """Grant the house its opening float (setting `house_float`) unless this database had
    it already: a fresh install can seat bots at once; 0 leaves the funding to operators."""
    if settings.house_float <= 0:
        return
    db = Database.connect(settings.database_url)
    try:
        async with db.sessions() as session:
            async with session.begin():
                house_id = await account_id(session)
            await ledger.grant_house_float(session, house_id, settings.house_float)
    finally:
        await db.close()

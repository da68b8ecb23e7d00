"""A tournament's silver (比赛场的银两), a thin shell over the ledger (docs/tournaments.md,
"Registering and money"). Each event holds its fees in an account of its own, `event-<id>`
(a name no player can register, role `house`, banned, no usable password, made with 0
silver), reported apart by `GET /admin/silver` (`events`).

Every movement is a pair of ledger rows that sum to 0, under keys that make a retry move
nothing twice:
- `tournament_fee`, player -> event: `tournament:{id}:fee:{account}:{n}` (and `...:event`),
  n the account's n-th registration to the event (so unregistering and registering again
  is a new fee, and a retried registration is not);
- `tournament_refund`, event -> player: `tournament:{id}:refund:{account}:{n}`, the n-th
  fee paid back (unregistering or the event cancelled: whichever comes first);
- for the prizes (`pay_prizes`): `tournament_guarantee` house -> event
  (`tournament:{id}:guarantee`), `tournament_rake` event -> house (`tournament:{id}:rake`),
  `tournament_prize` event -> player (`tournament:{id}:prize:{account}`).
A fee of 0 moves nothing and writes no row.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection, Sequence

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import accounts, house, ledger
from app.store.models import LedgerEntry, Tournament, TournamentEntry
from app.tournaments import prizes


def event_name(tournament_id: int) -> str:
    return f"{house.EVENT_PREFIX}{tournament_id}"


async def open_account(session: AsyncSession) -> int:
    """A new event account with 0 silver, in the caller's transaction, under a name of its
    own until the event has an id (`name_account`)."""
    made = await accounts.create(
        session, f"{house.EVENT_PREFIX}new-{secrets.token_hex(8)}", house.NO_PASSWORD,
        role=house.HOUSE_ROLE)
    made.banned = True
    await session.flush()
    return made.id


async def name_account(session: AsyncSession, tournament: Tournament) -> None:
    """Name the event's account `event-<id>` once the event has its id."""
    account = await accounts.by_id(session, tournament.account_id)
    assert account is not None
    account.username = event_name(tournament.id)
    await session.flush()


def _key(tournament_id: int, what: str) -> str:
    return f"tournament:{tournament_id}:{what}"


async def pay_fee(session: AsyncSession, tournament: Tournament, account_id: int, n: int
                  ) -> list[LedgerEntry]:
    """The n-th registration's fee, player -> event, in the caller's transaction
    (`insufficient_balance`: the player cannot pay it; the caller rolls back)."""
    key = _key(tournament.id, f"fee:{account_id}:{n}")
    return await _pair(session, account_id, tournament.account_id, tournament.fee,
                       "tournament_fee", key)


async def refund_fee(session: AsyncSession, tournament: Tournament, account_id: int, n: int
                     ) -> list[LedgerEntry]:
    """The n-th registration's fee back, event -> player, in the caller's transaction."""
    key = _key(tournament.id, f"refund:{account_id}:{n}")
    return await _pair(session, tournament.account_id, account_id, tournament.fee,
                       "tournament_refund", key)


async def refund_fees(session: AsyncSession, tournament: Tournament,
                      paid: Sequence[tuple[int, int]]) -> list[LedgerEntry]:
    """Every fee in `paid` (account, n) back at once (a cancel), in the caller's
    transaction."""
    if tournament.fee == 0 or not paid:
        return []
    moves = []
    for account_id, n in paid:
        moves += _moves(tournament.account_id, account_id, tournament.fee, "tournament_refund",
                        _key(tournament.id, f"refund:{account_id}:{n}"))
    return (await ledger.transfer(session, moves)).entries


def _moves(payer: int, payee: int, amount: int, reason: str, key: str) -> list[ledger.Move]:
    """One movement as its pair of rows: the payer's under `key:from`, the payee's under
    `key`."""
    return [ledger.Move(payer, -amount, reason, f"{key}:from"),
            ledger.Move(payee, amount, reason, key)]


async def _pair(session: AsyncSession, payer: int, payee: int, amount: int, reason: str,
                key: str) -> list[LedgerEntry]:
    if amount == 0:
        return []
    return (await ledger.transfer(session, _moves(payer, payee, amount, reason, key))).entries


class PrizesRefused(Exception):
    """The prizes cannot be paid: `code` is the API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


async def pay_prizes(
    session: AsyncSession, tournament: Tournament, places: Sequence[int], bots: Collection[int]
) -> ledger.Transferred:
    """Pay a running event out and finish it, in one transaction of its own (`session` must
    have none open): the house's guarantee in, its rake out, every prize to the players by
    `places` (every entrant number in final order; `bots`: the house bots' numbers), each
    entry's `prize` set (0 for a player without one), the event `finished` (so it can no
    longer be cancelled). The event's account ends at exactly 0. Paid before: nothing moves
    and the rows paid are returned (`created` False). Refused (`PrizesRefused`, nothing
    moved): `house_funds_low` (the house cannot pay the guarantee), `validation_error` (the
    event is not running, its account does not hold every player's fee, or the places are
    not its entrants)."""
    shares = json.loads(tournament.prize_shares)
    players = [e for e in places if e not in bots]
    pool = prizes.pool(tournament.fee, len(players), tournament.rake_bp, tournament.guarantee)
    if not players:
        raise PrizesRefused("validation_error", "prizes need at least one player")
    won = prizes.prizes(pool.total, shares, places, bots)
    async with ledger.writing(session):
        status = (await session.execute(select(Tournament.status).where(
            Tournament.id == tournament.id).with_for_update())).scalar_one()
        if status not in ("running", "finished"):
            raise PrizesRefused("validation_error", f"an event {status} pays no prizes")
        numbered = await _entrants(session, tournament.id)
        if sorted(places) != sorted(numbered) or not all(e in numbered for e in bots):
            raise PrizesRefused("validation_error", "the places are not the event's entrants")
        house_id = await house.account_id(session)
        key = f"tournament:{tournament.id}"
        moves = []
        if pool.guarantee:
            moves += _moves(house_id, tournament.account_id, pool.guarantee,
                            "tournament_guarantee", f"{key}:guarantee")
        if pool.rake:
            moves += _moves(tournament.account_id, house_id, pool.rake, "tournament_rake",
                            f"{key}:rake")
        for entrant, amount in won.items():
            if amount:
                account = numbered[entrant]
                moves += _moves(tournament.account_id, account, amount, "tournament_prize",
                                f"{key}:prize:{account}")
        held = await _balance(session, tournament.account_id)
        paid = await _already_paid(session, tournament.id)
        if not paid and held != pool.fees:
            raise PrizesRefused("validation_error",
                                f"the event holds {held} silver, not the {pool.fees} of its fees")
        try:
            moved = await ledger.transfer(session, moves)
        except ledger.LedgerError as refused:
            if refused.code == "insufficient_balance":
                raise PrizesRefused("house_funds_low",
                                    f"the house cannot pay the guarantee's {pool.guarantee}"
                                    ) from None
            raise
        if moved.created:
            await session.execute(update(Tournament).where(Tournament.id == tournament.id)
                                  .values(status="finished"))
            for entrant in players:
                await session.execute(
                    update(TournamentEntry)
                    .where(TournamentEntry.tournament_id == tournament.id,
                           TournamentEntry.number == entrant)
                    .values(prize=won.get(entrant, 0)))
    return moved


async def _entrants(session: AsyncSession, tournament_id: int) -> dict[int, int]:
    """Entrant number -> account, for the event's numbered entries."""
    rows = await session.execute(
        select(TournamentEntry.number, TournamentEntry.account_id)
        .where(TournamentEntry.tournament_id == tournament_id,
               TournamentEntry.number.is_not(None)))
    return {int(n): int(a) for n, a in rows.all() if n is not None}


async def _balance(session: AsyncSession, account_id: int) -> int:
    account = await accounts.by_id(session, account_id)
    assert account is not None
    await session.refresh(account)
    return account.balance


async def _already_paid(session: AsyncSession, tournament_id: int) -> bool:
    found = await session.execute(
        select(TournamentEntry.id).where(TournamentEntry.tournament_id == tournament_id,
                                         TournamentEntry.prize.is_not(None)).limit(1))
    return found.first() is not None

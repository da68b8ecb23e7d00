"""Who sits where on this node, and each account's one seat in the whole server.

- one seat per account (`take`): sitting while seated at another table is refused
  (`seated_elsewhere`, naming that table). In this process the check and the seating are
  one step of the table's inbox after the check; across a cluster the account's seat is
  claimed first (`SeatClaims.claim_seat`, atomic in Redis), one sit per account at a time in
  this process, and the claim is given back whenever the seat is freed (`moved`: sit,
  leave, a kick, an escape's end, an absent player's seat, a ban, a dissolved table);
- the index of the accounts seated at each of this node's tables, and its inverse
  (`tables_of`), kept as the tables report their seats: a sit or a socket at 2,500
  tables looks up its own tables, not every table; `seated_anywhere` tells which of some
  accounts sit anywhere (this node's index, then their claims), not reading every table.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Protocol

from app.tables.errors import RemoteRefused, TableError, seated_elsewhere


class SeatClaims(Protocol):
    """Each account's one seat across the nodes (the cluster: app/cluster/claims.py)."""

    async def claim_seat(self, account_id: int, table_id: str) -> str:
        """Claim the account's one seat for `table_id`, atomically across the nodes: the
        table the claim names afterwards (another one: the account sits there)."""
        ...

    def release_seat(self, account_id: int, table_id: str) -> None:
        """The account no longer sits at `table_id`: give its claim back (only a claim that
        names that table)."""

    async def seated(self, account_ids: Sequence[int]) -> set[int]:
        """Which of the accounts hold a seat claim on any node (one a sit would not
        replace), in one read: a cost of the accounts asked about, not of the tables."""
        ...

    async def banned(self, account_id: int) -> None:
        """An account was banned: every other node closes its socket and gives up its seats
        (`app.tables.bans.ban_here`)."""


class OneNodeClaims:
    """`SeatClaims` of a node alone: the seating's own check is enough, nothing is kept."""

    async def claim_seat(self, account_id: int, table_id: str) -> str:
        return table_id

    def release_seat(self, account_id: int, table_id: str) -> None:
        return

    async def seated(self, account_ids: Sequence[int]) -> set[int]:
        return set()  # this node's own seating is all there is

    async def banned(self, account_id: int) -> None:
        return


class SeatedTable(Protocol):
    table_id: str

    def seat_of(self, account_id: int) -> int | None: ...

    async def sit(self, account_id: int, seat: int | None, bot: bool) -> int: ...


class Seating:
    """The seated accounts of this node's tables (`find`: a table by id) and their claims."""

    def __init__(self, find: Callable[[str], SeatedTable | None]) -> None:
        self._find = find
        self.claims: SeatClaims = OneNodeClaims()
        # table -> the accounts seated there as last reported, and its inverse, account ->
        # those tables. A seat the actor frees is in them until the table reports it, so a
        # lookup checks the table itself (`tables_of`)
        self._held: dict[str, frozenset[int]] = {}
        self._holding: dict[int, set[str]] = {}
        self._sitting: dict[int, tuple[asyncio.Lock, int]] = {}  # account -> its sits' lock

    def tables_of(self, account_id: int) -> list[tuple[str, int]]:
        """The tables of this node the account sits at, with its seat at each."""
        found = []
        for table_id in sorted(self._holding.get(account_id, ())):
            table = self._find(table_id)
            if table is not None and (seat := table.seat_of(account_id)) is not None:
                found.append((table_id, seat))
        return found

    def table_of(self, account_id: int) -> str | None:
        """The table of this node the account sits at, if any."""
        return next((table_id for table_id, _ in self.tables_of(account_id)), None)

    def seated_accounts(self) -> set[int]:
        return {a for accounts in self._held.values() for a in accounts}

    async def seated_anywhere(self, account_ids: Sequence[int]) -> set[int]:
        """Which of the accounts sit at a table of this node or hold a seat claim on any
        node: a cost of the accounts asked about (`unavailable` when the claims cannot be
        read)."""
        here = {a for a in account_ids if self.table_of(a) is not None}
        rest = [a for a in account_ids if a not in here]
        try:
            return here | (await self.claims.seated(rest) if rest else set())
        except RemoteRefused as refused:
            raise TableError(refused.code, refused.message) from None

    def moved(self, table_id: str, before: frozenset[int], now: frozenset[int]) -> None:
        """The table's seated accounts went from `before` to `now`: those who left give up
        their seat claim."""
        self.hold(table_id, now)
        for account in sorted(before - now):
            self.claims.release_seat(account, table_id)

    def hold(self, table_id: str, accounts: frozenset[int] | None) -> None:
        """The table's seated accounts are `accounts` (None: the table is gone here; its
        claims are kept for whoever holds it next), as claimed already."""
        before = self._held.pop(table_id, frozenset())
        if accounts is not None:
            self._held[table_id] = accounts
        now = accounts or frozenset()
        for account in before - now:
            tables = self._holding.get(account)
            if tables is not None:
                tables.discard(table_id)
                if not tables:
                    del self._holding[account]
        for account in now - before:
            self._holding.setdefault(account, set()).add(table_id)

    def release(self, table_id: str) -> None:
        """The table closed (its seats freed): every claim it held goes back."""
        for account in sorted(self._held.get(table_id, frozenset())):
            self.claims.release_seat(account, table_id)
        self.hold(table_id, None)

    async def take(
        self, table: SeatedTable, account_id: int, seat: int | None, bot: bool
    ) -> int:
        """Seat the account at `table`, its one seat in the whole server claimed first
        (`seated_elsewhere` when it holds one at another table, on any node); the seat."""
        table_id = table.table_id
        async with self._one_sit_at_a_time(account_id):
            elsewhere = self.table_of(account_id)
            if elsewhere is not None and elsewhere != table_id:
                raise seated_elsewhere(elsewhere)
            try:
                claimed = await self.claims.claim_seat(account_id, table_id)
            except RemoteRefused as refused:  # the claim could not be made
                raise TableError(refused.code, refused.message) from None
            if claimed != table_id:
                raise seated_elsewhere(claimed)
            try:
                return await table.sit(account_id, seat, bot)
            except TableError:
                if table.seat_of(account_id) is None:  # not seated here: not claimed
                    self.claims.release_seat(account_id, table_id)
                raise

    @asynccontextmanager
    async def _one_sit_at_a_time(self, account_id: int) -> AsyncIterator[None]:
        lock, users = self._sitting.get(account_id, (asyncio.Lock(), 0))
        self._sitting[account_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._sitting[account_id]
            if users <= 1:
                del self._sitting[account_id]
            else:
                self._sitting[account_id] = (lock, users - 1)

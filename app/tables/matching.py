"""Quick match (快速开始): the queues that seat players at new tables, one queue per variant
and level (`queue_name`).

- `choose` and `settle` are pure: which waiters of a queue form a table now, and who of a
  group can sit. The matcher (app/api/matcher.py) does the rest: balances, seats, bots.
- `MatchQueue` is what the matcher and the API ask of the queues; `MemoryMatchQueue` is one
  process's (no Redis) and `app.cluster.matchqueue.RedisMatchQueue` the cluster's. Both keep
  the same rules:
  - a player waits in one queue at a time; joining another queue moves them to its end,
    joining the same queue again keeps their place;
  - the queue's order is the time of joining (`since`, strictly increasing within a queue);
    a group that could not be seated goes back with its own `since`, so in its place;
  - `take` removes a group from its queue in one atomic step, only if every member is still
    there in the same place: with several nodes, exactly one of them forms each table. The
    group is then `matching` until the matcher `finish`es it (`seated`) or puts it back;
  - the queue's clock is in milliseconds (the cluster's is Redis's, shared by every node);
  - what happened to a player who left a queue other than by their own leave (seated at a
    table, or removed and why) is kept for `OUTCOME_MS` for them to read; a `matching` state
    older than `STALE_MATCHING_MS` (its node died while forming) counts as over.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

QueueState = Literal["idle", "queued", "matching", "seated"]
QUEUE_STATES: dict[str, str] = {
    "idle": "in no queue (`reason`: why the server took the player out, if it did lately)",
    "queued": "waiting in the queue of `variant` and `level`",
    "matching": "a table is being formed for this player and others; in a moment `seated`, "
    "or back in the queue in the same place",
    "seated": "seated at `table_id` by quick match (announced over the WebSocket as `seated`)",
}

QueueReason = Literal[
    "insufficient_balance", "seated_elsewhere", "banned", "disconnected", "level_closed",
    "no_bots_free", "house_funds_low", "too_many_bots",
]
QUEUE_REASONS: dict[str, str] = {
    "insufficient_balance": "taken out of the queue: the player's silver fell below the "
    "level's minimum before a table was formed",
    "seated_elsewhere": "taken out of the queue: the player sat down at another table",
    "banned": "taken out of the queue: the account was banned",
    "disconnected": "taken out of the queue: no table socket of the player was open for the "
    "grace period (QUICK_MATCH_GRACE_SECONDS)",
    "level_closed": "taken out of the queue: an administrator closed or removed the level",
    "no_bots_free": "still queued: bots should fill the table, but every bot of the house is "
    "seated; tried again shortly",
    "house_funds_low": "still queued: bots should fill the table, but the house cannot fund "
    "them; an operator must fund it",
    "too_many_bots": "still queued: bots should fill the table, but the first player of the "
    "group called the hourly most of bot seats (BOT_SEATS_PER_HOUR)",
}

SEATS = 4
OUTCOME_MS = 300_000  # how long a player can read what happened to their queueing
STALE_MATCHING_MS = 30_000  # a group `matching` this long was lost with its node


def queue_name(variant: str, level: str) -> str:
    """One queue per variant and level (a level's key has no `|`)."""
    return f"{variant}|{level}"


def split_name(name: str) -> tuple[str, str]:
    variant, _, level = name.partition("|")
    return variant, level


# --- the pure part ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Waiter:
    """A player in a queue, as the matcher sees them now."""

    account: int
    since: int  # when they joined (ms, the queue's clock): their place in the queue
    seen: int  # when a table socket of theirs was last seen open (or when they joined)
    present: bool  # a table socket of theirs is open now (on any node)


@dataclass(frozen=True, slots=True)
class Choice:
    """What to do with a queue now: the group to seat (in queue order; fewer than four when
    `fill`: house bots take the other seats) and the waiters to remove as `disconnected`."""

    group: tuple[Waiter, ...] = ()
    fill: bool = False
    gone: tuple[Waiter, ...] = ()


def choose(waiters: Sequence[Waiter], now: int, fill_after_ms: int, grace_ms: int) -> Choice:
    """The table a queue forms now.

    - Only present players are seated (a table socket open): an absent one is passed over
      and keeps their place for `grace_ms` after they were last seen, then is `gone`.
    - Four present players: the first four, in queue order.
    - Fewer, and the first of them has waited `fill_after_ms`: all of them, with bots.
    """
    ordered = sorted(waiters, key=lambda w: (w.since, w.account))
    gone = tuple(w for w in ordered if not w.present and now - w.seen > grace_ms)
    present = [w for w in ordered if w.present]
    if len(present) >= SEATS:
        return Choice(tuple(present[:SEATS]), False, gone)
    if present and now - present[0].since >= fill_after_ms:
        return Choice(tuple(present), True, gone)
    return Choice((), False, gone)


@dataclass(frozen=True, slots=True)
class Settled:
    """A group after the checks at seating: who sits, who goes back to the queue (in their
    places) and who is dropped, with why."""

    seat: tuple[Waiter, ...]
    back: tuple[Waiter, ...]
    dropped: tuple[tuple[Waiter, str], ...]


def settle(group: Sequence[Waiter], refused: Mapping[int, str]) -> Settled:
    """`refused`: the accounts of the group that cannot sit, and why (a `QueueReason`). None
    refused: the whole group sits. Otherwise nobody sits: the refused are dropped and the
    others go back to their places in the queue, where the next look decides again (with
    four others, or the bots' wait counted from their own joining)."""
    dropped = tuple((w, refused[w.account]) for w in group if w.account in refused)
    if not dropped:
        return Settled(tuple(group), (), ())
    return Settled((), tuple(w for w in group if w.account not in refused), dropped)


def bots_due(first_since: int | None, now: int, fill_after_ms: int) -> int | None:
    """Milliseconds until bots fill the queue's first table (0: due now); None: nobody waits."""
    if first_since is None:
        return None
    return max(0, first_since + fill_after_ms - now)


# --- the queues -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's quick match as it is now."""

    account: int
    state: QueueState
    queue: str | None = None  # the queue (queued, matching) or the last one (seated, idle)
    since: int | None = None  # when they joined it
    position: int | None = None  # 1: next; queued only
    waiting: int = 0  # players in that queue now
    first_since: int | None = None  # the first waiter's `since`: the bots' clock
    reason: str | None = None  # a `QueueReason`
    table_id: str | None = None  # seated
    now: int = 0  # the queue's clock when read


class Forming(Exception):
    """A table is being formed for the player: they can neither leave nor move now (the API's
    `match_forming`)."""


class MatchQueue(Protocol):
    """The queues, as the matcher and the API use them."""

    async def now(self) -> int:
        """The queue's clock, in milliseconds."""
        ...

    async def join(self, account: int, name: str) -> Standing:
        """Queue the account at the end of `name`, leaving any other queue; already in
        `name`: nothing changes. `Forming` while a table is formed for it."""
        ...

    async def leave(self, account: int) -> None:
        """Take the account out of its queue and forget what it was last told. `Forming`
        while a table is formed for it."""
        ...

    async def standing(self, account: int) -> Standing:
        ...

    async def counts(self) -> dict[str, int]:
        """Players waiting per queue (queues with nobody are left out)."""
        ...

    async def look(self, name: str) -> list[Waiter]:
        """The queue's waiters in order, with who has a table socket open now; those who do
        are seen now (their grace starts again)."""
        ...

    async def take(self, name: str, group: Sequence[Waiter]) -> bool:
        """Atomically: if every member is still queued in `name` in the same place, take
        them out (`matching`) and say True; otherwise change nothing and say False."""
        ...

    async def put_back(self, name: str, waiters: Sequence[Waiter], reason: str | None = None
                       ) -> None:
        """`matching` players back into `name` in their own places (told `reason`)."""
        ...

    async def remove(self, name: str, waiters: Sequence[Waiter], reason: str) -> None:
        """Take waiters still queued in `name` in the same place out, telling them why."""
        ...

    async def finish(self, accounts: Sequence[int], *, table_id: str | None = None,
                     reason: str | None = None) -> None:
        """End `matching`: seated at `table_id`, or (none) out of the queue for `reason`."""
        ...

    async def tell(self, name: str, waiters: Sequence[Waiter], reason: str | None) -> None:
        """Tell waiters still queued in `name` why no table was formed for them (None: clear)."""
        ...


@dataclass(slots=True)
class _Record:
    state: QueueState
    queue: str
    since: int
    seen: int
    at: int  # when the state was set
    reason: str | None = None
    table_id: str | None = None


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class MemoryMatchQueue:
    """The queues of one process (no Redis). Every method runs without awaiting anything,
    so each is one step of the event loop: atomic."""

    def __init__(self, present: Callable[[int], bool], clock: Callable[[], int] = wall_ms
                 ) -> None:
        self._present = present  # a table socket of the account is open (on this node)
        self._clock = clock
        self._queues: dict[str, dict[int, int]] = {}  # queue -> account -> since
        self._records: dict[int, _Record] = {}

    async def now(self) -> int:
        return self._clock()

    def _record(self, account: int, now: int) -> _Record | None:
        """The account's record, forgetting an outcome or a `matching` past its time."""
        record = self._records.get(account)
        if record is None:
            return None
        expired = (
            record.state in ("idle", "seated") and now - record.at > OUTCOME_MS
            or record.state == "matching" and now - record.at > STALE_MATCHING_MS
        )
        if expired:
            del self._records[account]
            return None
        return record

    def _standing(self, account: int, now: int) -> Standing:
        record = self._record(account, now)
        if record is None:
            return Standing(account, "idle", now=now)
        queue = self._queues.get(record.queue, {})
        order = sorted(queue.items(), key=lambda item: (item[1], item[0]))
        position = next((n for n, (a, _) in enumerate(order, 1) if a == account), None)
        return Standing(
            account, record.state, record.queue, record.since,
            position if record.state == "queued" else None, len(queue),
            order[0][1] if order else None, record.reason, record.table_id, now,
        )

    async def join(self, account: int, name: str) -> Standing:
        now = self._clock()
        record = self._record(account, now)
        if record is not None and record.state == "matching":
            raise Forming()
        if record is not None and record.state == "queued":
            if record.queue == name:
                return self._standing(account, now)
            self._out(record.queue, account)
        queue = self._queues.setdefault(name, {})
        since = max([now, *(s + 1 for s in queue.values())])
        queue[account] = since
        self._records[account] = _Record("queued", name, since, now, now)
        return self._standing(account, now)

    def _out(self, name: str, account: int) -> None:
        queue = self._queues.get(name, {})
        queue.pop(account, None)
        if not queue:
            self._queues.pop(name, None)

    async def leave(self, account: int) -> None:
        record = self._record(account, self._clock())
        if record is None:
            return
        if record.state == "matching":
            raise Forming()
        if record.state == "queued":
            self._out(record.queue, account)
        del self._records[account]

    async def standing(self, account: int) -> Standing:
        return self._standing(account, self._clock())

    async def counts(self) -> dict[str, int]:
        return {name: len(queue) for name, queue in self._queues.items() if queue}

    async def look(self, name: str) -> list[Waiter]:
        now = self._clock()
        waiters = []
        for account, since in sorted(self._queues.get(name, {}).items(),
                                     key=lambda item: (item[1], item[0])):
            record = self._records[account]
            present = self._present(account)
            if present:
                record.seen = now
            waiters.append(Waiter(account, since, record.seen, present))
        return waiters

    def _in_place(self, name: str, waiter: Waiter) -> bool:
        record = self._records.get(waiter.account)
        return (
            self._queues.get(name, {}).get(waiter.account) == waiter.since
            and record is not None and record.state == "queued"
        )

    async def take(self, name: str, group: Sequence[Waiter]) -> bool:
        if not group or not all(self._in_place(name, w) for w in group):
            return False
        now = self._clock()
        for waiter in group:
            self._out(name, waiter.account)
            record = self._records[waiter.account]
            record.state, record.at = "matching", now
        return True

    async def put_back(self, name: str, waiters: Sequence[Waiter], reason: str | None = None
                       ) -> None:
        now = self._clock()
        for waiter in waiters:
            record = self._records.get(waiter.account)
            if record is None or record.state != "matching" or record.queue != name:
                continue
            self._queues.setdefault(name, {})[waiter.account] = waiter.since
            self._records[waiter.account] = replace(
                record, state="queued", at=now, reason=reason, seen=max(record.seen, now)
            )

    async def remove(self, name: str, waiters: Sequence[Waiter], reason: str) -> None:
        now = self._clock()
        for waiter in waiters:
            if self._in_place(name, waiter):
                self._out(name, waiter.account)
                record = self._records[waiter.account]
                record.state, record.at, record.reason = "idle", now, reason

    async def finish(self, accounts: Sequence[int], *, table_id: str | None = None,
                     reason: str | None = None) -> None:
        now = self._clock()
        for account in accounts:
            record = self._records.get(account)
            if record is None or record.state != "matching":
                continue
            record.state = "seated" if table_id is not None else "idle"
            record.at, record.table_id, record.reason = now, table_id, reason

    async def tell(self, name: str, waiters: Sequence[Waiter], reason: str | None) -> None:
        for waiter in waiters:
            if self._in_place(name, waiter):
                self._records[waiter.account].reason = reason

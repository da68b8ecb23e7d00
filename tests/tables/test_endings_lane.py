"""Hands' endings take turns, a few tables per pass of the event loop (`ENDINGS_PER_PASS`,
app/tables/lane.py): when many hands end at once, another table's turn is not held behind
all of them (docs/architecture.md, "Settlement bursts"); every ending still happens, in the
order it came (a stored result before an escape, an escape before a deal), and is stored
and shown."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from app.protocol import EventMessage, PromptMessage, ServerMessage
from app.protocol.actions import to_rules_action
from app.store.db import Database
from app.tables.lane import Ending, Lane
from app.tables.messages import Leave, PlayerAction
from app.tables.registry import TableRegistry
from app.tables.timers import Timers
from tests.funded import funded_accounts
from tests.outage import check_hands_paid, shown_ended
from tests.waits import until

TIMERS = Timers(discard=300, claim=300, decide=300, ready=300)  # nobody times out


async def _passes_of(lane: Lane, callers: int, cancel: int | None = None) -> list[int]:
    """Start `callers` tasks that wait for the lane at once; the pass of the loop in which
    each got through (counted by a callback that reschedules itself every pass)."""
    passes = 0
    done: list[tuple[int, int]] = []
    loop = asyncio.get_running_loop()

    def count() -> None:
        nonlocal passes
        passes += 1
        if len(done) < callers - (cancel is not None):
            loop.call_soon(count)

    async def caller(n: int) -> None:
        await lane.turn(Ending.ESCAPE)
        done.append((n, passes))

    count()
    tasks = [asyncio.create_task(caller(n)) for n in range(callers)]
    await asyncio.sleep(0)  # every caller is at the lane
    if cancel is not None:
        tasks[cancel].cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert [n for n, _ in done] == [n for n in range(callers) if n != cancel]  # in order
    return [p for _, p in done]


async def test_the_lane_lets_a_few_through_a_pass_in_the_order_they_came() -> None:
    through = await _passes_of(Lane(3), 10)
    per_pass = {p: through.count(p) for p in through}
    assert max(per_pass.values()) == 3
    assert len(per_pass) == 4  # 3 + 3 + 3 + 1: four passes, not one


async def test_without_a_limit_nobody_waits() -> None:
    through = await _passes_of(Lane(0), 10)
    assert len(set(through)) == 1


async def test_a_caller_that_gave_up_takes_no_place() -> None:
    through = await _passes_of(Lane(2), 6, cancel=3)
    per_pass = {p: through.count(p) for p in through}
    assert sorted(per_pass.values()) == [1, 2, 2]  # 5 callers, none lost, none doubled


async def test_a_stored_result_goes_through_before_the_escapes_and_deals_that_wait() -> None:
    """The lane is full of escapes and deals when results come back from the store: the
    results are shown first (their players wait for them), then the escapes in the order
    they came, then the deals."""
    lane = Lane(2)
    order: list[str] = []

    async def caller(name: str, kind: Ending) -> None:
        await lane.turn(kind)
        order.append(name)

    queued = [("d1", Ending.DEAL), ("e1", Ending.ESCAPE), ("e2", Ending.ESCAPE),
              ("e3", Ending.ESCAPE), ("d2", Ending.DEAL), ("e4", Ending.ESCAPE)]
    tasks = [asyncio.create_task(caller(n, k)) for n, k in queued]
    await asyncio.sleep(0)  # d1 and e1 went through at once, e2 and e3 in the next pass
    tasks += [asyncio.create_task(caller(n, Ending.RESULT)) for n in ("r1", "r2", "r3")]
    await asyncio.gather(*tasks)
    assert order == ["d1", "e1", "e2", "e3", "r1", "r2", "r3", "e4", "d2"]


@dataclass
class Seat:
    """A player's connection: what it was sent, in one timeline shared by every seat."""

    name: str
    timeline: list[tuple[str, ServerMessage]]
    prompts: list[PromptMessage] = field(default_factory=list)
    messages: list[ServerMessage] = field(default_factory=list)
    closed: int | None = None

    def deliver(self, message: ServerMessage) -> None:
        self.messages.append(message)
        self.timeline.append((self.name, message))
        if isinstance(message, PromptMessage):
            self.prompts.append(message)

    def close(self, code: int) -> None:
        self.closed = code


def _kind(message: ServerMessage) -> str | None:
    return message.event.kind if isinstance(message, EventMessage) else None


@pytest.mark.parametrize("per_pass", [1, 0])
async def test_a_burst_of_escapes_does_not_hold_another_tables_turn(
    db: Database, database_url: str, per_pass: int
) -> None:
    """Ten hands end at once (a player of each leaves: an escape) while a player at an
    eleventh table discards: with one ending a pass the discard is shown after at most two
    of the escapes; with no limit (how endings ran before) after all ten. Either way every
    escaped hand ends, is stored and paid, and shows its result."""
    burst = 10
    accounts = await funded_accounts(db, 4 * (burst + 1), f"lane{per_pass}x")
    registry = TableRegistry(db.sessions, endings_per_pass=per_pass)
    timeline: list[tuple[str, ServerMessage]] = []
    seats: dict[int, Seat] = {}
    tables = []
    try:
        for t in range(burst + 1):
            live = registry.create("lishui", 1, timers=TIMERS)
            tables.append(live)
            for s in range(4):
                account = accounts[4 * t + s]
                seats[account] = Seat(f"{t}:{s}", timeline)
                registry.connections.connect(account, seats[account])
                await registry.sit(live.table_id, account, s)
        await until(lambda: all(any(seats[a].prompts for a in accounts[4 * t:4 * t + 4])
                                for t in range(burst + 1)), 30, "every table's first prompt")
        player = next(a for a in accounts[4 * burst:] if seats[a].prompts)
        prompt = seats[player].prompts[-1]
        discard = next(a for a in prompt.legal_actions if a.type == "discard")
        seat = accounts.index(player) % 4
        timeline.clear()

        for t in range(burst):  # every leave arrives together (from sockets), then the discard
            registry.require(tables[t].table_id).table.submit(Leave(0, accounts[4 * t]))
        registry.require(tables[burst].table_id).table.submit(
            PlayerAction(seat, to_rules_action(discard, seat), prompt.seq))

        def escapes_seen() -> list[str]:
            return [n for n, m in timeline if _kind(m) == "escaped" and n.endswith(":1")]

        await until(lambda: len(escapes_seen()) == burst, 30, "every escape shown")
        shown = [n for n, m in timeline if n.endswith(":1") and _kind(m) in ("escaped",)
                 or n == f"{burst}:{seat}" and _kind(m) == "discarded"]
        discarded_after = shown.index(f"{burst}:{seat}")
        if per_pass:
            assert discarded_after <= 2 * per_pass
        else:
            assert discarded_after == burst
        # in the order they left
        assert escapes_seen() == [f"{t}:1" for t in range(burst)]
        await until(lambda: len(shown_ended([seats[accounts[4 * t + 1]] for t in range(burst)]))
                    == burst, 30, "every escaped hand stored and shown")
        ended = shown_ended([seats[accounts[4 * t + 1]] for t in range(burst)])
    finally:
        await registry.stop()
    await check_hands_paid(database_url, ended.keys(), 1, ended)

"""Quick match's pure part (app/tables/matching.py): which waiters form a table, in queue
order; a group with one who cannot sit goes back in its places; and the queues of one
process keep their order, their one-queue-per-player rule and their atomic take."""

from __future__ import annotations

import pytest

from app.tables.matching import (
    Forming,
    MemoryMatchQueue,
    Waiter,
    bots_due,
    choose,
    queue_name,
    settle,
    split_name,
)

FILL = 20_000
GRACE = 15_000


def w(account: int, since: int, present: bool = True, seen: int | None = None) -> Waiter:
    return Waiter(account, since, since if seen is None else seen, present)


def accounts(waiters: tuple[Waiter, ...]) -> list[int]:
    return [x.account for x in waiters]


def test_four_present_players_form_a_table_in_the_order_they_joined() -> None:
    queue = [w(5, 400), w(1, 100), w(3, 300), w(2, 200), w(4, 350)]
    choice = choose(queue, now=1000, fill_after_ms=FILL, grace_ms=GRACE)
    assert accounts(choice.group) == [1, 2, 3, 4] and not choice.fill and not choice.gone


def test_fewer_than_four_wait_for_the_bots_until_the_first_has_waited_long_enough() -> None:
    queue = [w(1, 0), w(2, 5_000)]
    assert choose(queue, now=FILL - 1, fill_after_ms=FILL, grace_ms=GRACE).group == ()
    choice = choose(queue, now=FILL, fill_after_ms=FILL, grace_ms=GRACE)
    assert accounts(choice.group) == [1, 2] and choice.fill


def test_an_absent_player_is_passed_over_keeps_the_place_then_is_gone() -> None:
    queue = [w(1, 0, present=False, seen=1_000), w(2, 10), w(3, 20), w(4, 30), w(5, 40)]
    choice = choose(queue, now=1_000 + GRACE, fill_after_ms=FILL, grace_ms=GRACE)
    assert accounts(choice.group) == [2, 3, 4, 5] and choice.gone == ()
    later = choose(queue, now=1_001 + GRACE, fill_after_ms=FILL, grace_ms=GRACE)
    assert accounts(later.gone) == [1]
    # the bots' wait counts from the first player who is there
    alone = choose([w(1, 0, present=False), w(2, 9_000)], now=FILL, fill_after_ms=FILL,
                   grace_ms=10**9)
    assert alone.group == ()
    assert accounts(choose([w(1, 0, present=False), w(2, 9_000)], now=FILL + 9_000,
                           fill_after_ms=FILL, grace_ms=10**9).group) == [2]


def test_a_group_sits_whole_or_goes_back_in_order_less_who_cannot_sit() -> None:
    group = (w(1, 100), w(2, 200), w(3, 300), w(4, 400))
    assert settle(group, {}).seat == group
    settled = settle(group, {3: "insufficient_balance"})
    assert settled.seat == ()
    assert accounts(settled.back) == [1, 2, 4]
    assert [(x.account, why) for x, why in settled.dropped] == [(3, "insufficient_balance")]
    assert [x.since for x in settled.back] == [100, 200, 400]  # their own places


def test_bots_are_due_at_the_first_players_joining_plus_the_wait() -> None:
    assert bots_due(None, 5, FILL) is None
    assert bots_due(1_000, 6_000, FILL) == FILL - 5_000
    assert bots_due(1_000, 1_000 + FILL + 7, FILL) == 0
    assert split_name(queue_name("lishui", "beginner")) == ("lishui", "beginner")


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000

    def __call__(self) -> int:
        return self.ms


async def test_the_queues_of_one_process() -> None:
    clock = Clock()
    here: set[int] = {1, 2, 3, 4, 5}
    queue = MemoryMatchQueue(lambda a: a in here, clock)
    lishui, wenzhou = queue_name("lishui", "beginner"), queue_name("wenzhou", "beginner")
    for account in (1, 2, 3):
        standing = await queue.join(account, lishui)
    assert (standing.state, standing.position, standing.waiting) == ("queued", 3, 3)
    # joined in the same millisecond: still in order
    assert [x.since for x in await queue.look(lishui)] == [1_000, 1_001, 1_002]
    # the same queue again keeps the place; another one moves to its end
    assert (await queue.join(1, lishui)).position == 1
    clock.ms = 2_000
    moved = await queue.join(1, wenzhou)
    assert (moved.queue, moved.position, moved.waiting) == (wenzhou, 1, 1)
    assert [x.account for x in await queue.look(lishui)] == [2, 3]
    assert await queue.counts() == {lishui: 2, wenzhou: 1}

    # a take is all or nothing
    waiters = await queue.look(lishui)
    stale = [waiters[0], Waiter(3, 999, 0, True)]
    assert not await queue.take(lishui, stale)
    assert await queue.take(lishui, waiters)
    assert not await queue.take(lishui, waiters)  # taken already (another node, say)
    assert (await queue.standing(2)).state == "matching"
    with pytest.raises(Forming):
        await queue.leave(2)
    with pytest.raises(Forming):
        await queue.join(2, wenzhou)
    # back in their places, ahead of a later joiner
    await queue.join(4, lishui)
    await queue.put_back(lishui, waiters, "no_bots_free")
    assert [x.account for x in await queue.look(lishui)] == [2, 3, 4]
    assert (await queue.standing(3)).reason == "no_bots_free"

    taken = (await queue.look(lishui))[:2]
    assert await queue.take(lishui, taken)
    await queue.finish([2, 3], table_id="t1")
    seated = await queue.standing(2)
    assert (seated.state, seated.table_id) == ("seated", "t1")
    await queue.remove(lishui, await queue.look(lishui), "disconnected")
    gone = await queue.standing(4)
    assert (gone.state, gone.reason) == ("idle", "disconnected")
    assert await queue.counts() == {wenzhou: 1}
    await queue.leave(1)
    assert (await queue.standing(1)).state == "idle" and await queue.counts() == {}
    # what happened is told for a while, then forgotten
    clock.ms += 10**6
    assert (await queue.standing(2)).state == "idle"


async def test_presence_marks_a_waiter_seen() -> None:
    clock = Clock()
    here: set[int] = set()
    queue = MemoryMatchQueue(lambda a: a in here, clock)
    name = queue_name("huzhou", "advanced")
    await queue.join(7, name)
    clock.ms = 9_000
    assert (await queue.look(name))[0] == Waiter(7, 1_000, 1_000, False)
    here.add(7)
    assert (await queue.look(name))[0] == Waiter(7, 1_000, 9_000, True)

"""When a node sheds new work (app/ops/pressure.py): busy as soon as a signal is over its
limit, and taking work again only after every signal has stayed under half its limit for
the calm time, so that a node at its edge does not flap; the signals read over a window."""

from __future__ import annotations

import asyncio
import time

from app.ops.pressure import Limits, Pressure, Reading, State, judge

LIMITS = Limits(lag=0.1, settle_age=5.0, cpu=0.0, window=2.0, calm=5.0)
QUIET = Reading(lag=0.001, settle_age=0.0, cpu=0.5)


def test_a_quiet_node_takes_work() -> None:
    assert judge(State(), QUIET, LIMITS, 0.0) == State()


def test_a_late_loop_or_an_old_settlement_makes_it_busy() -> None:
    late = judge(State(), Reading(0.15, 0.0, 0.2), LIMITS, 0.0)
    assert late.busy and late.why == ("lag",)
    waiting = judge(State(), Reading(0.0, 6.0, 0.2), LIMITS, 0.0)
    assert waiting.busy and waiting.why == ("settle_age",)


def test_cpu_counts_only_when_it_has_a_limit() -> None:
    flat_out = Reading(0.0, 0.0, 1.0)
    assert not judge(State(), flat_out, LIMITS, 0.0).busy
    with_cpu = Limits(cpu=0.9)
    assert judge(State(), flat_out, with_cpu, 0.0).why == ("cpu",)


def test_it_takes_work_again_only_after_the_calm_time_under_half_the_limits() -> None:
    state = judge(State(), Reading(0.3, 0.0, 0.0), LIMITS, 0.0)
    # under the limit but over half of it: still busy, the calm time not started
    state = judge(state, Reading(0.07, 0.0, 0.0), LIMITS, 1.0)
    assert state.busy and state.calm_since is None
    state = judge(state, QUIET, LIMITS, 2.0)
    assert state.busy and state.calm_since == 2.0
    state = judge(state, QUIET, LIMITS, 6.9)
    assert state.busy
    # a spike over half restarts the calm time
    state = judge(state, Reading(0.06, 0.0, 0.0), LIMITS, 7.0)
    assert state.busy and state.calm_since is None
    state = judge(state, QUIET, LIMITS, 7.5)
    state = judge(state, QUIET, LIMITS, 12.5)
    assert state == State()


def test_the_readings_are_a_mean_over_the_window_and_the_wait_is_what_is_left() -> None:
    now = [0.0]
    cpu = [0.0]
    pressure = Pressure(LIMITS, settle_age=lambda: 1.5, clock=lambda: now[0],
                        cpu_clock=lambda: cpu[0])
    for _ in range(20):  # 1 s of 50 ms readings, each 20 ms late, using half a core
        now[0] += 0.05
        cpu[0] += 0.025
        pressure.note(0.02)
    assert round(pressure.reading.lag, 6) == 0.02
    assert round(pressure.reading.cpu, 6) == 0.5
    assert pressure.reading.settle_age == 1.5
    assert not pressure.busy
    now[0] += 1.05  # the loop held a whole second: half of the window's time was that late
    pressure.note(1.0)
    assert 0.5 < pressure.reading.lag < 0.55
    assert pressure.busy and pressure.state.why == ("lag",)
    assert pressure.retry_after() == 5  # the calm time, not started yet
    for _ in range(60):  # 3 s of quiet readings: the stall left the window after 2 s
        now[0] += 0.05
        pressure.note(0.0)
    assert pressure.busy and pressure.state.calm_since is not None
    assert pressure.retry_after() == 5  # calm for about 1 s of the 5
    for _ in range(40):
        now[0] += 0.05
        pressure.note(0.0)
    assert pressure.retry_after() == 3
    for _ in range(50):
        now[0] += 0.05
        pressure.note(0.0)
    assert not pressure.busy


async def test_the_sampler_finds_a_loop_held_up() -> None:
    """The real sampler on this loop: a coroutine that holds the loop 150 ms at a time
    (what a node with too much to do looks like from a timer) makes it busy."""
    pressure = Pressure(Limits(lag=0.05, window=1.0, calm=0.5))
    async with pressure.running(period=0.01):
        for _ in range(8):
            time.sleep(0.15)  # noqa: ASYNC251 - holding the loop is the point
            await asyncio.sleep(0.01)
        assert pressure.busy
        assert pressure.reading.lag > 0.05

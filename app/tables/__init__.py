"""The imperative shell: one actor per table, driving the pure rules core (app.rules)."""

from app.tables.actor import TableActor, tick_forever
from app.tables.clock import Clock, FakeClock, MonotonicClock
from app.tables.timers import Timers

__all__ = ["Clock", "FakeClock", "MonotonicClock", "TableActor", "Timers", "tick_forever"]

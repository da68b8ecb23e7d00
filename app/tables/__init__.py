"""The imperative shell: one actor per table, driving the pure rules core (app.rules)."""

from app.tables.actor import Table, tick_forever
from app.tables.clock import Clock, FakeClock, MonotonicClock
from app.tables.timers import Timers

__all__ = ["Clock", "FakeClock", "MonotonicClock", "Table", "Timers", "tick_forever"]

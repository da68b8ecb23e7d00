"""Tournaments (比赛场): scheduled events of Swiss rounds over many tables (docs/tournaments.md).

`swiss` and `prizes` are pure (no I/O, no clock): the draw from a committed seed, the
standings with their tie-breaks, and the prizes from the pool. The shell around them (the
event's director, its storage and its REST) is built on the table owner."""

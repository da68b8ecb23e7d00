"""Tournaments (比赛场): scheduled events of Swiss rounds over many tables (docs/tournaments.md).

`swiss` and `prizes` are pure (no I/O, no clock): the draw from a committed seed, the
standings with their tie-breaks, and the prizes from the pool. `events` stores the events
and their entries before the start (creating, registering, unregistering, cancelling) and
`money` moves their silver through each event's own account (fees, refunds, the prizes
with the rake and the guarantee); the REST is app/api/tournaments.py. The event's director,
which plays the rounds, is built on the table owner."""

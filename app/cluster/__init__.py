"""Several nodes behind one Redis: presence, table leases with fencing tokens, the table
directory, hand journals for failover, and the per-node bus that routes messages between
the node holding a client's socket and the node owning the table. See docs/cluster.md.

Without `REDIS_URL` none of this runs: `base.Network` (one process) is the default.
"""

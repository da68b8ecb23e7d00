"""Every Redis key and channel of the cluster, under one prefix (`REDIS_PREFIX`), so that
several deployments (or tests) can share one Redis database."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str = "mj:"

    def lease(self, table_id: str) -> str:
        """The owner of a table: `<node>|<token>`, with a TTL (PX)."""
        return f"{self.prefix}lease:{table_id}"

    def fence(self, table_id: str) -> str:
        """The table's fencing counter: INCR on every acquisition of its lease."""
        return f"{self.prefix}fence:{table_id}"

    def config(self, table_id: str) -> str:
        """The table's configuration as JSON (`journal.TableConfig`)."""
        return f"{self.prefix}table:{table_id}:config"

    def hand(self, table_id: str) -> str:
        """The hand in play: how it was dealt, as JSON (`journal.HandHeader`)."""
        return f"{self.prefix}table:{table_id}:hand"

    def actions(self, table_id: str) -> str:
        """The hand in play's applied actions, one JSON item per action (a list)."""
        return f"{self.prefix}table:{table_id}:actions"

    @property
    def directory(self) -> str:
        """A hash: table id -> the table's lobby summary (JSON)."""
        return f"{self.prefix}tables"

    def online(self, account_id: int) -> str:
        """The node holding the account's socket, with a TTL (presence)."""
        return f"{self.prefix}online:{account_id}"

    def seated(self, account_id: int) -> str:
        """The account's one seat in the cluster: `<table>|<ms>` (`app.cluster.claims`)."""
        return f"{self.prefix}seated:{account_id}"

    def match_queue(self, name: str) -> str:
        """A quick-match queue (`variant|level`): a sorted set, account -> joined (ms)."""
        return f"{self.prefix}qm:queue:{name}"

    def match_player(self, account_id: int) -> str:
        """An account's quick match: a hash (state, queue, since, seen, at, reason, table)."""
        return f"{self.prefix}qm:player:{account_id}"

    @property
    def match_queues(self) -> str:
        """A set: the names of the quick-match queues that may have players waiting."""
        return f"{self.prefix}qm:queues"

    @property
    def channel_prefix(self) -> str:
        return f"{self.prefix}node:"

    def channel(self, node_id: str) -> str:
        """The pub/sub channel a node listens on."""
        return f"{self.channel_prefix}{node_id}"

    def board(self, name: str) -> str:
        """A leaderboard sorted set (member: account id)."""
        return f"{self.prefix}board:{name}"

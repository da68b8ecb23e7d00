"""What this node asks of the network of nodes it may belong to (DESIGN.md, "The shell depends
downwards"): the tables declare the interface, `Network`; `LocalNetwork` is one process
alone (no `REDIS_URL`), the registry's default, where every table and every socket is
here and each hook does nothing; `app.cluster.node.RedisNetwork` is the cluster. The
tables never import the cluster: the cluster implements this.

The registry (`TableRegistry.network`) is the one handle the node's code has on the
network, so the interface is everything asked of it: by the registry (the tables' hooks
and the sockets), and by the API through the registry (the lobby's cross-node listing and
calls, admin commands on another node's table, the leaderboards' pages). Its methods are
grouped by who calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from app.protocol import ClientMessage, ServerMessage
from app.protocol.encode import Encoded

if TYPE_CHECKING:
    from app.store.ranks import BoardEntry
    from app.tables.actor import HandObserver
    from app.tables.admin import AdminOp
    from app.tables.messages import HandRecordData
    from app.tables.registry import LiveTable, Sink
    from app.tables.results import Stored


UNAVAILABLE = "table_unavailable"
"""The API error code of an admin command whose table's node did not answer in time, or
whose table is moving to another node (HTTP 503: try again)."""


class RemoteRefused(Exception):
    """A lobby change the owning node refused: `code` is the API error code, `details`
    the error's details."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


class Network(Protocol):
    """The interface. Each method's body is what one process alone does (`LocalNetwork`)."""

    remote: bool
    """True: other nodes exist (a socket or a table may be elsewhere)."""

    async def start(self) -> None:
        """Join (the cluster: connect, subscribe, start watching the directory)."""
        return

    async def stop(self) -> None:
        """Leave: hand this node's tables over (the registry has stopped their actors)."""
        return

    # --- the registry: its tables -----------------------------------------------------------

    def observer(self) -> HandObserver | None:
        """What a new table's actor tells of its hands (the journal); None: nothing."""
        return None

    async def opened(self, live: LiveTable) -> None:
        """A table was opened on this node (take its lease, list it)."""
        return

    def changed(self, live: LiveTable) -> None:
        """A table's seats changed between hands (store its configuration and summary)."""
        return

    def closed(self, table_id: str) -> None:
        """A table was dissolved (drop its lease, configuration and listing)."""
        return

    def pause_changed(self, live: LiveTable) -> None:
        """An administrator paused or resumed the table (store it: a pause survives failover)."""
        return

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        """For each table: may this node store and settle its hand? False when a newer
        owner exists (the fence): the stale owner stops instead."""
        return [True] * len(table_ids)

    async def hand_stored(
        self, live: LiveTable | None, record: HandRecordData, stored: Stored
    ) -> None:
        """The hand's record was stored and its silver settled (clear its journal; update
        the leaderboards from the seats' `stored` profiles)."""
        return

    async def claim_seat(self, account_id: int, table_id: str) -> str:
        """Claim the account's one seat for `table_id`, atomically across the cluster: the
        table the claim names afterwards (another one: the account sits there). One
        process: the registry's own synchronous check is enough, nothing is stored."""
        return table_id

    def release_seat(self, account_id: int, table_id: str) -> None:
        """The account no longer sits at `table_id`: give its claim back (only a claim that
        names that table)."""
        return

    async def banned(self, account_id: int) -> None:
        """An account was banned: every other node closes its socket and gives up its seats
        (`TableRegistry.ban_here`)."""
        return

    # --- the registry: sockets --------------------------------------------------------------

    def connected(self, account_id: int, sink: Sink) -> None:
        """The account's socket is now `sink` on this node."""
        return

    def disconnected(self, account_id: int, sink: Sink) -> None:
        """The account's socket `sink` closed (it was the current one)."""
        return

    def forward(self, account_id: int, message: ClientMessage) -> bool:
        """Send a message for a table this node does not own to its owner; False: no
        other node could take it (the caller answers `wrong_table`)."""
        return False

    def deliver(self, account_id: int, message: ServerMessage) -> None:
        """A message for an account whose socket is not on this node."""
        return

    def deliver_encoded(self, account_id: int, encoded: Encoded) -> None:
        """`deliver` for a message already written as its wire text (a table's event or
        prompt): the other node sends the text as it is."""
        return

    def deliver_watched(self, node: str, accounts: list[int], encoded: Encoded) -> None:
        """A message of a watched table for spectators whose sockets `node` holds (one
        message per node, however many of its sockets watch): that node queues it for
        each as watched, under the spectators' bound."""
        return

    # --- the API: the lobby, admin commands and leaderboards of every node --------------------

    async def tables(self) -> list[dict[str, Any]] | None:
        """The lobby list of every node (None: only this process's tables)."""
        return None

    async def summary(self, table_id: str) -> dict[str, Any] | None:
        """A table another node owns, as the lobby lists it (None: unknown)."""
        return None

    async def owner(self, table_id: str) -> str | None:
        """The node that owns the table now (None: no node, or no cluster)."""
        return None

    async def call(
        self,
        op: str,
        table_id: str,
        account_id: int,
        seat: int | None = None,
        *,
        bot: bool = False,
    ) -> tuple[dict[str, Any], int | None]:
        """Sit or leave at a table another node owns: its summary and the seat."""
        raise RemoteRefused("not_found", f"no table {table_id!r}")

    async def admin(
        self, op: AdminOp, table_id: str = "", *, seat: int | None = None, reveal: bool = False
    ) -> dict[str, Any]:
        """An admin table command (`app.tables.admin.run`) for a table another node owns,
        run there; `list`: the tables of every other node (`{"tables": [...]}`)."""
        if op == "list":
            return {"tables": []}
        raise RemoteRefused("not_found", f"no table {table_id!r}")

    async def board(self, name: str, limit: int, offset: int) -> list[BoardEntry] | None:
        """A page of a leaderboard (`silver`, `points:<variant>`) from the cluster's sorted
        sets; None: ask the database."""
        return None

    async def forget(self, account_ids: list[int]) -> None:
        """Take accounts off the cluster's leaderboards (banned)."""
        return


class LocalNetwork(Network):
    """One process: the registry's default. Every table and every socket is here, so each
    hook does nothing and the registry behaves as a server of one process."""

    remote = False

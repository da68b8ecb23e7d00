"""Where this node's tables are known to the other nodes (`Directory`): listed, journaled and
leased (the cluster: app/cluster/ownership.py), or nowhere (`OneNodeDirectory`, a node
alone). The same interface is the settlement's fence (`may_write`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.tables.actor import HandObserver
from app.tables.host import LiveTable
from app.tables.settlement.record import HandRecordData


class Directory(Protocol):
    """What the other nodes are told of this node's tables."""

    def observer(self) -> HandObserver | None:
        """What a new table's actor tells of its hands (the journal); None: nothing."""
        ...

    async def opened(self, live: LiveTable) -> None:
        """A table was opened on this node (take its lease, list it)."""

    def changed(self, live: LiveTable) -> None:
        """A table's seats changed between hands (store its configuration and summary)."""

    def closed(self, table_id: str) -> None:
        """A table was dissolved (drop its lease, configuration and listing)."""

    def pause_changed(self, live: LiveTable) -> None:
        """An administrator paused or resumed the table (store it: a pause survives failover)."""

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        """For each table: may this node store and settle its hand? False when a newer
        owner exists (the fence): the stale owner stops instead."""
        ...

    async def hand_stored(self, live: LiveTable | None, record: HandRecordData) -> None:
        """The hand's record was stored and its silver settled (clear its journal)."""


class OneNodeDirectory:
    """`Directory` of a node alone: every table is its own, and nobody else is told."""

    def observer(self) -> HandObserver | None:
        return None

    async def opened(self, live: LiveTable) -> None:
        return

    def changed(self, live: LiveTable) -> None:
        return

    def closed(self, table_id: str) -> None:
        return

    def pause_changed(self, live: LiveTable) -> None:
        return

    async def may_write(self, table_ids: Sequence[str]) -> list[bool]:
        return [True] * len(table_ids)

    async def hand_stored(self, live: LiveTable | None, record: HandRecordData) -> None:
        return

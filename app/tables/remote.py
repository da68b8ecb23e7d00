"""The tables of the other nodes, as the lobby and the administrators reach them
(`RemoteTables`: the cluster's calls, app/cluster/calls.py; none, `NoOtherTables`, for a
node alone)."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from app.tables.errors import RemoteRefused

AdminOp = Literal["list", "inspect", "pause", "resume", "kick", "dissolve", "close_abandoned"]


class RemoteTables(Protocol):
    """The lobby's list, calls and admin commands for tables another node owns."""

    async def tables(self) -> list[dict[str, Any]] | None:
        """The lobby list of every node (None: only this node's tables)."""
        ...

    async def summary(self, table_id: str) -> dict[str, Any] | None:
        """A table another node owns, as the lobby lists it (None: unknown)."""
        ...

    async def owner(self, table_id: str) -> str | None:
        """The node that owns the table now (None: no node, or no cluster)."""
        ...

    async def call(
        self, op: str, table_id: str, account_id: int, seat: int | None = None, *,
        bot: bool = False,
    ) -> tuple[dict[str, Any], int | None]:
        """Sit or leave at a table another node owns: its summary and the seat."""
        ...

    async def admin(
        self, op: AdminOp, table_id: str = "", *, seat: int | None = None, reveal: bool = False
    ) -> dict[str, Any]:
        """An admin table command (`app.tables.admin.run`) for a table another node owns,
        run there; `list`: the tables of every other node (`{"tables": [...]}`)."""
        ...


class NoOtherTables:
    """`RemoteTables` of a node alone: there are none."""

    async def tables(self) -> list[dict[str, Any]] | None:
        return None

    async def summary(self, table_id: str) -> dict[str, Any] | None:
        return None

    async def owner(self, table_id: str) -> str | None:
        return None

    async def call(
        self, op: str, table_id: str, account_id: int, seat: int | None = None, *,
        bot: bool = False,
    ) -> tuple[dict[str, Any], int | None]:
        raise RemoteRefused("not_found", f"no table {table_id!r}")

    async def admin(
        self, op: AdminOp, table_id: str = "", *, seat: int | None = None, reveal: bool = False
    ) -> dict[str, Any]:
        if op == "list":
            return {"tables": []}
        raise RemoteRefused("not_found", f"no table {table_id!r}")

"""What a table refuses: `TableError` (this node's), `RemoteRefused` (another node's), with
the API's stable error codes."""

from __future__ import annotations

from typing import Any


class TableError(Exception):
    """A lobby request refused: `code` is the API error code, `details` its details."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def seated_elsewhere(table_id: str) -> TableError:
    """The refusal of a sit by an account that holds a seat at `table_id`."""
    return TableError(
        "seated_elsewhere", f"you already sit at table {table_id}", {"table_id": table_id}
    )


def busy(retry_after: int) -> TableError:
    """The refusal of new work (a table, a room, a sit, a quick-match group) by a node that
    sheds (app/ops/pressure.py): HTTP 503 with Retry-After."""
    return TableError(
        "busy", f"this server is busy; try again in {retry_after} s",
        {"retry_after": retry_after},
    )


UNAVAILABLE = "table_unavailable"
"""The API error code of a command whose table's node did not answer in time, or whose
table is moving to another node (HTTP 503: try again)."""


class RemoteRefused(Exception):
    """A lobby change the owning node refused: `code` is the API error code, `details`
    the error's details."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

"""Whole-number request parameters bounded by what the database holds: a number past its
column's range reaches the driver and fails there (a 500, or SQLite's OverflowError) instead
of being refused as `validation_error` (422) like any other bad value.

The ranges: ids, offsets and silver are 64-bit (PostgreSQL's BIGINT; SQLite's INTEGER);
the per-variant counts (`variant_stats.hands` and the like) are 32-bit INTEGER columns.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1

AccountId = Annotated[int, Path(ge=1, le=INT64_MAX, description="an account's id")]
Offset = Annotated[int, Query(ge=0, le=INT64_MAX, description="rows to skip")]

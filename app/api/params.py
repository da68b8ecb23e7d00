"""Request parameters the OpenAPI document describes exactly.

Whole numbers are bounded by what the database holds: a number past its column's range
would reach the driver and fail there (a 500, or SQLite's OverflowError) instead of being
refused as `validation_error` (422) like any other bad value.

The ranges: ids, offsets and silver are 64-bit (PostgreSQL's BIGINT; SQLite's INTEGER);
the per-variant counts (`variant_stats.hands` and the like) are 32-bit INTEGER columns.

A variant's name is one of the rule sets this server plays (`VARIANTS`), listed as the
document's enumeration; the route still answers another name itself, as it documents
(`not_found` on a leaderboard, `validation_error` in a body).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query
from pydantic.json_schema import JsonDict

from app.rules.variants import VARIANTS

INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1

AccountId = Annotated[int, Path(ge=1, le=INT64_MAX, description="an account's id")]
Offset = Annotated[int, Query(ge=0, le=INT64_MAX, description="rows to skip")]

VARIANT_NAMES: JsonDict = {"enum": list(VARIANTS)}  # the document's enumeration
VariantPath = Annotated[str, Path(description="a rule set", json_schema_extra=VARIANT_NAMES)]

"""The base classes every wire model derives from: immutable, no unknown fields.

Client models are also strict: a number is a JSON number, a flag is true or false, and
nothing is coerced ("5" is not 5). Server models are built by the server from the core's
values, so they only forbid unknown fields.
"""

from __future__ import annotations

import hashlib
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

MAX_SEQ = 2**53 - 1  # the largest integer a JavaScript client holds exactly

Seq = Annotated[int, Field(ge=0, le=MAX_SEQ)]
"""A per-table event sequence number (0 = nothing seen yet)."""

TableId = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$"),
    Field(description="the table's id (as in REST's /tables/{id})"),
]
HandId = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$"),
    Field(description="the hand's id (as in REST's hand records and replays)"),
]
SeatNumber = Annotated[int, Field(ge=0, le=3)]

# the seed and commitment of docs/protocol.md's examples (the number 80 in 32 bytes)
EXAMPLE_SEED = (80).to_bytes(32, "big").hex()
EXAMPLE_COMMITMENT = hashlib.sha256(bytes.fromhex(EXAMPLE_SEED)).hexdigest()
Commitment = Annotated[
    str, StringConstraints(pattern=r"^[0-9a-f]{64}$"), Field(examples=[EXAMPLE_COMMITMENT])
]
"""The lowercase hex SHA-256 of a hand's seed bytes (docs/protocol.md, "Verifying a hand")."""
SeedHex = Annotated[
    str, StringConstraints(pattern=r"^(?:[0-9a-f]{2}){1,64}$"), Field(examples=[EXAMPLE_SEED])
]
"""A hand's seed bytes in lowercase hex (32 bytes: 64 digits; hands from before seeds
were bytes: 8)."""


class WireModel(BaseModel):
    """A server -> client value: frozen, unknown fields refused."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_attribute_docstrings=True,
        json_schema_serialization_defaults_required=True,  # the server writes every field
    )


class ClientModel(BaseModel):
    """A client -> server value: frozen, unknown fields refused, no coercion."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, use_attribute_docstrings=True
    )

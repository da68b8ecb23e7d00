"""The WebSocket protocol's contract, published: its JSON Schema and its AsyncAPI document
(`app.protocol.schema`). Public, like /openapi.json: they describe, they hold no data."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.protocol.schema import asyncapi_document, protocol_schema

router = APIRouter(prefix="/protocol", tags=["protocol"])


@router.get("/schema.json")
def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of every /ws message: `$defs.HelloMessage` (a
    client's first message), `$defs.ClientMessage`, `$defs.ServerMessage`."""
    return protocol_schema()


@router.get("/asyncapi.json")
def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the /ws channel, on the same schemas."""
    return asyncapi_document()

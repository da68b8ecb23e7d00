"""Liveness and readiness probes.

- `GET /health`: the process answers (no dependency is touched), for a container
  HEALTHCHECK or a liveness probe: `{"status": "ok", "node": "<NODE_ID>"}`, the node being
  the process that answered (with `PROCESSES` > 1, which of the workers sharing the port
  took the connection).
- `GET /ready`: this node can serve: the database answers `SELECT 1` and, when `REDIS_URL`
  is set, Redis answers `PING`, each within `CHECK_TIMEOUT` seconds. 200 with every check
  `ok`; otherwise 503 with the error shape, code `not_ready`, and `details` naming each
  check's result: `ok`, `skipped` (Redis without REDIS_URL), `timeout` (no answer in
  time) or `unreachable` (it failed). The failure's own text (addresses, user names,
  driver messages) goes to the server's log only, never to whoever asks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal

import redis.asyncio as aioredis
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import text

from app.api import errors
from app.api.errors import ErrorBody, ErrorResponse
from app.store.db import Database

log = logging.getLogger(__name__)

router = APIRouter(tags=["ops"])

CHECK_TIMEOUT = 2.0  # seconds per dependency
OK = "ok"
SKIPPED = "skipped"
TIMEOUT = "timeout"
UNREACHABLE = "unreachable"


class HealthOut(BaseModel):
    status: Literal["ok"] = "ok"
    node: str = Field(
        description="The node id of the process that answered (NODE_ID; random per start "
        "when unset)"
    )


class ReadyOut(BaseModel):
    status: Literal["ready"] = "ready"
    checks: dict[str, str]


async def check_database(db: Database) -> None:
    async with db.engine.connect() as conn:
        await conn.execute(text("SELECT 1"))


async def check_redis(url: str) -> None:
    client = aioredis.from_url(
        url, socket_connect_timeout=CHECK_TIMEOUT, socket_timeout=CHECK_TIMEOUT
    )
    try:
        await client.ping()
    finally:
        await client.aclose()


async def _outcome(name: str, check: Callable[[], Awaitable[None]]) -> str:
    try:
        await asyncio.wait_for(check(), CHECK_TIMEOUT)
    except TimeoutError:
        log.warning("readiness: %s gave no answer within %g s", name, CHECK_TIMEOUT)
        return TIMEOUT
    except Exception as exc:  # noqa: BLE001 - any failure means "not ready"
        log.warning("readiness: %s is unreachable: %s: %s", name, type(exc).__name__, exc)
        return UNREACHABLE
    return OK


async def readiness(db: Database | None, redis_url: str | None) -> dict[str, str]:
    """Each dependency's check result, run concurrently."""

    async def database() -> str:
        if db is None:  # the app has not started yet
            return UNREACHABLE
        return await _outcome("the database", lambda: check_database(db))

    async def cache() -> str:
        if not redis_url:
            return SKIPPED
        return await _outcome("Redis", lambda: check_redis(redis_url))

    db_result, redis_result = await asyncio.gather(database(), cache())
    return {"database": db_result, "redis": redis_result}


@router.get("/health")
def health(request: Request) -> HealthOut:
    """Liveness: the process answers (no dependency is checked), and names its node."""
    return HealthOut(node=request.app.state.settings.node_id)


@router.get(
    "/ready",
    response_model=ReadyOut,
    responses=errors.responses("not_ready"),
)
async def ready(request: Request) -> ReadyOut | JSONResponse:
    """Readiness: the database and (with REDIS_URL) Redis are reachable; 503 `not_ready`
    with each check's result otherwise."""
    state = request.app.state
    checks = await readiness(getattr(state, "db", None), state.settings.redis_url)
    failed = [name for name, result in checks.items() if result not in (OK, SKIPPED)]
    if not failed:
        return ReadyOut(checks=checks)
    body = ErrorResponse(
        error=ErrorBody(
            code="not_ready", message=f"unreachable: {', '.join(failed)}", details=checks
        )
    )
    return JSONResponse(body.model_dump(), status_code=503)

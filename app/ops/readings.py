"""What a scrape reads of the node itself, at the moment of the scrape (app/ops/metrics.py's
`scrape` calls `read`):

- `mahjong_build_info{version, commit}` (always 1): the package's version, and the commit it
  was built from: `BUILD_COMMIT` (the container image sets it at build time), else what git
  says of the source tree when it is a checkout, else `unknown`;
- the database's connection pool (SQLAlchemy's QueuePool): connections checked out now, the
  pool's size, the overflow connections open beyond it, and the most it opens
  (size + max_overflow): checked out near the most means requests wait for a connection
  (and are answered `busy` after the pool's timeout);
- `mahjong_ready{check}`: 1 while the check `GET /ready` makes of each dependency passes
  (database, redis; redis is 1 without REDIS_URL, which it then skips), else 0. The app
  gives its check as `app.state.readiness` (app/main.py), since app/ops may not import the
  API.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from prometheus_client import Gauge

PACKAGE = "zjmahjong"
SOURCE = Path(__file__).resolve().parents[2]  # the checkout, when it is one
_COMMIT = re.compile(r"[0-9A-Za-z._-]{1,64}")
PASSING = frozenset({"ok", "skipped"})  # app/api/health.py's results that mean "ready"

BUILD_INFO = Gauge(
    "mahjong_build_info", "The server's version and the commit it was built from (always 1)",
    ["version", "commit"],
)
POOL_CHECKED_OUT = Gauge(
    "mahjong_db_pool_checked_out", "Database connections in use (checked out of the pool) now"
)
POOL_SIZE = Gauge("mahjong_db_pool_size", "The database pool's size (connections kept open)")
POOL_OVERFLOW = Gauge(
    "mahjong_db_pool_overflow", "Database connections open beyond the pool's size now"
)
POOL_MAX = Gauge(
    "mahjong_db_pool_max",
    "The most database connections the pool opens (its size and its overflow): past that a "
    "request waits for one",
)
READY = Gauge(
    "mahjong_ready",
    "1 while this node's readiness check (GET /ready) of a dependency passes, else 0",
    ["check"],
)
for _check in ("database", "redis"):
    READY.labels(_check)

Readiness = Callable[[], Awaitable[dict[str, str]]]


def version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "unknown"


def commit(environ: dict[str, str] | None = None, source: Path = SOURCE) -> str:
    """`BUILD_COMMIT` when it is set and sane, else the checkout's HEAD (12 hex digits) when
    git can tell, else `unknown`."""
    given = (os.environ if environ is None else environ).get("BUILD_COMMIT", "").strip()
    if given:
        return given if _COMMIT.fullmatch(given) else "unknown"
    git = shutil.which("git")
    if git is None or not (source / ".git").exists():
        return "unknown"
    try:
        done = subprocess.run(
            [git, "-C", str(source), "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    head = done.stdout.strip()
    return head if done.returncode == 0 and _COMMIT.fullmatch(head) else "unknown"


@cache
def build_info() -> tuple[str, str]:
    """This process's version and commit (read once), set on `BUILD_INFO`."""
    found = version(), commit()
    BUILD_INFO.labels(*found).set(1)
    return found


def observe_pool(pool: Any) -> None:
    """Set the pool's gauges from a SQLAlchemy pool (QueuePool and its asyncio variant; a
    pool without these readings, SQLite's in-memory one, reads 0)."""
    size = _call(pool, "size")
    POOL_CHECKED_OUT.set(_call(pool, "checkedout"))
    POOL_SIZE.set(size)
    POOL_OVERFLOW.set(max(0, _call(pool, "overflow")))
    POOL_MAX.set(size + max(0, int(getattr(pool, "_max_overflow", 0))))


def _call(pool: Any, name: str) -> int:
    reading = getattr(pool, name, None)
    return int(reading()) if callable(reading) else 0


async def observe_readiness(readiness: Readiness) -> None:
    for check, result in (await readiness()).items():
        READY.labels(check).set(1 if result in PASSING else 0)


async def read(state: Any) -> None:
    """Take every reading of the app whose `state` is given (what it has of them)."""
    build_info()
    db = getattr(state, "db", None)
    if db is not None:
        observe_pool(db.engine.pool)
    readiness: Readiness | None = getattr(state, "readiness", None)
    if readiness is not None:
        await observe_readiness(readiness)

"""What the runbook's tests share (docs/operating.md): its shell blocks run as written,
scratch PostgreSQL databases of their own, server processes started as an operator starts
them, and the operator's reads of the ledger."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import asyncpg
import httpx
import pytest
from sqlalchemy import make_url

from app import admin as admin_command
from app.loadtest.servers import UNBARRED_SIGNUPS
from app.settings import Settings
from tests.cluster.processes import ROOT, Player, open_table
from tests.conftest import POSTGRES_URL

RUNBOOK = ROOT / "docs" / "operating.md"
ADMIN = ("ops_admin", "a long operator secret")
SECRET = "operating-test-secret-" + "x" * 32
# what an operator's shell needs of the test's environment: nothing else leaks into a block
SHELL_ENV = ("PATH", "HOME", "LANG", "TMPDIR")


def runbook_block(name: str) -> str:
    """The shell block the runbook marks ``<!-- runbook: name -->`` (the block right
    after the marker), as an operator copies it."""
    text = RUNBOOK.read_text()
    found = re.search(rf"<!-- runbook: {re.escape(name)} -->\s*```sh\n(.*?)```", text, re.DOTALL)
    assert found, f"docs/operating.md has no block marked <!-- runbook: {name} -->"
    return found[1]


def run_block(name: str, env: dict[str, str]) -> str:
    """Run the runbook's block `name` in bash (errors stop it) with only `env` set besides
    the shell's basics; its output. A failure shows the block and what it said."""
    shell = {k: os.environ[k] for k in SHELL_ENV if k in os.environ} | env
    block = runbook_block(name)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block], check=False, env=shell, cwd=ROOT, capture_output=True,
        text=True, timeout=120,
    )
    assert done.returncode == 0, (
        f"the runbook's {name!r} block failed ({done.returncode}):\n{block}\n"
        f"{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def postgres_tools(*names: str) -> None:
    """Fail, naming the package, when a PostgreSQL client tool the runbook uses is missing
    (Debian's postgresql-client: CI installs it beside the server it tests against)."""
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not found: install postgresql-client "
                    "(the runbook's backup and restore use them)")


def _admin(sql: str) -> None:
    """Run `sql` on TEST_DATABASE_URL's database (in a thread of its own: a test's event
    loop may be running in this one)."""

    async def execute() -> None:
        assert POSTGRES_URL is not None
        conn = await asyncpg.connect(POSTGRES_URL)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, execute()).result()


def database_url(name: str) -> str:
    """A URL to database `name` on TEST_DATABASE_URL's server."""
    assert POSTGRES_URL is not None
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


@contextmanager
def scratch_names(label: str, count: int = 1) -> Iterator[list[str]]:
    """`count` unique database names for this test, none made yet; every database of those
    names is dropped (connections cut) when the block ends, made by the test or the runbook."""
    names = [f"ops_{label}_{secrets.token_hex(4)}" for _ in range(count)]
    try:
        yield names
    finally:
        for name in names:
            _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def scratch_database(label: str) -> Iterator[str]:
    """A new, empty PostgreSQL database of this test's own (unique name), dropped after."""
    with scratch_names(label) as (name,):
        _admin(f'CREATE DATABASE "{name}"')
        yield database_url(name)


def node_env(database: str, **extra: str) -> dict[str, str]:
    """A node's environment as an operator sets it (cheap Argon2 and open sign-ups: every
    player of a test registers from 127.0.0.1)."""
    return dict(os.environ) | {
        "DATABASE_URL": database,
        "JWT_SECRET": SECRET,
        "ARGON2_TIME_COST": "1",
        "ARGON2_MEMORY_KIB": "1024",
        "ARGON2_PARALLELISM": "1",
        "PYTHONPATH": str(ROOT),
    } | UNBARRED_SIGNUPS | extra


def command(env: dict[str, str], *args: str) -> str:
    """`python -m <args>` run as the operator runs it; its output."""
    done = subprocess.run([sys.executable, "-m", *args], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"python -m {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def make_admin(settings: Settings) -> None:
    """The first administrator, made by the README's `python -m app.admin create-admin`
    (its `main`, in a thread of this process: no interpreter to start)."""
    quiet = settings.model_copy(update={"migrate_on_start": False})
    with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(1) as thread:
        patch.setenv("ADMIN_PASSWORD", ADMIN[1])
        done = thread.submit(admin_command.main, ["create-admin", ADMIN[0]], quiet).result()
    assert done == 0


async def admin_headers(http: httpx.AsyncClient) -> dict[str, str]:
    body = {"username": ADMIN[0], "password": ADMIN[1]}
    answer = await http.post("/auth/login", json=body)
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}


async def silver(http: httpx.AsyncClient) -> dict[str, int]:
    """`GET /admin/silver` as the operator reads it."""
    answer = await http.get("/admin/silver", headers=await admin_headers(http))
    assert answer.status_code == 200, answer.text
    found: dict[str, int] = answer.json()
    return found




async def fund_house(http: httpx.AsyncClient, amount: int) -> None:
    """The house's float, funded as README.md, "Operating", tells an administrator to."""
    answer = await http.post(
        "/admin/house/adjust", json={"delta": amount, "reason": "the bots' float"},
        headers=await admin_headers(http) | {"Idempotency-Key": secrets.token_hex(8)},
    )
    assert answer.status_code == 200, answer.text


async def seat_with_bots(http: httpx.AsyncClient, players: list[Player]) -> str:
    """A table opened on `http`'s node by the first of `players`: each of them sits, then
    house bots fill the other seats; its id."""
    table_id = await open_table(http, players[0])
    for player in players:
        sat = await http.post(f"/tables/{table_id}/sit", headers=player.headers)
        assert sat.status_code == 200, sat.text
        player.table_id = table_id
    filled = await http.post(f"/tables/{table_id}/fill-bots", headers=players[0].headers)
    assert filled.status_code == 200, filled.text
    return table_id

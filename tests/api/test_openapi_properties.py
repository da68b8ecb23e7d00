"""Every route answers only what the OpenAPI document says it answers.

Schemathesis reads the app's own document and, for every operation, generates requests:
its coverage phase (boundary values and each kind of invalid value, deterministic), its
examples phase (the document's own examples) and its fuzzing phase (Hypothesis, valid and
invalid inputs). Each request goes to the app in this process, as a signed-in player (as
an administrator for /admin routes). A valid request whose path names a table, an account
or a username is sent again naming a real one (generated names are never found), so that
the routes' answers past `not_found` are walked too. Every answer must be:
- no 5xx (`not_a_server_error`);
- a status the operation documents (`status_code_conformance`);
- a content type documented for that status (`content_type_conformance`);
- a body that conforms to that status's documented schema (`response_schema_conformance`);
- for a method the path does not take, 405 (`unsupported_method`);
- for an invalid request, a refusal (4xx), not a success (`negative_data_rejection`);
- a refusal's code one the operation lists for its status (`documented_error_code`).

SQLite gets valid and invalid requests; PostgreSQL valid ones only: an invalid request is
refused by FastAPI's validation, which is what the document describes, before anything
reaches a database, so walking it twice would only cost time.

One app and database per backend serve every operation, each operation with a player of
its own, seated at a table of its own (the `caller` fixture), so that what one
operation's generated calls do to their caller cannot break another's: the ban route bans
its own player (or, by a generated id, a player of an operation already walked), a kick
or a dissolve ends its own table, and later calls of that operation then walk the
answers of that state (`banned`, `not_found`), which are documented. The administrator
is shared: nothing generated can ban it (banning oneself is `forbidden`) or demote it,
and the house account, which an adjustment may drain, is funded again for each operation
(with the largest guarantee a tournament may have on top of the bots' float, so that a
tournament's creation is never refused for the house's funds).

Generation is seeded and derandomized, with no example database: a failure here fails
the same way on every run and in CI. The request limits are far out of the way (429 is
documented on every counted route anyway, which tests/api/test_openapi.py checks).
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CheckContext, not_a_server_error
from schemathesis.core.transport import Response
from schemathesis.generation.meta import ParameterLocation
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from app.api.tournaments import MAX_GUARANTEE
from app.main import create_app
from app.settings import Settings
from app.store import migrate
from app.store.db import Database
from tests.api.helpers import HOUSE_FLOAT, PASSWORD, make_admin
from tests.api.refusals import listed_codes
from tests.conftest import BACKENDS, empty_database_url
from tests.live import UNTHROTTLED

SECRET = "test-secret-" + "x" * 32

# the document the app serves (making it needs no database)
DOCUMENT = create_app(Settings(database_url="sqlite://", jwt_secret=SECRET)).openapi()


def _walk(mode: str) -> schemathesis.BaseSchema:
    """The document, to generate requests of `mode` from: `all` (valid and invalid inputs)
    or `positive` (valid only)."""
    config = schemathesis.Config.from_dict(
        {
            "seed": 15,
            "generation": {
                "mode": mode,
                "max-examples": 10,  # per operation, in the fuzzing phase
                "deterministic": True,
                "database": "none",
            },
        }
    )
    return schemathesis.openapi.from_dict(DOCUMENT, config=config)


EVERY_INPUT = _walk("all")
VALID_INPUT = _walk("positive")

def documented_error_code(ctx: CheckContext, response: Response, case: schemathesis.Case) -> None:
    """A refusal's code is one its operation lists for its status (`status_code_conformance`
    checks the status only): a client generated from the document knows every code it can
    be answered with (tests/api/refusals.py checks the suite's other refusals the same
    way)."""
    if response.status_code < 400 or response.request.method != case.operation.method.upper():
        return  # a success, or `unsupported_method`'s probe with another method (405)
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return  # not the error shape: response_schema_conformance judges the body
    operation = DOCUMENT["paths"][case.operation.path][case.operation.method.lower()]
    listed = listed_codes(operation).get(response.status_code, frozenset())
    assert code in listed, (
        f"{case.operation.label} answered {response.status_code} {code!r}; "
        f"its document lists {sorted(listed)} for that status"
    )


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    unsupported_method,
    negative_data_rejection,
    documented_error_code,
]


@dataclass
class Server:
    """The app under test and its administrator's bearer header."""

    http: asgi.ASGIClient
    admin: dict[str, str]
    players: Iterator[int] = field(default_factory=itertools.count)


@dataclass
class Caller:
    """One operation's player: its bearer header and real values for path parameters."""

    headers: dict[str, str]
    known: dict[str, object]


def _signed_in(http: asgi.ASGIClient, username: str) -> tuple[int, dict[str, str]]:
    made = http.post("/auth/register", json={"username": username, "password": PASSWORD})
    assert made.status_code == 201, made.text
    tokens = http.post("/auth/login", json={"username": username, "password": PASSWORD})
    assert tokens.status_code == 200, tokens.text
    return int(made.json()["id"]), {"Authorization": f"Bearer {tokens.json()['access_token']}"}


async def _make_admin(database_url: str, admin_id: int) -> None:
    db = Database.connect(database_url)
    try:
        await make_admin(db, admin_id)
    finally:
        await db.close()


def _migrated(backend: str, request: pytest.FixtureRequest, folder: Path) -> str:
    """A database of `backend` as a fresh migration leaves it, for this module."""
    if backend == "sqlite":
        path = folder / "properties.db"
        head: Path = request.getfixturevalue("_sqlite_at_head")
        with closing(sqlite3.connect(head)) as source, closing(sqlite3.connect(path)) as copy:
            source.backup(copy)  # the whole database, whatever its journal holds
        return f"sqlite:///{path}"
    url = empty_database_url(backend, folder)
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One app and database for every operation, on the backend the test names (a fresh
    one per operation would cost more than walking it)."""
    database_url = _migrated(request.param, request, tmp_path_factory.mktemp("properties"))
    settings = Settings(
        database_url=database_url,
        jwt_secret=SECRET,
        argon2_time_cost=1,
        argon2_memory_kib=1024,
        argon2_parallelism=1,
        test_mode=True,  # POST /admin/tables/test is walked like any route
        login_attempts=1_000,
        login_address_attempts=100_000,
        login_account_attempts=100_000,
        **UNTHROTTLED,
    )
    app = create_app(settings)
    # Schemathesis' own in-process client starts the app's lifespan in its event loop
    # thread; its pytest plugin ends the lifespan after each test (each operation), and
    # this client starts it again at the next one's first request: every operation gets
    # a fresh table registry over the same database
    with asgi.get_client(app) as http:
        http.trust_env = False  # no proxy settings to read from the environment per request
        admin_id, admin = _signed_in(http, "boss")
        asyncio.run(_make_admin(database_url, admin_id))
        yield Server(http, admin)


@pytest.fixture
def caller(server: Server) -> Caller:
    """A new player for each operation, seated at a table of its own, and the house funded
    for the bots it may call."""
    username = f"player{next(server.players)}"
    account_id, headers = _signed_in(server.http, username)
    table = server.http.post("/tables", json={"variant": "lishui", "stake": 1}, headers=headers)
    assert table.status_code == 201, table.text
    table_id = table.json()["id"]
    sat = server.http.post(f"/tables/{table_id}/sit", json={"seat": 0}, headers=headers)
    assert sat.status_code == 200, sat.text
    funded = server.http.post(
        "/admin/house/adjust",
        json={"delta": HOUSE_FLOAT + MAX_GUARANTEE,
              "reason": "the house's float for the bots and a tournament's guarantee"},
        headers={**server.admin, "Idempotency-Key": f"float-{username}"},
    )
    assert funded.status_code == 200, funded.text
    return Caller(headers, {"table_id": table_id, "account_id": account_id, "username": username})


def _answers_as_documented(case: schemathesis.Case, server: Server, caller: Caller) -> None:
    """Send `case` (and, if valid, again at its caller's real names); check every answer."""
    auth = server.admin if case.path.startswith("/admin") else caller.headers
    header = case.meta.components.get(ParameterLocation.HEADER) if case.meta else None
    if header is not None and not header.mode.is_positive and not any(
        name.lower() == "authorization" for name in case.headers or {}
    ):
        auth = {}  # a case made invalid by leaving the bearer out: sent without it
    case.call_and_validate(session=server.http, headers=auth, checks=CHECKS)
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return  # an invalid request is refused before its path's names are looked up
    named = case.path_parameters or {}
    real = {name: caller.known[name] for name in named if name in caller.known}
    if real:
        again = case.operation.Case(
            path_parameters={**named, **real},
            headers=dict(case.headers or {}),
            query=case.query,
            body=case.body,
            media_type=case.media_type,
        )
        again.call_and_validate(session=server.http, headers=auth, checks=CHECKS)


# a caller is made once per operation and shared by its examples on purpose (see the
# module's docstring): Hypothesis' warning about function-scoped fixtures does not apply
SHARED_CALLER = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@EVERY_INPUT.parametrize()
@pytest.mark.parametrize("server", ["sqlite"], indirect=True)
@SHARED_CALLER
def test_every_answer_is_documented(
    case: schemathesis.Case, server: Server, caller: Caller
) -> None:
    _answers_as_documented(case, server, caller)


@VALID_INPUT.parametrize()
@pytest.mark.parametrize("server", ["postgresql"], indirect=True)
@pytest.mark.skipif("postgresql" not in BACKENDS, reason="TEST_DATABASE_URL is not set")
@SHARED_CALLER
def test_every_answer_on_postgresql_is_documented(
    case: schemathesis.Case, server: Server, caller: Caller
) -> None:
    """Valid inputs only: an invalid one is refused before it reaches a database (what
    FastAPI checks is what the document says), so SQLite's walk covers it for both."""
    _answers_as_documented(case, server, caller)

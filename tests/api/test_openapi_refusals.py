"""Every refusal code a route can answer is in its OpenAPI responses (issue 36, item 2).

How it cannot drift (docs/architecture.md, "The REST contract"): every error answer any test of the suite gets
from an in-process client, and every one `assert_error` checks, must be a code its route
lists (tests/api/refusals.py); the property test walks every operation with generated
requests under the same check (tests/api/test_openapi_properties.py). Here: the document's
own form (each error status names its stable codes, and the body is the error shape), the
refusals every route shares driven on every route of the document (no token, a banned
account, a player at an administrator's route, unknown names, a body with a field no route
takes), and the guard itself failing on a code its route does not list.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.api.errors import STATUS
from app.api.openapi import METHODS
from app.store.db import Database
from app.store.models import Account
from tests.api.helpers import admin, player
from tests.api.refusals import listed_codes, undocumented

ERROR = {"$ref": "#/components/schemas/ErrorResponse"}
NO_ROUTE_OF_ITS_OWN = {"method_not_allowed"}  # answered for a path, before any route runs


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


async def _document(client: httpx.AsyncClient) -> dict[str, Any]:
    answer = await client.get("/openapi.json")
    assert answer.status_code == 200
    document: dict[str, Any] = answer.json()
    return document


async def test_every_error_status_names_its_codes(client: httpx.AsyncClient) -> None:
    """A generated client reads the codes of each status from its description (`banned,
    forbidden`), and the body from the error shape's schema."""
    document = await _document(client)
    listed_anywhere: set[str] = set()
    for method, path, operation in _operations(document):
        where = f"{method.upper()} {path}"
        codes = listed_codes(operation)
        for status, names in codes.items():
            answer = operation["responses"][str(status)]
            assert answer["content"]["application/json"]["schema"] == ERROR, where
            for code in names:
                assert STATUS.get(code) == status, (where, status, code)
            listed_anywhere |= names
        assert "internal_error" in codes.get(500, ()), where
        if operation.get("security"):  # the bearer token: checked before anything else
            assert {"unauthorized"} <= codes.get(401, set()), where
            assert {"banned"} <= codes.get(403, set()), where
        if path.startswith("/admin"):
            assert "forbidden" in codes.get(403, ()), where
    # every stable code is one some route answers (a code no route lists is dead, or missing)
    assert set(STATUS) - NO_ROUTE_OF_ITS_OWN == listed_anywhere


def _path(path: str, operation: dict[str, Any]) -> str:
    """The path with a name nothing is called for each parameter (a number for a number)."""
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            schema = parameter.get("schema", {})
            value = "999999" if schema.get("type") == "integer" else "nosuchname"
            path = path.replace("{" + parameter["name"] + "}", value)
    return path


async def _ban(db: Database, account_id: int) -> None:
    async with db.sessions() as s, s.begin():
        account = await s.get(Account, account_id)
        assert account is not None
        account.banned = True


async def test_every_route_answers_the_shared_refusals_as_documented(
    client: httpx.AsyncClient, db: Database
) -> None:
    """Every operation of the document, called four ways; the client's hook fails the test
    on any answer whose code the route does not list, and the refusals of the bearer check
    are the ones expected."""
    document = await _document(client)
    _, as_player = await player(client, "plain")
    _, as_admin = await admin(client, db)
    banned_id, as_banned = await player(client, "outlaw")
    await _ban(db, banned_id)
    answered: dict[str, set[str]] = {}
    for method, path, operation in _operations(document):
        url = _path(path, operation)
        body = {"no_such_field": 1} if "requestBody" in operation else None
        secured = bool(operation.get("security"))
        for who, headers in (("anyone", {}), ("banned", as_banned), ("player", as_player),
                             ("admin", as_admin)):  # fmt: skip
            answer = await client.request(method.upper(), url, headers=headers, json=body)
            assert answer.status_code < 500, (method, url, who, answer.text)
            if answer.status_code >= 400:
                answered.setdefault(who, set()).add(answer.json()["error"]["code"])
            if secured and who == "anyone":
                assert answer.status_code == 401, (method, url)
            elif secured and who == "banned":
                assert answer.json()["error"]["code"] == "banned", (method, url)
            elif path.startswith("/admin") and who == "player":
                assert answer.json()["error"]["code"] == "forbidden", (method, url)
    # the walk reached past the bearer check: unknown names and a field no route takes
    assert {"not_found", "validation_error"} <= answered["admin"]
    assert {"not_found", "validation_error"} <= answered["player"]


@pytest.mark.parametrize(
    ("method", "url", "status", "code", "caught"),
    [
        ("POST", "/tables/T1/sit", 409, "seat_taken", False),
        ("POST", "/tables/T1/sit", 409, "vote_open", True),  # a room's code, not a sit's
        ("POST", "/tables/T1/sit", 404, "seat_taken", True),  # a listed code, wrong status
        ("GET", "/me", 404, "not_found", True),  # /me names nothing that can be missing
        ("GET", "/no/such/route", 404, "not_found", False),  # no route: not a route's code
        ("PUT", "/health", 405, "method_not_allowed", False),
    ],
)
def test_the_guard_fails_on_a_code_its_route_does_not_list(
    method: str, url: str, status: int, code: str, caught: bool
) -> None:
    request = httpx.Request(method, f"http://test{url}")
    body = {"error": {"code": code, "message": "refused", "details": None}}
    problem = undocumented(httpx.Response(status, json=body, request=request))
    assert (problem is not None) == caught, problem
    if caught:
        assert problem is not None and code in problem and "errors.responses" in problem

"""Every refusal a test meets is one the OpenAPI document lists for its route.

A route lists the error codes it can answer with `responses=errors.responses(...)` beside
its decorator (app/api/errors.py), and the edge's codes are added to every route by
app/api/openapi.py. Nothing ties those lists to what the code raises, so this module checks
them against what the server actually answers: `assert_documented` is run on every error
answer of the in-process test clients (`app_client`, `client_for`: an httpx response hook)
and in `assert_error`, so every refusal the suite drives, whatever test drives it, fails
the test when its route's document does not name its status and code. A new refusal without
its documentation cannot pass its own test (docs/architecture.md, "The REST contract").

Not checked, because they belong to no route of the document: 404 `not_found` of a path no
route serves, 405 `method_not_allowed` (with `Allow`), and the answers of a route a test
adds to its app. (500 `internal_error` is listed on every route, app/api/openapi.py.)
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

import httpx

from app.api.openapi import METHODS
from app.main import create_app
from app.settings import Settings


@cache
def documented_routes() -> tuple[tuple[str, re.Pattern[str], dict[int, frozenset[str]]], ...]:
    """(method, the path as a pattern, {status: the codes listed}) of every operation of
    the served document, in the order the app matches its routes. The routes are the same
    whatever the settings (the metrics port only moves /metrics off this app)."""
    app = create_app(Settings(database_url="sqlite://", jwt_secret="refusals-" + "x" * 32))
    found = []
    for path, item in app.openapi()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$")
        for method, operation in item.items():
            if method in METHODS:
                found.append((method.upper(), pattern, listed_codes(operation)))
    return tuple(found)


def listed_codes(operation: dict[str, Any]) -> dict[int, frozenset[str]]:
    """{status: codes} of an operation's error answers: each description lists its codes,
    comma-separated (`errors.responses`)."""
    return {
        int(status): frozenset(code.strip() for code in answer["description"].split(","))
        for status, answer in operation["responses"].items()
        if not status.startswith(("2", "3"))
    }


def route_codes(method: str, path: str) -> dict[int, frozenset[str]] | None:
    """The codes documented for the route that serves `method path`; None: no route."""
    for route_method, pattern, codes in documented_routes():
        if route_method == method and pattern.match(path):
            return codes
    return None


def undocumented(response: httpx.Response) -> str | None:
    """Why an error answer is not in its route's document; None when it is (or when the
    answer is no refusal of a route)."""
    if response.status_code < 400:
        return None
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None  # not the error shape (a proxy's page): the shape's own tests judge it
    method, path = response.request.method, response.request.url.path
    listed = route_codes(method, path)
    if listed is None:  # not a route of the document: a test's own route, a page
        return None
    if code in listed.get(response.status_code, ()):
        return None
    return (
        f"{method} {path} answered {response.status_code} {code!r}, which its OpenAPI "
        f"responses do not list ({ {s: sorted(c) for s, c in sorted(listed.items())} }): "
        "add the code to the route's responses=errors.responses(...)"
    )


def assert_documented(response: httpx.Response) -> None:
    problem = undocumented(response)
    assert problem is None, problem


async def check_response(response: httpx.Response) -> None:
    """httpx response hook: an error answer is read and checked before the test sees it."""
    if response.status_code >= 400:
        await response.aread()
        assert_documented(response)


RESPONSE_HOOKS: dict[str, list[Callable[[httpx.Response], Awaitable[None]]]] = {
    "response": [check_response]
}

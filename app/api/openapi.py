"""The OpenAPI document says what the answers are: every route's document gains what the
edge answers before the route runs, and the validation error's real body.

Rules:
- a 422 is the project's error shape (`validation_error`), not FastAPI's
  `HTTPValidationError`, which no answer ever has;
- every route may answer 429 `rate_limited` (app/api/throttle.py), except the probes;
- every route that takes a body may answer 413 `too_large` (app/api/body_limit.py);
- every route but those of `NO_DATABASE` reads the database, and so may answer 503 `busy`
  (app/api/errors.py: no connection came free in time, or SQLite stayed locked); `/ready`
  answers its own 503 (`not_ready`) instead;
- every route may answer 500 `internal_error`, the error shape of a failure no refusal
  names (app/api/errors.py), listed so that a generated client knows its body;
- each route lists its own refusals beside its decorator (`errors.responses(...)`); the
  tests hold each answer's code to its route's list (tests/api/refusals.py;
  docs/architecture.md, "The REST contract");
- an operation's id is its function's name (`login`, `create_table`, `sit`): what a client
  generated from the document calls its methods (FastAPI's default, `login_auth_login_post`,
  made unreadable method names); the ids are unique (tests/api/test_openapi.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

from app.api.throttle import UNCOUNTED

ERROR_SCHEMA = {"$ref": "#/components/schemas/ErrorResponse"}
METHODS = {"get", "post", "put", "patch", "delete"}
NO_DATABASE = frozenset({"/health", "/ready", "/metrics", "/variants"})


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_SCHEMA}}}


def _busy(responses: dict[str, Any]) -> None:
    """503 `busy`, beside the route's own 503 codes if it has some."""
    if "503" not in responses:
        responses["503"] = _error("busy")
    elif "busy" not in responses["503"]["description"].split(", "):
        responses["503"]["description"] += ", busy"


def with_edge(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (FastAPI's document) with the rules above applied, in place."""
    for path, item in schema.get("paths", {}).items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            responses = operation.setdefault("responses", {})
            if "422" in responses:
                responses["422"] = _error("validation_error")
            if "requestBody" in operation:
                responses.setdefault("413", _error("too_large"))
            if path not in UNCOUNTED:
                responses.setdefault("429", _error("rate_limited"))
            if path not in NO_DATABASE:
                _busy(responses)
            responses.setdefault("500", _error("internal_error"))
    schemas = schema.get("components", {}).get("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    return schema


def operation_id(route: APIRoute) -> str:
    """A route's operation id: its function's name."""
    return route.name


def install(app: FastAPI) -> None:
    """Serve `app`'s document with the edge's answers in it."""
    build: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = with_edge(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

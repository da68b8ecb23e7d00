"""The OpenAPI document lists what the answers are (app/api/openapi.py): the error shape for
422, 429 on every route the request limits count, 413 on every route that takes a body, 503
`busy` on every route that reads the database, and the refusals of sitting down and getting
up."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from app.api.openapi import NO_DATABASE
from app.api.throttle import UNCOUNTED
from app.rules.variants import VARIANTS
from app.settings import Settings
from app.store.db import Database
from tests.api.helpers import admin, assert_error, player

METHODS = {"get", "post", "put", "patch", "delete"}


async def _document(client: httpx.AsyncClient) -> dict:  # type: ignore[type-arg]
    answer = await client.get("/openapi.json")
    assert answer.status_code == 200
    return answer.json()  # type: ignore[no-any-return]


async def test_every_route_lists_the_edges_answers(client: httpx.AsyncClient) -> None:
    document = await _document(client)
    error = {"$ref": "#/components/schemas/ErrorResponse"}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            responses = operation["responses"]
            assert ("429" in responses) == (path not in UNCOUNTED), (method, path)
            if "requestBody" in operation:
                assert responses["413"]["content"]["application/json"]["schema"] == error
            if "422" in responses:
                assert responses["422"]["content"]["application/json"]["schema"] == error
            busy = "busy" in responses.get("503", {}).get("description", "").split(", ")
            assert busy == (path not in NO_DATABASE), (method, path)
    assert "HTTPValidationError" not in str(document)


async def test_a_422_answer_has_the_documented_body(client: httpx.AsyncClient) -> None:
    refused = await client.post("/auth/register", json={"username": "x"})
    assert_error(refused, 422, "validation_error")


async def test_sitting_and_getting_up_list_their_refusals(client: httpx.AsyncClient) -> None:
    paths = (await _document(client))["paths"]
    sit = paths["/tables/{table_id}/sit"]["post"]["responses"]
    assert set(sit["409"]["description"].split(", ")) >= {
        "insufficient_balance", "seat_taken", "table_full", "already_seated", "seated_elsewhere"
    }
    leave = paths["/tables/{table_id}/leave"]["post"]["responses"]
    assert "wrong_table" in leave["409"]["description"]
    # and the server answers as listed: getting up from a table one does not sit at
    _, owner = await player(client, "owner")
    _, other = await player(client, "other")
    table = await client.post("/tables", json={"variant": "lishui", "stake": 1}, headers=owner)
    assert table.status_code == 201, table.text
    left = await client.post(f"/tables/{table.json()['id']}/leave", headers=other)
    assert_error(left, 409, "wrong_table")


async def test_a_method_a_path_does_not_take_is_405_with_allow(
    client: httpx.AsyncClient,
) -> None:
    """Not a 422 `validation_error`: nothing about the request's data was wrong."""
    refused = await client.put("/health")
    assert_error(refused, 405, "method_not_allowed")
    assert refused.headers["allow"] == "GET"
    # Starlette names the methods of the first route that matched the path only
    refused = await client.delete("/tables")
    assert_error(refused, 405, "method_not_allowed")
    assert refused.headers["allow"] in ("GET", "POST")
    assert_error(await client.get("/no/such/path"), 404, "not_found")


async def test_variant_names_are_an_enumeration(client: httpx.AsyncClient) -> None:
    """A client (or a generator of requests) learns the valid names from the document."""
    document = await _document(client)
    names = list(VARIANTS)
    schemas = document["components"]["schemas"]
    for model in ("CreateTableIn", "TestTableIn"):
        assert schemas[model]["properties"]["variant"]["enum"] == names, model
    for board in ("points", "win-rate"):
        (parameter,) = document["paths"][f"/leaderboards/{board}/{{variant}}"]["get"][
            "parameters"
        ][:1]
        assert parameter["name"] == "variant" and parameter["schema"]["enum"] == names


async def test_the_test_tables_documented_example_is_dealt(
    client: httpx.AsyncClient, app: FastAPI, db: Database, settings: Settings
) -> None:
    """An operator copying the document's example gets a table, not a 422."""
    app.state.settings = settings.model_copy(update={"test_mode": True})
    example = (await _document(client))["components"]["schemas"]["TestTableIn"]["example"]
    _, boss = await admin(client, db)
    made = await client.post("/admin/tables/test", json=example, headers=boss)
    assert made.status_code == 201, made.text


async def test_the_lobby_list_and_opening_a_table_are_documented(
    client: httpx.AsyncClient,
) -> None:
    document = await _document(client)
    paths, schemas = document["paths"], document["components"]["schemas"]
    create = paths["/tables"]["post"]["responses"]
    assert "insufficient_balance" in create["409"]["description"]
    listed = paths["/tables"]["get"]["responses"]["200"]["content"]["application/json"]
    assert listed["schema"]["items"] == {"$ref": "#/components/schemas/LobbyTableOut"}
    lobby = schemas["LobbyTableOut"]
    assert {"seats", "players"} <= set(lobby["properties"])  # the old field stays
    player_ref = lobby["properties"]["players"]["items"]["$ref"].rsplit("/", 1)[-1]
    seat = schemas[player_ref]["properties"]
    assert {"seat", "account_id", "name", "title", "bot"} <= set(seat)
    assert all(field.get("description") for name, field in seat.items() if name != "seat")


async def test_the_replay_is_documented_for_a_viewer(client: httpx.AsyncClient) -> None:
    document = await _document(client)
    replay = document["paths"]["/hands/{hand_id}/replay"]["get"]
    assert {p["name"] for p in replay["parameters"]} >= {"hand_id", "seat", "views"}
    assert {"401", "403", "404", "422"} <= set(replay["responses"])
    schema = document["components"]["schemas"]["ReplayOut"]["properties"]
    assert {"players", "dealer", "events", "result", "steps", "variant"} <= set(schema)


async def test_operation_ids_are_the_routes_names_and_unique(client: httpx.AsyncClient) -> None:
    """A client generated from the document gets readable method names (`login`, not
    `login_auth_login_post`), one per operation."""
    paths = (await client.get("/openapi.json")).json()["paths"]
    ids = [op["operationId"] for item in paths.values() for op in item.values()
           if isinstance(op, dict) and "operationId" in op]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert paths["/auth/login"]["post"]["operationId"] == "login"
    assert paths["/tables/{table_id}/sit"]["post"]["operationId"] == "sit"
    assert not [i for i in ids if i.endswith(("_get", "_post", "_delete", "_put", "_patch"))]

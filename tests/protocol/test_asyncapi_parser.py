"""The served AsyncAPI document passes the official parser (issue 36, item 2).

`@asyncapi/parser` from the npm registry, the version tests/contract_js/package-lock.json
pins, parses /protocol/asyncapi.json as a client developer's tools would fetch it, with its
default rulesets; the document once drew 80 errors from pydantic's discriminators and left
`room` out. Runs when `TEST_NODE` names node (tests/nodejs.py), skips otherwise.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx

from app.protocol.schema import asyncapi_document
from tests.nodejs import node_environment, node_path, npm_ci

FOLDER = Path(__file__).parent.parent / "contract_js"


def _parse(document: dict[str, Any]) -> dict[str, Any]:
    """What the official parser reports of `document` (tests/contract_js/check_asyncapi.mjs)."""
    node = node_path()
    npm_ci(FOLDER, node)
    done = subprocess.run(
        [str(node), str(FOLDER / "check_asyncapi.mjs")], input=json.dumps(document),
        cwd=FOLDER, env=node_environment(node), capture_output=True, text=True, timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _members(schema: dict[str, Any], union: str) -> set[tuple[str, str]]:
    """(the $defs name, the `type` constant) of each message of one of the schema's unions."""
    defs = schema["$defs"]
    names = [ref["$ref"].rsplit("/", 1)[1] for ref in defs[union]["oneOf"]]
    return {(name, defs[name]["properties"]["type"]["const"]) for name in names}


async def test_the_official_parser_finds_no_error_and_every_message(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/protocol/asyncapi.json")).json()
    schema = (await client.get("/protocol/schema.json")).json()
    report = _parse(document)

    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert errors == []

    # every message of the schema's unions, and nothing else, in the operation of its
    # direction, its payload the schema of the same name and `type` as the parser resolved it
    messages = {m["key"]: m for m in report["messages"]}
    operations = {o["action"]: set(o["messages"]) for o in report["operations"]}
    hello = schema["$defs"]["HelloMessage"]["properties"]["type"]["const"]
    expected = {
        "send": _members(schema, "ServerMessage"),
        "receive": _members(schema, "ClientMessage") | {("HelloMessage", hello)},
    }
    assert set(operations) == set(expected)
    for action, members in expected.items():
        listed = {(messages[key]["payload"]["title"], messages[key]["payload"]["type"])
                  for key in operations[action]}  # fmt: skip
        assert listed == members, (action, members ^ listed)
        assert all(messages[k]["title"] == messages[k]["payload"]["title"]
                   for k in operations[action])  # fmt: skip
    # one name per message, though two share a wire type (`chat`: send_chat, chat_said)
    names = [m["name"] for m in report["messages"]]
    assert len(names) == len(set(names)) == len(messages)


def test_the_parser_run_reports_a_broken_document() -> None:
    """The check can fail: the OpenAPI-style discriminator pydantic writes is an error."""
    document = asyncapi_document()
    document["components"]["schemas"]["ServerMessage"]["discriminator"] = {"propertyName": "type"}
    report = _parse(document)
    assert any(d["severity"] == "error" and "discriminator" in d["path"]
               for d in report["diagnostics"])  # fmt: skip

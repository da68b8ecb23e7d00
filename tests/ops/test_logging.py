"""Structured logs: JSON lines with the node and process of every line, the request, table,
hand and account ids of the task that logged, uvicorn's access lines as fields, probes left
out and tokens never written."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import httpx
from fastapi import FastAPI
from prometheus_client import REGISTRY

from app.api import errors
from app.ops import logging as ops_logging
from app.ops.observe import Observe
from app.rules.variants import get_ruleset
from app.tables.actor import TableActor
from app.tables.clock import FakeClock
from app.tables.messages import Stop, Tick
from app.tables.settlement.record import HandRecordData, Paid
from tests.ops.nodes import fresh_node

ROOT = Path(__file__).resolve().parents[2]


def _record(name: str, msg: str, args: tuple[object, ...] = (), **extra: object) -> logging.LogRecord:
    record = logging.LogRecord(name, logging.INFO, __file__, 1, msg, args, None)
    for key, value in extra.items():
        setattr(record, key, value)
    return record


def _json(record: logging.LogRecord) -> dict[str, object]:
    line = ops_logging.JsonFormatter().format(record)
    assert "\n" not in line
    parsed: dict[str, object] = json.loads(line)
    return parsed


async def test_ids_follow_the_task_that_logged() -> None:
    lines: dict[str, dict[str, object]] = {}

    async def table_task() -> None:
        ops_logging.bind_table("t-1")
        await asyncio.sleep(0)
        lines["table"] = _json(_record("app.tables.actor", "dealt %s", ("t-1-1",)))

    async def socket_task() -> None:
        ops_logging.bind_account(42)
        await asyncio.sleep(0)
        lines["socket"] = _json(_record("app.api.ws", "closed"))

    await asyncio.gather(table_task(), socket_task())
    lines["neither"] = _json(_record("app.main", "started"))

    assert lines["table"]["table_id"] == "t-1" and "account_id" not in lines["table"]
    assert lines["table"]["message"] == "dealt t-1-1"
    assert lines["socket"]["account_id"] == 42 and "table_id" not in lines["socket"]
    assert "table_id" not in lines["neither"] and "account_id" not in lines["neither"]
    assert lines["neither"]["level"] == "info" and lines["neither"]["logger"] == "app.main"
    assert str(lines["neither"]["ts"]).endswith("+00:00")


def test_exceptions_and_extra_fields() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord(
            "app.x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info()
        )
    record.hand_id = "h-3"
    line = _json(record)
    assert line["level"] == "error" and line["exc_type"] == "ValueError"
    assert "boom" in str(line["exc"]) and line["hand_id"] == "h-3"


def test_access_lines_are_fields_and_tokens_are_hidden() -> None:
    access = _json(_record(
        "uvicorn.access", '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/tables?token=abc.def", "1.1", 200),
    ))
    assert access["method"] == "GET" and access["status"] == 200
    assert access["path"] == "/tables?token=***"
    assert "abc.def" not in json.dumps(access)

    accepted = _json(_record(
        "uvicorn.error", '%s - "WebSocket %s" [accepted]', ("127.0.0.1:5000", "/ws?token=eyJ.x.y")
    ))
    assert "eyJ" not in str(accepted["message"]) and "token=***" in str(accepted["message"])
    text = ops_logging.TextFormatter().format(_record("uvicorn.error", "GET /ws?token=secret&a=1"))
    assert "secret" not in text and "token=***&a=1" in text


def test_probe_requests_are_not_logged() -> None:
    probes = ops_logging.DropProbes()

    def access(path: str) -> logging.LogRecord:
        return _record("uvicorn.access", '%s - "%s %s HTTP/%s" %d',
                       ("127.0.0.1:1", "GET", path, "1.1", 200))

    assert not probes.filter(access("/health"))
    assert not probes.filter(access("/ready"))
    assert not probes.filter(access("/metrics"))
    assert probes.filter(access("/tables"))
    assert probes.filter(_record("app.main", "/health is fine"))


def test_configure_writes_json_lines_at_the_set_level() -> None:
    script = (
        "import logging\n"
        "from app.ops import logging as l\n"
        "l.configure('warning', 'json')\n"
        "logging.getLogger('app.x').info('hidden')\n"
        "logging.getLogger('app.x').warning('shown %d', 1, extra={'table_id': 'tx'})\n"
        "logging.getLogger('uvicorn.error').warning('uvicorn too')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, cwd=ROOT, capture_output=True, text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [line["message"] for line in lines] == ["shown 1", "uvicorn too"]
    assert lines[0]["table_id"] == "tx" and lines[1]["logger"] == "uvicorn.error"


# --- the node, the request, the table and the hand --------------------------------------------


def test_every_line_names_its_node_and_process() -> None:
    formatter = ops_logging.JsonFormatter(node="node-7")
    line = json.loads(formatter.format(_record("app.x", "hello")))
    assert line["node"] == "node-7" and line["pid"] == os.getpid()
    text = ops_logging.TextFormatter(node="node-7").format(_record("app.x", "hello"))
    assert " node=node-7" in text


async def test_a_table_carries_its_table_and_hand_not_the_request_that_opened_it() -> None:
    hand: dict[str, str | None] = {"id": None}
    lines: list[dict[str, object]] = []
    settled = asyncio.Event()

    async def settlement() -> None:  # a task the table starts: it inherits the ids
        lines.append(_json(_record("app.tables.settlement", "stored")))
        settled.set()

    async def table() -> None:  # started by a request, as POST /tables starts one
        ops_logging.bind_table("t-9", lambda: hand["id"])
        lines.append(_json(_record("app.tables.actor", "opened")))
        hand["id"] = "t-9-1"
        lines.append(_json(_record("app.tables.actor", "dealt")))
        await asyncio.create_task(settlement())

    async def request() -> None:
        ops_logging.bind_request("req-1")
        ops_logging.bind_account(5)
        lines.append(_json(_record("app.api.lobby", "opening")))
        await asyncio.create_task(table())
        lines.append(_json(_record("app.api.lobby", "opened")))

    await request()
    assert settled.is_set()
    opening, opened, dealt, stored, answered = lines
    assert opening["request_id"] == answered["request_id"] == "req-1"
    assert "table_id" not in answered and answered["account_id"] == 5
    assert opened["table_id"] == "t-9" and "hand_id" not in opened
    for line in (opened, dealt, stored):
        assert "request_id" not in line and "account_id" not in line
    assert dealt["hand_id"] == stored["hand_id"] == "t-9-1" and stored["table_id"] == "t-9"


class _Lines(logging.Handler):
    """Every record a logger emits, formatted as the server writes it."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(ops_logging.JsonFormatter(node="here"))
        self.lines: list[dict[str, object]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


async def test_a_table_actors_lines_name_its_table_and_the_hand_in_play() -> None:
    """A real actor, in its own task, logging about a message it does not know."""
    actor = TableActor("t-live", get_ruleset("lishui"), [11, 12, 13, 14], FakeClock(1000.0),
                       lambda seat, item: None, _stored, seed_source=itertools.count(3).__next__)
    handler = _Lines()
    logger = logging.getLogger("app.tables.actor")
    logger.addHandler(handler)
    running = asyncio.create_task(actor.run())
    try:
        actor.submit(Tick())  # deals
        async with asyncio.timeout(10):
            while actor.hand is None:
                await asyncio.sleep(0.01)
        actor.submit(cast(Any, "not a message"))
        async with asyncio.timeout(10):
            while not handler.lines:
                await asyncio.sleep(0.01)
        actor.submit(Stop())
        await running
    finally:
        logger.removeHandler(handler)
        running.cancel()
    (line,) = handler.lines
    assert "unknown message" in str(line["message"])
    assert line["table_id"] == "t-live" and line["hand_id"] == actor.hand_id != ""
    assert line["node"] == "here"


async def _stored(record: HandRecordData) -> Paid | None:
    return Paid((0, 0, 0, 0))


def test_a_request_id_comes_back_and_is_on_every_line_of_the_request(tmp_path: Path) -> None:
    """A real node's own log (JSON): every line names the node and the process, and the
    access line of each request carries the request id the answer sent back: the one the
    client gave when it is sane, else a new one."""
    with fresh_node(tmp_path, LOG_FORMAT="json") as node:
        with httpx.Client(base_url=node.url) as http:
            given = http.get("/variants", headers={"X-Request-ID": "trace-42.a:b"})
            insane = http.get("/variants", headers={"X-Request-ID": "<script>" + "x" * 20})
            long = http.get("/variants", headers={"X-Request-ID": "y" * 129})
            none = http.get("/me")
        pid = node.node.process.pid
    ids = [answer.headers["x-request-id"] for answer in (given, insane, long, none)]
    assert ids[0] == "trace-42.a:b"
    for made in ids[1:]:
        assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert len(set(ids)) == 4
    lines = [json.loads(line) for line in node.node.log.read_text().splitlines()]
    assert lines and all(line["node"] == "fresh" and line["pid"] == pid for line in lines)
    access = [line for line in lines if line["logger"] == "uvicorn.access"]
    assert [(line["path"], line["status"], line["request_id"]) for line in access] == [
        ("/variants", 200, ids[0]), ("/variants", 200, ids[1]), ("/variants", 200, ids[2]),
        ("/me", 401, ids[3]),
    ]  # (the /health probe that saw the node up is not logged)
    assert "<script>" not in node.node.log.read_text()


async def test_a_server_error_names_its_request() -> None:
    """The app's 500 is sent past the middleware (by the outermost error handler): it
    carries the request id too, and is counted as a 500 of its route."""
    app = FastAPI()
    errors.install(app)
    app.add_middleware(Observe, node="n")

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("boom")

    labels = {"method": "GET", "route": "/boom", "status": "500"}
    before = REGISTRY.get_sample_value("mahjong_http_requests_total", labels) or 0.0
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        answer = await http.get("/boom", headers={"X-Request-ID": "req-500"})
    assert answer.status_code == 500 and answer.json()["error"]["code"] == "internal_error"
    assert answer.headers["x-request-id"] == "req-500"
    assert REGISTRY.get_sample_value("mahjong_http_requests_total", labels) == before + 1

"""Structured logs: JSON lines with the table and account ids of the task that logged,
uvicorn's access lines as fields, probes left out and tokens never written."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from pathlib import Path

from app.ops import logging as ops_logging

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

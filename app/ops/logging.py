"""Structured logs: one JSON object per line on stderr, for a log collector.

Every line has `ts` (UTC, ISO 8601 with milliseconds), `level`, `logger` and `message`, and
`table_id` / `account_id` when the code that logged runs for a table or an account: the table
actor binds its table id for its task (`bind_table`), the WebSocket endpoint binds the
account for the tasks of that socket (`bind_account`); both are context variables, so they
follow the asyncio task and never leak to another one. An exception adds `exc_type` and
`exc` (the traceback). Fields passed with `extra={...}` are kept.

uvicorn's own loggers go through the same formatter: an access line carries `client`,
`method`, `path` and `status` as fields; probe requests (/health, /ready, /metrics) are not
logged; and access tokens in query strings (`/ws?token=...`) are replaced by `***` in every
line, since a token in a log file is a credential in a log file.

`LOG_FORMAT=text` gives one plain line per record instead (development); `LOG_LEVEL` sets
the level of the application's and uvicorn's loggers.
"""

from __future__ import annotations

import json
import logging
import re
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

table_id_var: ContextVar[str | None] = ContextVar("log_table_id", default=None)
account_id_var: ContextVar[int | None] = ContextVar("log_account_id", default=None)

PROBE_PATHS = frozenset({"/health", "/ready", "/metrics"})
_TOKEN = re.compile(r"((?:access_|refresh_)?token=)[^&\s\"']+")

# attributes every LogRecord has: anything else came from `extra={...}`
_STANDARD = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys()
) | {"message", "asctime", "color_message", "taskName"}


def bind_table(table_id: str) -> None:
    """Log lines of the current task (and tasks it starts) carry this table id."""
    table_id_var.set(table_id)


def bind_account(account_id: int) -> None:
    """Log lines of the current task (and tasks it starts) carry this account id."""
    account_id_var.set(account_id)


def redact(text: str) -> str:
    """`text` with the value of every `token=` query parameter replaced by `***`."""
    return _TOKEN.sub(r"\1***", text)


def _access_fields(record: logging.LogRecord) -> dict[str, Any] | None:
    """uvicorn's access record `(client, method, path, http_version, status)` as fields."""
    args = record.args
    if record.name != "uvicorn.access" or not isinstance(args, tuple) or len(args) != 5:
        return None
    client, method, path, http_version, status = args
    return {
        "client": str(client),
        "method": str(method),
        "path": redact(str(path)),
        "http_version": str(http_version),
        "status": status,
    }


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module's docstring for the fields)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        access = _access_fields(record)
        if access is not None:
            entry.update(access)
        table_id, account_id = table_id_var.get(), account_id_var.get()
        if table_id is not None:
            entry["table_id"] = table_id
        if account_id is not None:
            entry["account_id"] = account_id
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exc_type"] = record.exc_info[0].__name__ if record.exc_info[0] else None
            entry["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A plain line with the same ids, for a developer's terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(ids)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = ""
        if (table_id := table_id_var.get()) is not None:
            ids += f" table={table_id}"
        if (account_id := account_id_var.get()) is not None:
            ids += f" account={account_id}"
        record.ids = ids
        return redact(super().format(record))


class DropProbes(logging.Filter):
    """Leave out uvicorn's access lines for the probe endpoints."""

    def filter(self, record: logging.LogRecord) -> bool:
        access = _access_fields(record)
        return access is None or access["path"].split("?", 1)[0] not in PROBE_PATHS


def config(level: str = "info", fmt: str = "json") -> dict[str, Any]:
    """A `logging.config.dictConfig` for the app and uvicorn (also uvicorn's `log_config`)."""
    formatter = "app.ops.logging.JsonFormatter" if fmt == "json" else "app.ops.logging.TextFormatter"
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"drop_probes": {"()": "app.ops.logging.DropProbes"}},
        "formatters": {"structured": {"()": formatter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "structured",
                "filters": ["drop_probes"],
            }
        },
        "root": {"handlers": ["stderr"], "level": level},
        "loggers": {
            "uvicorn": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.error": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.access": {"handlers": [], "level": level, "propagate": True},
        },
    }


def configure(level: str = "info", fmt: str = "json") -> None:
    """Install `config(level, fmt)` for this process."""
    import logging.config

    logging.config.dictConfig(config(level, fmt))

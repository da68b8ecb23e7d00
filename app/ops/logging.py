"""Structured logs: one JSON object per line on stderr, for a log collector.

Every line has `ts` (UTC, ISO 8601 with milliseconds), `level`, `logger`, `node`, `pid` and
`message`. `node` is the node id (NODE_ID: the cluster's node id, the `node` that /health
answers; random per start when unset) and `pid` the process's id, so that two workers of one
machine (`PROCESSES=2`) or two nodes' lines in one collector are told apart. The code that
logged adds what it runs for, through context variables that follow the asyncio task (and the
tasks it starts) and never leak to another one:

- `request_id`: a request's or a WebSocket's (app/ops/observe.py binds it: the client's or
  proxy's `X-Request-ID` when it is sane, else a new one; the answer carries it back);
- `table_id` and `hand_id`: the table actor binds its table, and the hand it plays then,
  for its task (`bind_table`): its lines and its settlements' carry both;
- `account_id`: the table WebSocket binds its account (`bind_account`).

An exception adds `exc_type` and `exc` (the traceback). Fields passed with `extra={...}` are
kept. The JSON is written by python-json-logger; what is ours is the fields above and:
uvicorn's own loggers go through the same formatter: an access line carries `client`,
`method`, `path` and `status` as fields (and the request's `request_id`); probe requests
(/health, /ready, /metrics) are not logged; and access tokens in query strings
(`/ws?token=...`) are replaced by `***` in every line, since a token in a log file is a
credential in a log file.

`LOG_FORMAT=text` gives one plain line per record instead (development); `LOG_LEVEL` sets
the level of the application's and uvicorn's loggers.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as _LibraryJsonFormatter

HandSource = Callable[[], str | None]

node_id_var: ContextVar[str | None] = ContextVar("log_node_id", default=None)
request_id_var: ContextVar[str | None] = ContextVar("log_request_id", default=None)
table_id_var: ContextVar[str | None] = ContextVar("log_table_id", default=None)
hand_var: ContextVar[HandSource | None] = ContextVar("log_hand", default=None)
account_id_var: ContextVar[int | None] = ContextVar("log_account_id", default=None)

PROBE_PATHS = frozenset({"/health", "/ready", "/metrics"})
_TOKEN = re.compile(r"((?:access_|refresh_)?token=)[^&\s\"']+")

# attributes of a LogRecord (and what uvicorn or this module add) that are not fields
_RESERVED = [*RESERVED_ATTRS, "taskName", "color_message", "ids"]

_process_node = "unknown"  # the node of lines logged outside any bound context (threads)


def set_node(node_id: str) -> None:
    """This process's node id: on every line no task bound another one to."""
    global _process_node
    _process_node = node_id


def bind_node(node_id: str) -> None:
    """Log lines of the current task (and tasks it starts) carry this node id (several
    apps in one process, as the tests run them, each name their own)."""
    node_id_var.set(node_id)


def bind_request(request_id: str) -> None:
    """Log lines of the current task (and tasks it starts) carry this request id."""
    request_id_var.set(request_id)


def bind_table(table_id: str, hand: HandSource | None = None) -> None:
    """Log lines of the current task (and tasks it starts) carry this table id, and the id
    of the hand `hand()` names then (None between a table's opening and its first hand).
    A table's task outlives the request that opened it: that request's id and account are
    not the table's, and are dropped here."""
    table_id_var.set(table_id)
    hand_var.set(hand)
    request_id_var.set(None)
    account_id_var.set(None)


def bind_account(account_id: int) -> None:
    """Log lines of the current task (and tasks it starts) carry this account id."""
    account_id_var.set(account_id)


def context_fields() -> dict[str, Any]:
    """The ids bound for the task logging now, each only when bound."""
    fields: dict[str, Any] = {}
    if (request_id := request_id_var.get()) is not None:
        fields["request_id"] = request_id
    if (table_id := table_id_var.get()) is not None:
        fields["table_id"] = table_id
        hand = hand_var.get()
        if hand is not None and (hand_id := hand()):
            fields["hand_id"] = hand_id
    if (account_id := account_id_var.get()) is not None:
        fields["account_id"] = account_id
    return fields


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


class JsonFormatter(_LibraryJsonFormatter):
    """One JSON object per record (see the module's docstring for the fields)."""

    def __init__(self, node: str | None = None) -> None:
        super().__init__(
            reserved_attrs=_RESERVED,
            rename_fields={"exc_info": "exc", "stack_info": "stack"},
            json_default=str,
            json_ensure_ascii=False,
        )
        self.node = node

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        log_data.update(
            ts=datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            level=record.levelname.lower(),
            logger=record.name,
            node=node_id_var.get() or self.node or _process_node,
            pid=record.process if record.process is not None else os.getpid(),
            message=redact(record.getMessage()),
        )
        log_data.update(_access_fields(record) or {})
        log_data.update(context_fields())
        extra: dict[str, Any] = {}
        super().add_fields(extra, record, message_dict)  # `extra={...}`, exc_info, stack_info
        for key, value in extra.items():
            log_data.setdefault(key, value)
        if record.exc_info:
            kind = record.exc_info[0]
            log_data["exc_type"] = kind.__name__ if kind else None


class TextFormatter(logging.Formatter):
    """A plain line with the same ids, for a developer's terminal."""

    def __init__(self, node: str | None = None) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(ids)s: %(message)s")
        self.node = node

    def format(self, record: logging.LogRecord) -> str:
        ids = f" node={node_id_var.get() or self.node or _process_node}"
        ids += "".join(f" {key}={value}" for key, value in context_fields().items())
        record.ids = ids
        return redact(super().format(record))


class DropProbes(logging.Filter):
    """Leave out uvicorn's access lines for the probe endpoints."""

    def filter(self, record: logging.LogRecord) -> bool:
        access = _access_fields(record)
        return access is None or access["path"].split("?", 1)[0] not in PROBE_PATHS


def config(level: str = "info", fmt: str = "json", node: str | None = None) -> dict[str, Any]:
    """A `logging.config.dictConfig` for the app and uvicorn (also uvicorn's `log_config`);
    `node`: the node id of this process's lines."""
    formatter = "app.ops.logging.JsonFormatter" if fmt == "json" else "app.ops.logging.TextFormatter"
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"drop_probes": {"()": "app.ops.logging.DropProbes"}},
        "formatters": {"structured": {"()": formatter, "node": node}},
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


def configure(level: str = "info", fmt: str = "json", node: str | None = None) -> None:
    """Install `config(level, fmt, node)` for this process."""
    import logging.config

    if node is not None:
        set_node(node)
    logging.config.dictConfig(config(level, fmt, node))

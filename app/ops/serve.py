"""How this server listens: the one uvicorn configuration that `python -m app`, the test
servers (tests/live.py) and the cluster's test nodes all use, so that what is tested is the
edge that is deployed.

The limits of the edge are settings (app/settings.py) and are documented in
docs/architecture.md, "The edge".
"""

from __future__ import annotations

from typing import Any

import uvicorn

from app.ops import logging as ops_logging
from app.ops.ws_protocol import EdgeWebSocketProtocol
from app.protocol import MAX_MESSAGE_BYTES
from app.settings import Settings


def uvicorn_config(app: Any, settings: Settings, **overrides: Any) -> uvicorn.Config:
    """The uvicorn configuration of `app` for `settings`; `overrides` replace single
    options (a test's port, its log level)."""
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        "log_config": ops_logging.config(settings.log_level, settings.log_format),
        "ws": EdgeWebSocketProtocol,  # websockets-sansio, bounded for peers that do not read
        # game messages are ~200 bytes of JSON: compressing each frame cost more CPU than
        # anything else per frame and saved little (bench/load.md)
        "ws_per_message_deflate": False,
        # a frame larger than the largest client message closes the socket with 1009
        # before it is read whole
        "ws_max_size": MAX_MESSAGE_BYTES,
        "ws_ping_interval": settings.ws_ping_interval,
        "ws_ping_timeout": settings.ws_ping_timeout,
        "timeout_keep_alive": settings.keep_alive_seconds,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
    }
    options.update(overrides)
    return uvicorn.Config(app, **options)

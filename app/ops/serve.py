"""How this server listens: the one uvicorn configuration that `python -m app`, the test
servers (tests/live.py) and the cluster's test nodes all use, so that what is tested is the
edge that is deployed.

The limits of the edge are settings (app/ops/transport.py for the connections' own,
app/settings.py for all) and are documented in docs/architecture.md, "The edge".

With `PROCESSES` above 1 (app/ops/supervisor.py) each worker serves a listening socket it
inherited from the supervisor (`serve_worker`) and watches its control socket
(`watch_supervisor`).

`python -m app` also raises its open-file soft limit to the hard limit
(`raise_open_file_limit`): every connection is a file, and a process left at a common
default of 1,024 stops accepting, health probes included, once that many are open.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import socket
import sys
import threading
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import uvicorn

from app.ops import logging as ops_logging
from app.ops import transport
from app.ops.handoff import Handoff
from app.protocol import MAX_MESSAGE_BYTES
from app.settings import Settings

UNLIMITED_FILES = 1 << 20  # what an unlimited hard limit is raised to (Linux's default nr_open)
FEW_FILES = 4096  # an open-file limit below this is logged as a warning

log = logging.getLogger(__name__)


def uvicorn_config(app: Any, settings: Settings, **overrides: Any) -> uvicorn.Config:
    """The uvicorn configuration of `app` for `settings`; `overrides` replace single
    options (a test's port, its log level)."""
    options: dict[str, Any] = {
        "http": transport.http_protocol(settings),
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        "log_config": ops_logging.config(settings.log_level, settings.log_format,
                                          settings.node_id),
        "ws": transport.websocket_protocol(settings),  # websockets-sansio
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


def raise_open_file_limit() -> tuple[int, int]:
    """Raise this process's open-file soft limit to its hard limit (an unlimited hard limit
    stands for `UNLIMITED_FILES`) and log it, as a warning below `FEW_FILES`; the soft
    limit before and after. A refusal leaves the limit as it was."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = UNLIMITED_FILES if hard == resource.RLIM_INFINITY else hard
    after = soft
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            after = wanted
        except (ValueError, OSError):
            pass
    few = after != resource.RLIM_INFINITY and after < FEW_FILES
    log.log(
        logging.WARNING if few else logging.INFO, "open-file limit: %d (was %d)", after, soft,
        extra={"open_files": after},
    )
    return soft, after


class _Worker(uvicorn.Server):
    """A worker's server: it takes and hands over table connections (`handoff`) and tells
    its supervisor once it serves."""

    def __init__(
        self, config: uvicorn.Config, control: socket.socket, handoff: Handoff | None
    ) -> None:
        super().__init__(config)
        self.control = control
        self.handoff = handoff

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.handoff is not None:
            protocol = self.config.http_protocol_class
            if issubclass(protocol, transport.HttpToolsLimits):
                protocol.handoff = self.handoff
            self.handoff.listen(
                transport.adopter(self.config, self.server_state, self.lifespan.state)
            )
        if self.started:
            try:
                self.control.sendall(b"up\n")
            except OSError:  # the supervisor is gone: the watcher stops this worker
                pass

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.handoff is not None:
            self.handoff.close()
        await super().shutdown(sockets)


def watch_supervisor(control_fd: int) -> socket.socket:
    """The control socket inherited as `control_fd`; a thread stops this process (SIGTERM,
    which uvicorn answers with a graceful shutdown) when the supervisor's end closes,
    whether the supervisor stopped or died."""
    control = socket.socket(fileno=control_fd)

    def watch() -> None:
        try:
            while control.recv(64):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="supervisor-watch", daemon=True).start()
    return control


def serve_worker(
    app: Any,
    settings: Settings,
    listen_fd: int,
    control: socket.socket,
    handoff_dir: Path | None = None,
) -> None:
    """Serve `app` on the listening socket inherited as `listen_fd` until SIGTERM/SIGINT,
    then exit 0; exit 3 (uvicorn's start failure) if it never served. With `handoff_dir`
    (the supervisor's), table connections go to the worker that owns their table
    (app/ops/handoff.py)."""
    listener = socket.socket(fileno=listen_fd)
    config = uvicorn_config(app, settings)  # also sets up the logs
    raise_open_file_limit()
    handoff = None
    if handoff_dir is not None:
        def owner_of(table_id: str) -> Awaitable[str | None]:
            return app.state.network.tables.owner(table_id)  # type: ignore[no-any-return]

        handoff = Handoff(handoff_dir, settings.node_id, owner_of)
    server = _Worker(config, control, handoff)
    # from here a signal asks for the graceful shutdown, and uvicorn, which re-raises the
    # signal that stopped it once it has shut down, finds the same handler
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, server.handle_exit)
    server.run(sockets=[listener])
    sys.exit(0 if server.started else 3)

"""Several server processes on one machine: `PROCESSES=N python -m app` (N > 1).

Python runs one thread of game code at a time, so one process uses one core. With
`PROCESSES=N` the command becomes a supervisor (this module) that

- refuses to start what cannot work (`refusal`): more than one process needs `REDIS_URL`
  (each process is a node of the cluster, docs/cluster.md), a database every process
  shares (PostgreSQL, not a SQLite file) and `JWT_SECRET`;
- lets `app/__main__.py` upgrade the database and grant the house its opening float once,
  before any worker exists;
- binds the listening socket once (`listen`) and starts N workers, each `python -m app
  --listen-fd F --control-fd C` (a new interpreter, not a fork of this one) that inherits
  the socket and serves it (app/ops/serve.py `serve_worker`): the kernel hands each new
  connection to whichever worker accepts it first, i.e. the least busy one;
- names worker i node `NODE_ID-i` (`node_name`; a restart of it `NODE_ID-i.1`, `.2` ...,
  so that no node id ever names two processes) and, with `METRICS_PORT` set, gives it the
  monitoring port `METRICS_PORT + i - 1`: every worker's /metrics can be scraped;
- gives worker i of N its first look at the whole heap's collection at i/N of `GC_FULL_EVERY`
  (`GC_FULL_FIRST`; app/ops/memory.py), so that no two stop for it at the same moment;
- restarts a worker that dies, after a pause (`FIRST_PAUSE`) that doubles while it keeps
  dying young; a worker that dies `MAX_QUICK_DEATHS` times in a row within
  `STABLE_SECONDS` of its start, or any worker that exits before all have served once (a
  wrong setting, Redis or the database unreachable), stops the whole thing with exit
  status 1. The cluster moves a dead worker's tables to the other nodes meanwhile;
- stops on SIGTERM or SIGINT: SIGTERM to every worker (each shuts down as one `python -m
  app` does: sockets closed, tables stopped, leases released), a SIGKILL to any still
  running after `STOP_SECONDS`; a second signal is passed on as SIGINT, which makes
  uvicorn skip waiting for connections. Status 0 when every worker stopped by itself.

Each worker holds one end of a socket pair whose other end the supervisor keeps: the worker
writes `up` on it once it serves, and shuts itself down when it reads the end of it, so
workers never outlive their supervisor, even one killed with SIGKILL.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from sqlalchemy import make_url

from app.ops import logging as ops_logging
from app.ops.handoff import handoff_directory
from app.ops.secret import SecretError, signing_secret
from app.settings import Settings

log = logging.getLogger(__name__)

BACKLOG = 2048  # the listening socket's queue (uvicorn's default)
STABLE_SECONDS = 60.0  # a worker that dies younger than this died young
MAX_QUICK_DEATHS = 5  # ... this many times in a row: the supervisor gives up
FIRST_PAUSE = 0.5  # seconds before a worker is restarted, doubled per young death
STOP_SECONDS = 30.0  # how long stopping workers may take before they are killed
POLL_SECONDS = 0.2  # how often the supervisor looks at its workers
MAX_BASE_LENGTH = 48  # NODE_ID's length with PROCESSES > 1 (node ids are at most 64)
UP = b"up\n"  # what a worker writes on its control socket once it serves


def refusal(settings: Settings) -> str | None:
    """Why `settings` cannot run as `settings.processes` processes, or None."""
    n = settings.processes
    if n <= 1:
        return None
    if not settings.redis_url:
        return (
            f"PROCESSES={n} runs {n} nodes of a cluster on this machine: set REDIS_URL "
            "(docs/cluster.md), or PROCESSES=1"
        )
    if make_url(settings.database_url).get_backend_name() == "sqlite":
        return (
            f"PROCESSES={n} needs a database every process shares: set DATABASE_URL to "
            "PostgreSQL (postgresql://...); a SQLite file serves one process (PROCESSES=1)"
        )
    try:
        signing_secret(settings)
    except SecretError as exc:
        return str(exc)
    if len(settings.node_id) > MAX_BASE_LENGTH:
        return (
            f"NODE_ID names the processes' nodes (NODE_ID-1 ... NODE_ID-{n}): at most "
            f"{MAX_BASE_LENGTH} characters with PROCESSES > 1"
        )
    if settings.metrics_port is not None and settings.metrics_port + n - 1 > 65535:
        return (
            f"METRICS_PORT: process i serves /metrics on METRICS_PORT + i - 1, and "
            f"{settings.metrics_port} + {n - 1} is past 65535"
        )
    return None


def node_name(base: str, slot: int, generation: int = 0) -> str:
    """The node id of worker `slot` (1-based) after `generation` restarts."""
    return f"{base}-{slot}" if generation == 0 else f"{base}-{slot}.{generation}"


def listen(host: str, port: int) -> socket.socket:
    """The listening socket every worker serves (inheritable by them)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        raise SystemExit(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


@dataclass
class Slot:
    """Worker `index` (1-based) and the process serving as it now."""

    index: int
    generation: int = 0  # restarts so far
    process: subprocess.Popen[bytes] | None = None
    control: socket.socket | None = None
    node: str = ""
    started_at: float = 0.0
    up: bool = False
    quick_deaths: int = 0  # deaths in a row, each within STABLE_SECONDS of its start
    restart_at: float = 0.0


class Supervisor:
    """Runs `settings.processes` workers on `listener` until a signal or a failure."""

    def __init__(self, settings: Settings, listener: socket.socket, handoff_dir: Path) -> None:
        self.settings = settings
        self.listener = listener
        self.handoff_dir = handoff_dir
        self.slots = [Slot(i) for i in range(1, settings.processes + 1)]
        self.selector = selectors.DefaultSelector()
        self.signals: list[int] = []
        self.serving = False  # every worker has been up at least once

    def run(self) -> int:
        """Serve until SIGTERM/SIGINT (0) or a failure (1); the exit status."""
        previous = {
            sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            for slot in self.slots:
                self._start(slot)
            status = self._supervise()
            stopped = self._stop()
            return status if stopped else 1
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.selector.close()

    def _on_signal(self, sig: int, frame: FrameType | None) -> None:
        self.signals.append(sig)

    def _start(self, slot: Slot) -> None:
        settings = self.settings
        parent_end, child_end = socket.socketpair()
        slot.node = node_name(settings.node_id, slot.index, slot.generation)
        env = dict(os.environ) | {"NODE_ID": slot.node}
        if settings.metrics_port is not None:
            env["METRICS_PORT"] = str(settings.metrics_port + slot.index - 1)
        # each its own moment for collecting the whole heap (app/ops/memory.py)
        env["GC_FULL_FIRST"] = str(settings.gc_full_every * slot.index / settings.processes)
        command = [
            sys.executable, "-m", "app",
            "--listen-fd", str(self.listener.fileno()),
            "--control-fd", str(child_end.fileno()),
            "--handoff-dir", str(self.handoff_dir),
        ]
        try:
            slot.process = subprocess.Popen(
                command, env=env, pass_fds=(self.listener.fileno(), child_end.fileno())
            )
        finally:
            child_end.close()
        slot.control = parent_end
        slot.started_at = time.monotonic()
        slot.up = False
        self.selector.register(parent_end, selectors.EVENT_READ, slot)
        log.info(
            "worker %d started: node %s, pid %d", slot.index, slot.node, slot.process.pid,
            extra={"worker": slot.index, "worker_node": slot.node, "worker_pid": slot.process.pid},
        )

    def _supervise(self) -> int:
        """Until a signal (0) or a failure (1)."""
        while not self.signals:
            self._read_controls(POLL_SECONDS)
            now = time.monotonic()
            for slot in self.slots:
                if slot.process is not None:
                    code = slot.process.poll()
                    if code is not None and not self._died(slot, code, now):
                        return 1
                elif now >= slot.restart_at and not self.signals:
                    slot.generation += 1
                    self._start(slot)
            if not self.serving and all(slot.up for slot in self.slots):
                self.serving = True
                host, port = self.listener.getsockname()[:2]
                nodes = [slot.node for slot in self.slots]
                log.info(
                    "serving on %s:%d with %d processes: nodes %s", host, port,
                    len(self.slots), ", ".join(nodes),
                    extra={"processes": len(self.slots), "nodes": nodes},
                )
        return 0

    def _read_controls(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            slot: Slot = key.data
            try:
                data = slot.control.recv(64) if slot.control is not None else b""
            except OSError:
                data = b""
            if not data:  # the worker closed its end: it is exiting
                self._close_control(slot)
            elif UP.strip() in data and not slot.up:
                slot.up = True
                pid = slot.process.pid if slot.process is not None else 0
                log.info(
                    "worker %d is up: node %s, pid %d", slot.index, slot.node, pid,
                    extra={"worker": slot.index, "worker_node": slot.node, "worker_pid": pid},
                )

    def _close_control(self, slot: Slot) -> None:
        if slot.control is None:
            return
        try:
            self.selector.unregister(slot.control)
        except (KeyError, ValueError):
            pass
        slot.control.close()
        slot.control = None

    def _died(self, slot: Slot, code: int, now: float) -> bool:
        """A worker exited on its own: plan its restart (True) or give up (False)."""
        assert slot.process is not None
        pid, lived = slot.process.pid, now - slot.started_at
        self._close_control(slot)
        slot.process, slot.up = None, False
        how = f"signal {-code}" if code < 0 else f"status {code}"
        fields = {"worker": slot.index, "worker_node": slot.node, "worker_pid": pid, "exit": code}
        if not self.serving:
            log.error(
                "worker %d (node %s, pid %d) exited with %s before every worker served: "
                "stopping (its log above says why)", slot.index, slot.node, pid, how,
                extra=fields,
            )
            return False
        slot.quick_deaths = slot.quick_deaths + 1 if lived < STABLE_SECONDS else 0
        if slot.quick_deaths >= MAX_QUICK_DEATHS:
            log.error(
                "worker %d (node %s, pid %d) exited with %s, the %d time in a row within "
                "%g s of its start: stopping", slot.index, slot.node, pid, how,
                slot.quick_deaths, STABLE_SECONDS, extra=fields,
            )
            return False
        pause = FIRST_PAUSE * 2 ** max(0, slot.quick_deaths - 1)  # 0.5, 1, 2, 4 s
        slot.restart_at = now + pause
        log.warning(
            "worker %d (node %s, pid %d) exited with %s after %.1f s: restarting in %g s as "
            "node %s", slot.index, slot.node, pid, how, lived, pause,
            node_name(self.settings.node_id, slot.index, slot.generation + 1), extra=fields,
        )
        return True

    def _stop(self) -> bool:
        """Stop every worker; True when all stopped by themselves within STOP_SECONDS."""
        self.listener.close()  # the workers' copies close as they stop accepting
        running = [slot for slot in self.slots if slot.process is not None]
        log.info(
            "stopping %d worker%s", len(running), "" if len(running) == 1 else "s",
            extra={"processes": len(running)},
        )
        for slot in running:
            self._signal(slot, signal.SIGTERM)
        seen = len(self.signals)
        deadline = time.monotonic() + STOP_SECONDS
        while running and time.monotonic() < deadline:
            if len(self.signals) > seen:  # asked again: hurry
                seen = len(self.signals)
                for slot in running:
                    self._signal(slot, signal.SIGINT)
            time.sleep(POLL_SECONDS / 2)
            running = [s for s in running if s.process is not None and s.process.poll() is None]
        for slot in running:
            assert slot.process is not None
            log.error(
                "worker %d (node %s, pid %d) did not stop within %g s: killed", slot.index,
                slot.node, slot.process.pid, STOP_SECONDS,
                extra={"worker": slot.index, "worker_node": slot.node, "worker_pid": slot.process.pid},
            )
            slot.process.kill()
            slot.process.wait()
        for slot in self.slots:
            self._close_control(slot)
        return not running

    def _signal(self, slot: Slot, sig: int) -> None:
        if slot.process is not None and slot.process.poll() is None:
            try:
                slot.process.send_signal(sig)
            except ProcessLookupError:
                pass


def run(settings: Settings) -> int:
    """Serve `settings.processes` workers on the configured port; the exit status. The
    caller has checked `refusal` and upgraded the database."""
    ops_logging.configure(settings.log_level, settings.log_format, settings.node_id)
    listener = listen(settings.host, settings.port)
    # the workers' sockets for handing each other connections (app/ops/handoff.py): a
    # directory only this user may open, gone when the supervisor is (and, after a SIGKILL,
    # at the next supervisor's start)
    with handoff_directory() as handoff_dir:
        return Supervisor(settings, listener, handoff_dir).run()

"""A new WebSocket connection handed to the worker that serves its table (issue 18).

With `PROCESSES=N` the kernel gives each connection to whichever worker accepts it first,
so a player's socket and their table's actor are on the same process only one time in N,
and every message between them crosses Redis (docs/cluster.md, "Routing"): at 1,000
tables that was a third of the server's CPU. A client that knows its table opens
``/ws/<table_id>`` instead of ``/ws``; the worker that accepted the connection reads the
request head, asks who owns that table (`owner_of`: the table's lease), and when it is
another worker of this machine passes it the connection itself, the socket's file
descriptor with the head (SCM_RIGHTS over a Unix socket), before anything is answered. That
worker serves it as if it had accepted it: the client sees one ordinary handshake.

The table id in the path is a hint and nothing more: it is not checked against the account
(which is known only from the ``hello`` after the handshake), and whatever it names, the
connection is served, here when the hint names no table, a table this worker owns, a node
that is not on this machine, or when the handing over fails (the other worker is gone or
its queue is full, the lookup takes longer than `LOOKUP_SECONDS`). A table that moves to
another worker later (failover) keeps its players' sockets where they are, routed as
before, until they reconnect.

The workers' Unix sockets are named after their nodes in a directory only the server's
user can open (the supervisor makes it, `handoff_directory`), so only the workers of this
supervisor can hand each other connections. The directory is named after the supervisor's
pid: a supervisor killed with SIGKILL cannot remove its own, so each supervisor that
starts removes those of the supervisors no longer running (`remove_abandoned`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import socket
import stat
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from app.ops import metrics

log = logging.getLogger(__name__)

MAX_HEAD = 64 * 1024  # a request head larger than this is served where it arrived
LOOKUP_SECONDS = 0.5  # asking who owns the table, at most
BACKLOG = 128
MAX_PATH = 107  # a Unix socket's name, in bytes (Linux: 108 with the final NUL)
HINT = re.compile(rb"/ws/([A-Za-z0-9_-]{1,64})")  # the whole path: nothing else is a hint

OwnerOf = Callable[[str], Awaitable[str | None]]
"""The node that owns a table now (its lease), None when none does."""
Adopt = Callable[[socket.socket, bytes], None]
"""Serve a connection handed over by another worker, whose request head was `bytes`."""


DIRECTORY_PREFIX = "zjmahjong-handoff-"
_DIRECTORY = re.compile(rf"{DIRECTORY_PREFIX}([1-9][0-9]*)-.+")  # ...-<pid>-<random>


@contextlib.contextmanager
def handoff_directory(parent: Path | None = None) -> Iterator[Path]:
    """A new directory for the workers' sockets, mode 0700, in `parent` (the system's
    temporary directory) and named after this process's pid, removed when the block ends;
    the directories that supervisors no longer running left there go first."""
    parent = Path(tempfile.gettempdir()) if parent is None else parent
    for path in remove_abandoned(parent):
        log.info("removed %s: its supervisor is gone", path)
    path = Path(tempfile.mkdtemp(prefix=f"{DIRECTORY_PREFIX}{os.getpid()}-", dir=parent))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def remove_abandoned(parent: Path) -> list[Path]:
    """Remove the handoff directories in `parent` that belong to this user and whose
    supervisor (the pid in the name) is not running; the ones removed. A directory named
    otherwise (an older version's, with no pid) is left: nothing tells whether its
    supervisor runs. A pid taken again by another process keeps its directory until a
    start after that process is gone: at most one per pid."""
    removed = []
    for path in sorted(parent.glob(f"{DIRECTORY_PREFIX}*")):
        match = _DIRECTORY.fullmatch(path.name)
        if match is None:
            continue
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue  # not one this user's supervisor made
        if _running(int(match[1])):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _running(pid: int) -> bool:
    """A process with this pid exists (this user's or not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def table_hint(path: bytes) -> str | None:
    """The table a request path names as its hint (``/ws/<table_id>``), else None."""
    match = HINT.fullmatch(path)
    return match[1].decode("ascii") if match else None


class Handoff:
    """This worker's end: it passes connections to the other workers' sockets in
    `directory` and takes theirs on its own (`directory / node`)."""

    def __init__(self, directory: Path, node: str, owner_of: OwnerOf) -> None:
        self.directory = directory
        self.node = node
        self.owner_of = owner_of
        self._listener: socket.socket | None = None
        self._peers: dict[str, socket.socket] = {}  # node -> our connection to its socket
        self._inbound: set[socket.socket] = set()

    @property
    def path(self) -> Path:
        return self.directory / self.node

    # --- taking connections ---------------------------------------------------------------

    def listen(self, adopt: Adopt) -> None:
        """Take the connections other workers hand over (on the running event loop)."""
        loop = asyncio.get_running_loop()
        if len(bytes(self.path)) > MAX_PATH:
            log.warning("handing connections over is off: the socket path %s is too long",
                        self.path)
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket file left by an earlier process of the same name
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(str(self.path))
        listener.listen(BACKLOG)
        listener.setblocking(False)
        self._listener = listener

        def accept() -> None:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.setblocking(False)
            self._inbound.add(conn)
            loop.add_reader(conn.fileno(), receive, conn)

        def receive(conn: socket.socket) -> None:
            try:
                head, fds, _, _ = socket.recv_fds(conn, MAX_HEAD, 1)
            except BlockingIOError:
                return
            except OSError:
                head, fds = b"", []
            if not fds:  # the other worker closed its end (or sent nothing usable)
                if not head:
                    self._drop_inbound(loop, conn)
                return
            sock = socket.socket(fileno=fds[0])
            metrics.handoff("taken")
            try:
                adopt(sock, head)
            except Exception:
                log.exception("a connection handed over could not be served")
                sock.close()

        loop.add_reader(listener.fileno(), accept)

    def _drop_inbound(self, loop: asyncio.AbstractEventLoop, conn: socket.socket) -> None:
        loop.remove_reader(conn.fileno())
        self._inbound.discard(conn)
        conn.close()

    # --- passing connections on -----------------------------------------------------------

    async def pass_on(self, table_id: str, sock: socket.socket, head: bytes) -> bool:
        """Hand `sock` (its request head read: `head`) to the worker that owns `table_id`,
        if that is another worker of this machine: True once it is on its way there (this
        process may then close its copy), False to serve it here."""
        if len(head) > MAX_HEAD:
            return False
        try:
            async with asyncio.timeout(LOOKUP_SECONDS):
                node = await self.owner_of(table_id)
        except Exception:  # noqa: BLE001 - Redis slow or away: the connection is served here, as before
            return False
        if node is None or node == self.node:
            return False
        peer = self._peer(node)
        if peer is None:
            return False
        try:
            socket.send_fds(peer, [head], [sock.fileno()])
        except OSError:  # its queue is full, or it is gone: served here
            self._forget(node)
            return False
        metrics.handoff("passed")
        return True

    def _peer(self, node: str) -> socket.socket | None:
        """Our connection to `node`'s socket, made on first use; None when `node` has no
        socket in the directory (another machine's node, or a worker that is gone)."""
        peer = self._peers.get(node)
        if peer is not None:
            return peer
        if "/" in node or node in ("", ".", ".."):
            return None
        peer = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        peer.setblocking(False)
        try:  # a Unix socket connects at once, or not (no file, nobody there, backlog full)
            peer.connect(str(self.directory / node))
        except OSError:
            peer.close()
            return None
        self._peers[node] = peer
        return peer

    def _forget(self, node: str) -> None:
        peer = self._peers.pop(node, None)
        if peer is not None:
            peer.close()

    def close(self) -> None:
        """Stop taking and passing connections; this worker's socket file goes."""
        for node in list(self._peers):
            self._forget(node)
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed already
                loop = asyncio.get_running_loop()
                loop.remove_reader(listener.fileno())
                for conn in list(self._inbound):
                    self._drop_inbound(loop, conn)
            listener.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

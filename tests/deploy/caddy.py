"""The compose reference's Caddy (deploy/compose/Caddyfile, unchanged) run on this machine in
front of a test server: what docker-compose.yml's `proxy` service runs, with its environment
pointing it at a loopback port instead of the `app` replicas."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.loadtest.servers import free_port
from tests.deploy.tools import program

ROOT = Path(__file__).resolve().parents[2]
CADDYFILE = ROOT / "deploy" / "compose" / "Caddyfile"
START_SECONDS = 30.0  # Caddy listens within a second; a loaded machine may take longer


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def caddy_in_front(upstream_port: int, home: Path) -> Iterator[int]:
    """`caddy run` with the Caddyfile, serving plain HTTP on a free loopback port in front
    of 127.0.0.1:`upstream_port` until the block ends; the port. Its state and log go
    under `home`; a Caddy that exits or does not listen fails the test with its log."""
    caddy = program("caddy", "caddy")
    port = free_port()
    environment = {
        **os.environ,
        "SITE_ADDRESS": f":{port}",
        "APP_HOST": "127.0.0.1",
        "APP_PORT": str(upstream_port),
        "CADDY_ADMIN": "off",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    log_path = home / "caddy.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [caddy, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env=environment, stdout=log, stderr=subprocess.STDOUT, cwd=home,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"caddy did not serve :{port}:\n{log_path.read_text()}")
            time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

"""A fresh node for the tests of what an operator reads: `python -m app` in a process of its
own (so that nothing else of the test process has moved its metrics), over a migrated SQLite
file, its log written to a file."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from app.loadtest.servers import UNBARRED_SIGNUPS, free_port
from app.store import migrate
from tests.cluster.processes import Node, stop_all, wait_up

ROOT = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@dataclass
class FreshNode:
    node: Node
    url: str


@contextmanager
def fresh_node(tmp_path: Path, **env: str) -> Iterator[FreshNode]:
    """A node on a new SQLite database; `env` adds to (or replaces) its settings."""
    database = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrate.upgrade(database)
    port = free_port()
    log = tmp_path / "node.log"
    settings = {
        "DATABASE_URL": database, "JWT_SECRET": "fresh-node-secret-" + "x" * 32,
        "NODE_ID": "fresh", "HOST": "127.0.0.1", "PORT": str(port), "MIGRATE_ON_START": "false",
        "HOUSE_FLOAT": "0", "ARGON2_TIME_COST": "1", "ARGON2_MEMORY_KIB": "1024",
        "ARGON2_PARALLELISM": "1", "LOG_LEVEL": "info", "PYTHONPATH": str(ROOT),
    } | UNBARRED_SIGNUPS | env
    process = subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=ROOT, env=dict(os.environ) | settings,
        stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )
    node = Node("fresh", f"127.0.0.1:{port}", process, log)
    try:
        wait_up(node)
        yield FreshNode(node, f"http://127.0.0.1:{port}")
    finally:
        stop_all([process])


def parse(text: str) -> Samples:
    """A scrape's samples, by name and sorted labels."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def scrape(url: str) -> Samples:
    """The samples of a node's /metrics."""
    answer = httpx.get(f"{url}/metrics", timeout=10)
    assert answer.status_code == 200
    return parse(answer.text)

"""Prometheus for the tests of the alert rules (tests/ops/test_alert_rules.py,
tests/ops/test_alert_fires.py).

`TEST_PROMETHEUS` names the `prometheus` binary, with `promtool` beside it (Debian's
`prometheus` package has both in /usr/bin; `.ci/run` installs it and sets the variable).
Unset, those tests skip with the reason; set but wrong, they fail. A Prometheus a test starts
listens on a free loopback port, keeps its data in the test's temporary folder and is
stopped when the block ends.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.loadtest.servers import free_port
from tests.cluster.processes import stop_all, wait_answering

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "deploy" / "prometheus" / "rules.yml"


def prometheus_path() -> Path:
    """The binary `TEST_PROMETHEUS` names; skips the test when it is unset."""
    configured = os.environ.get("TEST_PROMETHEUS")
    if not configured:
        pytest.skip("no Prometheus: set TEST_PROMETHEUS to the prometheus binary (.ci/run "
                    "installs Debian's prometheus package and sets it)")
    binary = Path(configured)
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.fail(f"TEST_PROMETHEUS={configured} is not an executable file", pytrace=False)
    return binary


def promtool_path() -> Path:
    """`promtool`, beside the binary `TEST_PROMETHEUS` names."""
    promtool = prometheus_path().parent / "promtool"
    if not (promtool.is_file() and os.access(promtool, os.X_OK)):
        pytest.fail(f"TEST_PROMETHEUS is set but there is no promtool beside it ({promtool})",
                    pytrace=False)
    return promtool


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(promtool_path()), *args], capture_output=True, text=True, timeout=60, check=False,
        cwd=ROOT,
    )


@contextmanager
def prometheus(targets: list[str], folder: Path, interval: str = "1s") -> Iterator[str]:
    """A Prometheus that scrapes `targets` (host:port, job `mahjong`) and evaluates
    deploy/prometheus/rules.yml every `interval`, until the block ends; its base URL."""
    port = free_port()
    config: dict[str, Any] = {
        "global": {"scrape_interval": interval, "evaluation_interval": interval,
                   "scrape_timeout": interval},
        "rule_files": [str(RULES)],
        "scrape_configs": [{"job_name": "mahjong", "static_configs": [{"targets": targets}]}],
    }
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
    log = folder / "prometheus.log"
    process = subprocess.Popen(
        [str(prometheus_path()), f"--config.file={folder / 'prometheus.yml'}",
         f"--storage.tsdb.path={folder / 'data'}", f"--web.listen-address=127.0.0.1:{port}",
         "--log.level=warn"],
        stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_answering(f"{url}/-/ready", process, log, "prometheus")
        yield url
    finally:
        stop_all([process])

"""The programs the deployment tests run, from Debian's packages: `caddy` (the compose
reference's proxy; promtool is found through TEST_PROMETHEUS, tests/prometheus.py).
`.ci/run` installs them with apt-get, as it installs chromium.

`program(name, package)` finds one on PATH. Missing, the test fails when it runs in CI (CI is
set: .ci/run should have installed it) and skips with the install line on a developer's
machine, as the browser tests do without chromium."""

from __future__ import annotations

import os
import shutil

import pytest


def program(name: str, package: str) -> str:
    """The path of `name` (from the Debian package `package`); fails in CI without it."""
    found = shutil.which(name)
    if found is not None:
        return found
    install = f"apt-get install -y {package}"
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed, and CI should have it (.ci/run: {install})",
                    pytrace=False)  # fmt: skip
    pytest.skip(f"no {name} on this machine: `{install}` (.ci/run does) runs this test")

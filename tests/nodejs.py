"""Node for the tests that run JavaScript from the npm registry (tests/contract_js).

`TEST_NODE` names the node binary; unset, those tests skip (the README's test command needs
only Python), set but wrong, they fail. `.ci/run` sets it when node is on the machine.

`npm_ci(folder)` installs a folder's committed package-lock.json with npm's own `npm ci`,
quietly, its download cache in the folder (`.npm-cache`, gitignored) so a second machine run
needs no network; a folder already installed from the same lock is left as it is. A failed
install fails the test with npm's output.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

STAMP = ".installed-from-lock"  # in node_modules: the hash of the lock it was installed from
NPM_CI = ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline",
          "--loglevel=error"]  # fmt: skip


def node_path() -> Path:
    """The node binary `TEST_NODE` names; skips the test when it is unset."""
    configured = os.environ.get("TEST_NODE")
    if not configured:
        pytest.skip("no node: set TEST_NODE to the node binary (.ci/run does) to run this test")
    node = Path(configured)
    if not (node.is_file() and os.access(node, os.X_OK)):
        pytest.fail(f"TEST_NODE={configured} is not an executable file", pytrace=False)
    return node


def node_environment(node: Path) -> dict[str, str]:
    """The environment with `node`'s folder first on PATH: npm's scripts start with
    `#!/usr/bin/env node` and must find the same node."""
    return {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "NPM_CONFIG_UPDATE_NOTIFIER": "false"}  # fmt: skip


def _npm(node: Path) -> str:
    beside = node.parent / "npm"
    if beside.is_file():
        return str(beside)
    found = shutil.which("npm", path=node_environment(node)["PATH"])
    if found is None:
        pytest.fail(f"TEST_NODE={node} is set but no npm is beside it or on PATH", pytrace=False)
    return found


def npm_ci(folder: Path, node: Path) -> None:
    """`npm ci` in `folder` unless its node_modules came from the same package-lock.json.
    Locked, so that test processes running at once install once."""
    lock = hashlib.sha256((folder / "package-lock.json").read_bytes()).hexdigest()
    stamp = folder / "node_modules" / STAMP
    with open(folder / ".npm-install.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == lock:
            return
        done = subprocess.run(
            [_npm(node), *NPM_CI, "--cache", str(folder / ".npm-cache")],
            cwd=folder, env=node_environment(node), capture_output=True, text=True,
            timeout=240, check=False,
        )
        if done.returncode != 0:
            pytest.fail(
                f"npm ci in {folder} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}",
                pytrace=False,
            )
        stamp.write_text(lock)

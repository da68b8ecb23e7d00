"""The client kit's own tests (clients/js, issue 36, item 1): `npm ci`, then `npm test` as a
client developer runs it on a clean clone: node's test runner (the connection against a
fake socket, the table model, verify, and a whole hand against a real server this Python
starts, with examples/bot.js), then tsc over the declarations and the example. Runs when
`TEST_NODE` names node (tests/nodejs.py; .ci/run sets it), skips otherwise."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.nodejs import node_environment, node_path, npm_ci

KIT = Path(__file__).resolve().parents[2] / "clients" / "js"


def test_npm_test_passes_with_the_real_server_hand_played() -> None:
    node = node_path()
    npm_ci(KIT, node)
    env = node_environment(node) | {"ZJ_PYTHON": sys.executable}
    npm = shutil.which("npm", path=env["PATH"])
    if npm is None:
        pytest.fail(f"TEST_NODE={node} is set but no npm is beside it or on PATH", pytrace=False)
    done = subprocess.run(
        [npm, "test"], cwd=KIT, env=env, capture_output=True, text=True, timeout=280, check=False
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    # nothing skipped: the hand against the real server and the example bot were played
    assert re.search(r"^\S* ?skipped 0$", out, re.MULTILINE), out
    for name in ("a bot built from the kit plays a whole hand", "examples/bot.js"):
        assert re.search(rf"^(ok \d+ -|✔) {re.escape(name)}", out, re.MULTILINE), out

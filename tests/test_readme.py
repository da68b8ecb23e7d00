"""The README's two commands stay true: .ci/run runs exactly its test command, after it has
installed the locked dependencies and run ruff and mypy in the same venv, and fails when any
of them fails. .ci/run is run for real, with every program it calls replaced by one that
notes its call and answers as the test says: what it runs, in which order, and its exit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCK_INSTALL = ".venv/bin/pip install -q --require-hashes -r requirements/dev.txt"
RUFF = ".venv/bin/ruff check app tests bench"
MYPY = ".venv/bin/python -m mypy app bench"
# how the stubs below see the README's test command, one call after another
README_CALLS = [
    "python3 -m venv .venv", ".venv/bin/pip install -q -e .[dev]", ".venv/bin/python -m pytest",
]
STUB = """#!/usr/bin/env bash
call="{name} $*"
echo "$call" >> "$CI_CALLS"
# the exit status the test chose for this call (CI_EXIT: lines of `status call`), else 0
while read -r status expected; do
    if [ "$call" = "$expected" ]; then exit "$status"; fi
done < "$CI_EXIT"
exit 0
"""


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = text.split("```sh\n")[1:3]
    return [b.split("\n```")[0].strip() for b in blocks]


def test_readme_starts_with_the_two_commands() -> None:
    run, test = _readme_commands()
    assert run.endswith("python -m app")
    assert test.endswith("python -m pytest")
    assert (ROOT / "README.md").read_text().lstrip().splitlines()[2] == "```sh"


def test_ci_runs_the_readme_test_command() -> None:
    _, test = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci.count(test) == 1


def _stub(path: Path, name: str) -> None:
    path.write_text(STUB.format(name=name))
    path.chmod(0o755)


def _run_ci(tmp_path: Path, failing: dict[str, int]) -> tuple[int, list[str], str]:
    """.ci/run in a tree of its own whose python3, venv programs, database and Redis checks
    and apt-get are stubs; `failing` maps a call to the status it exits with. The exit, the
    calls of the venv's programs and of python3 in order, and what it wrote to stderr."""
    tree = tmp_path / "tree"
    (tree / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", tree / ".ci" / "run")
    venv, tools = tree / ".venv" / "bin", tmp_path / "tools"
    venv.mkdir(parents=True)
    tools.mkdir()
    for name in ("pip", "python", "ruff"):
        _stub(venv / name, f".venv/bin/{name}")
    for name in ("python3", "pg_isready", "redis-cli", "apt-get", "pg_ctlcluster"):
        _stub(tools / name, name)
    calls, exits = tmp_path / "calls", tmp_path / "exits"
    calls.touch()
    exits.write_text("".join(f"{status} {call}\n" for call, status in failing.items()))
    env = {
        **os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "CI_CALLS": str(calls),
        "CI_EXIT": str(exits),
    }
    ran = subprocess.run(
        ["bash", str(tree / ".ci" / "run")], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )
    made = [
        line for line in calls.read_text().splitlines()
        if line.startswith((".venv/", "python3 "))
    ]
    return ran.returncode, made, ran.stderr


def test_ci_installs_the_lock_lints_then_runs_the_readme_command(tmp_path: Path) -> None:
    status, calls, _ = _run_ci(tmp_path, {})
    assert status == 0
    assert calls == ["python3 -m venv .venv", LOCK_INSTALL, RUFF, MYPY, *README_CALLS]
    _, test = _readme_commands()
    assert " && ".join(README_CALLS).replace(".[dev]", "'.[dev]'") == test


@pytest.mark.parametrize(
    ("failing", "status"),
    [
        ({RUFF: 1}, 1),
        ({MYPY: 1}, 1),
        ({RUFF: 1, MYPY: 2}, 1),
        ({README_CALLS[2]: 1}, 1),
        ({README_CALLS[2]: 5}, 5),  # no test collected: fails, and says so
        ({README_CALLS[1]: 1}, 1),
    ],
)
def test_ci_fails_when_a_linter_or_the_tests_fail(
    tmp_path: Path, failing: dict[str, int], status: int
) -> None:
    """The tests run whatever the linters said (CI shows every failure at once), and the
    run fails if any of them failed."""
    exit_status, calls, stderr = _run_ci(tmp_path, failing)
    assert exit_status == status
    assert calls[-1] == next(c for c in README_CALLS if c in failing or c == README_CALLS[2])
    if status == 5:
        assert "no tests were collected" in stderr


def test_ci_stops_when_the_lock_does_not_install(tmp_path: Path) -> None:
    """A hash that does not match (or a package missing from the lock) stops the run: the
    README's command would otherwise install whatever versions the index has."""
    exit_status, calls, stderr = _run_ci(tmp_path, {LOCK_INSTALL: 1})
    assert exit_status != 0
    assert calls == ["python3 -m venv .venv", LOCK_INSTALL]
    assert "requirements/dev.txt" in stderr

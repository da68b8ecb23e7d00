"""The container files, read as Docker and Compose would read them (no Docker engine runs
here): the image runs as a non-root user with a health check; Compose runs two nodes that
wait for a healthy PostgreSQL and Redis and a finished migration, and point at them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
NODES = ("app1", "app2")
# settings of the cluster half (docs/cluster.md) that a node may set beyond app/settings.py
CLUSTER_SETTINGS = {"NODE_ID"}


def _dockerfile() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_dockerfile_is_slim_non_root_and_health_checked() -> None:
    lines = _dockerfile()
    assert lines[0] == "FROM python:3.11-slim"
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0"), "the server must not run as root"
    user_at = max(i for i, line in enumerate(lines) if line.startswith("USER "))
    cmd_at = max(i for i, line in enumerate(lines) if line.startswith("CMD "))
    assert user_at < cmd_at
    healthchecks = [line for line in lines if line.startswith("HEALTHCHECK ")]
    assert len(healthchecks) == 1 and "/health" in healthchecks[0]
    assert any(re.fullmatch(r"RUN pip install \.", line) for line in lines)  # from pyproject
    assert lines[cmd_at] == 'CMD ["python", "-m", "app"]'
    assert any("MIGRATE_ON_START=false" in line for line in lines if line.startswith("ENV "))
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", ".env"} <= set(ignored)


def test_compose_wires_two_nodes_to_postgres_redis_and_a_migration() -> None:
    services = _compose()["services"]
    assert set(services) == {"postgres", "redis", "migrate", *NODES}
    for dependency in ("postgres", "redis"):
        assert services[dependency]["healthcheck"]["test"], dependency

    migrate = services["migrate"]
    assert migrate["command"][:3] == ["python", "-m", "app.store.migrate"]
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert migrate["restart"] == "no"

    ports = set()
    for name in NODES:
        node = services[name]
        assert node["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert node["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert node["depends_on"]["redis"]["condition"] == "service_healthy"
        env = node["environment"]
        assert env["DATABASE_URL"].startswith("postgresql://")
        assert "@postgres:5432/" in env["DATABASE_URL"]
        assert env["DATABASE_URL"] == migrate["environment"]["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:6379")
        assert env["JWT_SECRET"].startswith("${JWT_SECRET:?")  # no default secret
        assert env["MIGRATE_ON_START"] == "false"  # the migrate service did it
        known = {field.upper() for field in Settings.model_fields} | CLUSTER_SETTINGS
        assert set(env) <= known, set(env) - known
        assert "/ready" in " ".join(node["healthcheck"]["test"])
        ports.update(node["ports"])
    assert len(ports) == len(NODES)
    assert services["app1"]["environment"]["NODE_ID"] != services["app2"]["environment"]["NODE_ID"]
    postgres_env = services["postgres"]["environment"]
    assert f"{postgres_env['POSTGRES_USER']}:" in services["app1"]["environment"]["DATABASE_URL"]

"""What the deployment tests read: the repository's deployment files, the image's facts
from the Dockerfile, and the names of the server's settings."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
COMPOSE_DIR = ROOT / "deploy" / "compose"
K8S_DIR = ROOT / "deploy" / "k8s"
# every environment variable the server reads (pydantic-settings: a field's name in capitals)
SETTINGS = frozenset(name.upper() for name in Settings.model_fields)


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def image_uid() -> int:
    """The user id the image runs as: its numeric USER, else the uid its useradd gives."""
    text = (ROOT / "Dockerfile").read_text()
    numeric = re.findall(r"^USER\s+(\d+)", text, re.MULTILINE)
    if numeric:
        return int(numeric[-1])
    made = re.search(r"useradd\b[^\n]*--uid[= ](\d+)", text.replace("\\\n", " "))
    assert made, "the Dockerfile makes no user with a fixed uid"
    return int(made.group(1))


def image_env(name: str) -> str:
    """A variable the Dockerfile's ENV sets (METRICS_PORT, PORT ...)."""
    found = re.search(rf"\b{name}=(\S+)", (ROOT / "Dockerfile").read_text())
    assert found, f"the Dockerfile sets no {name}"
    return found.group(1)

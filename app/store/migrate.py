"""Run the Alembic migrations from Python (the server's start-up, the tests, the admin
command). `python -m app.store.migrate [upgrade|downgrade] [revision]`."""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parents[2]


def _config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    command.downgrade(_config(url), revision)


if __name__ == "__main__":
    from app.settings import get_settings

    action = sys.argv[1] if len(sys.argv) > 1 else "upgrade"
    target = sys.argv[2] if len(sys.argv) > 2 else ("head" if action == "upgrade" else "base")
    (upgrade if action == "upgrade" else downgrade)(get_settings().database_url, target)
    print(f"{action} to {target}: done")

"""Run the Alembic migrations from Python (the server's start-up, the tests, the admin
command). `python -m app.store.migrate [upgrade|downgrade] [revision] [--sql]`.

With `--sql` nothing is run: the SQL of the upgrade (or the downgrade: its revision is then
`FROM:TO`, e.g. `head:0005`) is written out for DATABASE_URL's kind of database (PostgreSQL
or SQLite; the database itself is not read), for a DBA to review or apply
(docs/operating.md). It runs in one transaction."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TextIO

from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parents[2]


def _config(url: str, output: TextIO | None = None) -> Config:
    config = Config(str(ROOT / "alembic.ini"), output_buffer=output)
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    command.downgrade(_config(url), revision)


def sql(url: str, action: str, revision: str) -> str:
    """The SQL of `action` ("upgrade" or "downgrade") to `revision` for the kind of database
    `url` names, without connecting to it (Alembic's offline mode). An upgrade's `revision`
    may be `FROM:TO` (from `base` otherwise); a downgrade's must be."""
    output = io.StringIO()
    run = command.upgrade if action == "upgrade" else command.downgrade
    run(_config(url, output), revision, sql=True)
    return output.getvalue()


def main(argv: list[str]) -> int:
    from alembic.util import CommandError

    from app.settings import get_settings

    words = [word for word in argv if word != "--sql"]
    action = words[0] if words else "upgrade"
    if action not in ("upgrade", "downgrade") or len(words) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    target = words[1] if len(words) > 1 else ("head" if action == "upgrade" else "base")
    url = get_settings().database_url
    try:
        if "--sql" in argv:
            sys.stdout.write(sql(url, action, target))
            return 0
        (upgrade if action == "upgrade" else downgrade)(url, target)
    except CommandError as refused:  # e.g. an unknown revision, a downgrade's SQL without FROM
        print(f"{action} {target}: {refused}", file=sys.stderr)
        return 1
    print(f"{action} to {target}: done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Operator commands. `python -m app.admin create-admin USERNAME` makes the first
administrator (管理员): a new account with the admin role and the signup grant, or an existing
account promoted to admin (its password unchanged). A new account's password comes from the
ADMIN_PASSWORD environment variable, else it is asked for twice (not echoed). The database is
upgraded to the latest migration first when settings.migrate_on_start is on, as `python -m
app` does. The action is written to the audit log with the admin as its own actor.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys

from app.api.passwords import Passwords
from app.api.schemas import USERNAME_RE
from app.settings import Settings
from app.store import accounts, audit, ledger, migrate
from app.store.db import Database

PASSWORD_LENGTH = (8, 128)


class CommandError(Exception):
    """A refusal to print for the operator (exit status 2)."""


def _password() -> str:
    password = os.environ.get("ADMIN_PASSWORD")
    if password is None:
        password = getpass.getpass("password for the new admin: ")
        if getpass.getpass("again: ") != password:
            raise CommandError("the two passwords differ")
    low, high = PASSWORD_LENGTH
    if not low <= len(password) <= high:
        raise CommandError(f"a password has {low} to {high} characters")
    return password


async def create_admin(settings: Settings, username: str) -> str:
    """Create or promote `username`; what was done, in words."""
    db = Database.connect(settings.database_url)
    try:
        async with db.sessions() as session:
            async with session.begin():
                existing = await accounts.by_username(session, username)
                if existing is not None:
                    was = existing.role
                    existing.role = "admin"
                    await audit.record(
                        session,
                        existing.id,
                        "promote_admin",
                        existing.id,
                        {"by": "create-admin command", "was": was},
                    )
                    return f"{username} (id {existing.id}) is now an admin (was {was})"
            password_hash = await asyncio.to_thread(
                Passwords.from_settings(settings).hash, _password()
            )
            async with session.begin():
                account = await accounts.create(session, username, password_hash, role="admin")
                await audit.record(
                    session, account.id, "create_admin", account.id, {"by": "create-admin command"}
                )
            await ledger.grant_signup(session, account.id, settings.signup_grant)
            return f"{username} (id {account.id}) created as an admin"
    finally:
        await db.close()


def main(argv: list[str] | None = None, settings: Settings | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.admin", description=(__doc__ or "").split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create-admin", help="create or promote an administrator")
    create.add_argument("username")
    args = parser.parse_args(argv)

    settings = settings or Settings()
    username = args.username
    if not USERNAME_RE.fullmatch(username):
        print("a username has 3 to 32 letters, digits, _ or CJK characters", file=sys.stderr)
        return 2
    if settings.migrate_on_start:
        migrate.upgrade(settings.database_url)
    try:
        print(asyncio.run(create_admin(settings, username)))
    except (CommandError, accounts.DuplicateUsername) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

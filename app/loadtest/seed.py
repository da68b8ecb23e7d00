"""Load-test accounts written straight into a spawned server's database.

Only for `--spawn`, where the load test chose the server's database and JWT secret: each
account is made with the same store functions the API uses (`accounts.create`, then the
signup grant through the ledger, so every balance equals its ledger), with no usable
password (like the lobby's bots), and its access token is signed with the server's secret.
This takes seconds for thousands of accounts, where registering and logging in over REST
costs two requests and about six transactions each. Against `--url` the REST path is used.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.api import tokens
from app.api.deps import commit_open
from app.settings import Settings
from app.store import accounts, ledger
from app.store.db import Database

NO_PASSWORD = "!"  # not an Argon2 hash: no password ever matches it
BATCH = 200


async def seed_accounts(settings: Settings, names: Sequence[str]) -> list[str]:
    """Create `names` with the signup grant; their access tokens, in order."""
    db = Database.connect(settings.database_url)
    made: list[str] = []
    try:
        async with db.sessions() as session:
            for start in range(0, len(names), BATCH):
                async with session.begin():
                    batch = [
                        await accounts.create(session, name, NO_PASSWORD)
                        for name in names[start:start + BATCH]
                    ]
                for account in batch:
                    await ledger.grant_signup(session, account.id, settings.signup_grant)
                    await commit_open(session)
                made.extend(tokens.access_token(account, settings) for account in batch)
    finally:
        await db.close()
    return made

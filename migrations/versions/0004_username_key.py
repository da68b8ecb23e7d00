"""accounts.username_key: usernames unique regardless of case and compatibility forms

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 10:00:00

The key is the username in NFKC, casefolded, NFKC again (app/store/models.py
`username_key`; copied here, so that this migration stays what it was if that changes).
Accounts made before it could differ in case only (`acc1_x` and `ACC1_X`): the oldest of
such a group keeps the plain key; each later one gets `KEY#ID` (its id; `#` is in no valid
username, so no new account can take it) and keeps its username, balance and everything
else. Its owner logs in as `NAME#ID` (e.g. `ACC1_X#17`); each such account is logged here
as a warning.
"""

import logging
import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("migrations.0004")

accounts = sa.table(
    'accounts', sa.column('id', sa.BigInteger()), sa.column('username', sa.String()),
    sa.column('username_key', sa.String()),
)


def _key(username: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


def upgrade() -> None:
    with op.batch_alter_table('accounts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('username_key', sa.String(length=64), nullable=True))

    connection = op.get_bind()
    rows = connection.execute(sa.select(accounts.c.id, accounts.c.username).order_by(accounts.c.id))
    taken: set[str] = set()
    keys = []
    for account_id, username in rows:
        key = _key(username)
        if key in taken:
            log.warning(
                "account %s (%r) has the name of an older account but for case or form: "
                "it now logs in as %r", account_id, username, f"{username}#{account_id}",
            )
            key = f"{key}#{account_id}"
        taken.add(key)
        keys.append({'account_id': account_id, 'key': key})
    if keys:
        connection.execute(
            accounts.update()
            .where(accounts.c.id == sa.bindparam('account_id'))
            .values(username_key=sa.bindparam('key')),
            keys,
        )

    with op.batch_alter_table('accounts', schema=None) as batch_op:
        batch_op.alter_column('username_key', existing_type=sa.String(length=64), nullable=False)
        batch_op.create_index(batch_op.f('ix_accounts_username_key'), ['username_key'], unique=True)


def downgrade() -> None:
    with op.batch_alter_table('accounts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_accounts_username_key'))
        batch_op.drop_column('username_key')

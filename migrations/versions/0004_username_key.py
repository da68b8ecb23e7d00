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

As SQL (`alembic upgrade --sql`, no database to read) the keys are computed by the database:
exactly, for every name whose NFKC form is ASCII letters, digits, `_` and CJK ideographs (the
only names the server ever made), where casefolding is ASCII lowering. PostgreSQL takes the
NFKC form with `normalize`; SQLite has none, so there a name must be those characters as
stored. A name outside that stops the script (nothing is changed: it runs in one
transaction) and says to run this step with `python -m app.store.migrate` instead. The
schema is the same either way; only the SQLite copy of `accounts` (SQLite cannot make a
column NOT NULL in place) is described here rather than read from the database.
"""

import logging
import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

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

    if context.is_offline_mode():
        _keys_in_sql(op.get_context().dialect.name)
    else:
        _keys_in_python()

    with op.batch_alter_table('accounts', schema=None, copy_from=_accounts_copy(False)) as batch_op:
        batch_op.alter_column('username_key', existing_type=sa.String(length=64), nullable=False)
        batch_op.create_index(batch_op.f('ix_accounts_username_key'), ['username_key'], unique=True)


def _keys_in_python() -> None:
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


# the characters of every name the server made: ASCII letters, digits, `_` and the CJK
# ideographs (the code points of app/api/schemas.py USERNAME_CHARS, copied), as SQL
# character ranges; SQLite's leave out the compatibility ideographs, which NFKC changes
IDEOGRAPHS = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0x20000, 0x3134F)]
STABLE_IDEOGRAPHS = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0x20000, 0x2F7FF), (0x2FA20, 0x3134F)]
UPPER, LOWER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'
REFUSAL = "a username SQL cannot key exactly: run 0004 with python -m app.store.migrate"


def _keys_in_sql(dialect: str) -> None:
    """The keys by the database itself: refuse a name whose key SQL cannot compute exactly,
    key the others, then give each later one of a key `KEY#ID`."""
    if dialect == 'postgresql':
        ranges = ''.join(f'\\U{low:08x}-\\U{high:08x}' for low, high in IDEOGRAPHS)
        op.execute(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM accounts WHERE normalize(username, NFKC)"
            f" !~ '^[A-Za-z0-9_{ranges}]*$') THEN RAISE EXCEPTION '{REFUSAL}'; END IF; END $$"
        )
        op.execute(
            f"UPDATE accounts SET username_key = translate(normalize(username, NFKC), '{UPPER}',"
            f" '{LOWER}')"
        )
    elif dialect == 'sqlite':
        ranges = ' || '.join(f"char({low}) || '-' || char({high})"
                             for low, high in STABLE_IDEOGRAPHS)
        op.execute(f'CREATE TEMPORARY TABLE keyable (ok BOOLEAN CONSTRAINT "{REFUSAL}" CHECK (ok))')
        op.execute(
            "INSERT INTO keyable SELECT 0 WHERE EXISTS (SELECT 1 FROM accounts WHERE username"
            f" GLOB '*[^A-Za-z0-9_' || {ranges} || ']*')"
        )
        op.execute('DROP TABLE keyable')
        op.execute('UPDATE accounts SET username_key = lower(username)')
    else:
        raise NotImplementedError(f"0004 as SQL for {dialect}: PostgreSQL and SQLite only")
    op.execute(
        "UPDATE accounts SET username_key = username_key || '#' || CAST(id AS VARCHAR(20))"
        " WHERE EXISTS (SELECT 1 FROM accounts AS older WHERE"
        " older.username_key = accounts.username_key AND older.id < accounts.id)"
    )


def _accounts_copy(keyed: bool) -> sa.Table | None:
    """`accounts` as it is here, for SQLite's copy of it in SQL (no database to read it
    from; online, Alembic reads it): 0001's columns, then username_key."""
    if not context.is_offline_mode():
        return None
    table = sa.Table(
        'accounts', sa.MetaData(),
        sa.Column('id', sa.Integer(), primary_key=True, nullable=False),
        *[sa.Column(name, kind, nullable=False) for name, kind in [
            ('username', sa.String(32)), ('password_hash', sa.String(255)),
            ('role', sa.String(16)), ('banned', sa.Boolean()), ('balance', sa.BigInteger()),
        ]],
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('username_key', sa.String(64), nullable=not keyed),
        sa.CheckConstraint('balance >= 0', name='balance_not_negative'),
        sa.UniqueConstraint('username'),
    )
    if keyed:
        sa.Index('ix_accounts_username_key', table.c.username_key, unique=True)
    return table


def downgrade() -> None:
    with op.batch_alter_table('accounts', schema=None, copy_from=_accounts_copy(True)) as batch_op:
        batch_op.drop_index(batch_op.f('ix_accounts_username_key'))
        batch_op.drop_column('username_key')

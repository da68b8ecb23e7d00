"""hand_records.seed: the seed's bytes in hex, not a 63-bit int

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04 10:00:00

A hand's seed is now 32 bytes from `secrets` (its SHA-256 is published before the deal
and the seed at the end: docs/protocol.md, "Verifying a hand"), which a BIGINT cannot hold.
The column becomes text: the seed's bytes in lowercase hex. A row stored before holds the
int n; it becomes n's 8-byte big-endian form in hex (16 digits), which seeds the very same
RNG (`int.from_bytes(bytes.fromhex(seed), "big") == n`), so old hands replay as they did.

Downgrading turns seeds of at most 8 bytes back into ints and refuses (with the hands'
ids) when a stored seed is longer: such a hand could no longer be replayed.

As SQL (`alembic upgrade --sql` / `downgrade --sql`, no database to read) both directions
are done by the database, the refusal too; SQLite's copy of `hand_records` (it cannot drop
or retype a column in place) is described here rather than read from the database.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

hand_records = sa.table(
    'hand_records', sa.column('id', sa.String()), sa.column('seed', sa.BigInteger()),
    sa.column('seed_hex', sa.String()),
)
hand_records_hex = sa.table(
    'hand_records', sa.column('id', sa.String()), sa.column('seed', sa.String()),
    sa.column('seed_int', sa.BigInteger()),
)


def upgrade() -> None:
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seed_hex', sa.String(length=128), nullable=True))
    dialect = op.get_context().dialect.name
    if dialect == 'postgresql':
        op.execute("UPDATE hand_records SET seed_hex = lpad(to_hex(seed), 16, '0')")
    elif dialect == 'sqlite':
        op.execute("UPDATE hand_records SET seed_hex = printf('%016x', seed)")
    else:  # any other backend: row by row
        connection = op.get_bind()
        rows = connection.execute(sa.select(hand_records.c.id, hand_records.c.seed)).all()
        for hand_id, seed in rows:
            connection.execute(
                hand_records.update().where(hand_records.c.id == hand_id)
                .values(seed_hex=int(seed).to_bytes(8, 'big').hex())
            )
    copy = _hand_records_copy(('seed', sa.BigInteger(), False), ('seed_hex', HEX, True))
    with op.batch_alter_table('hand_records', schema=None, copy_from=copy) as batch_op:
        batch_op.drop_column('seed')
        batch_op.alter_column(
            'seed_hex', new_column_name='seed', existing_type=sa.String(length=128),
            nullable=False,
        )


HEX = sa.String(length=128)
WIDE = "hand records have seeds wider than a BIGINT: they could not be replayed after the downgrade"


def downgrade() -> None:
    if context.is_offline_mode():
        _seeds_to_ints_in_sql(op.get_context().dialect.name)
    else:
        _seeds_to_ints_in_python()
    copy = _hand_records_copy(('seed', HEX, False), ('seed_int', sa.BigInteger(), True))
    with op.batch_alter_table('hand_records', schema=None, copy_from=copy) as batch_op:
        batch_op.drop_column('seed')
        batch_op.alter_column(
            'seed_int', new_column_name='seed', existing_type=sa.BigInteger(), nullable=False
        )


def _seeds_to_ints_in_python() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(hand_records_hex.c.id, hand_records_hex.c.seed)).all()
    wide = [hand_id for hand_id, seed in rows if int(seed, 16) >= 2**63]
    if wide:
        raise RuntimeError(
            f"{len(wide)} hand records have seeds wider than a BIGINT (e.g. {wide[:5]}): "
            "they could not be replayed after the downgrade"
        )
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seed_int', sa.BigInteger(), nullable=True))
    for hand_id, seed in rows:
        connection.execute(
            hand_records_hex.update().where(hand_records_hex.c.id == hand_id)
            .values(seed_int=int(seed, 16))
        )


# a seed's hex digits without its leading zeros: wide (2**63 and over) when more than 16, or
# 16 from 8 up
DIGITS = "ltrim(lower(seed), '0')"
WIDE_SEED = (
    f"length({DIGITS}) > 16 OR (length({DIGITS}) = 16"
    f" AND substr({DIGITS}, 1, 1) IN ('8', '9', 'a', 'b', 'c', 'd', 'e', 'f'))"
)


def _seeds_to_ints_in_sql(dialect: str) -> None:
    """The downgrade's refusal and conversion done by the database (as SQL)."""
    if dialect == 'postgresql':
        op.execute(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM hand_records WHERE "
            f"{WIDE_SEED}) THEN RAISE EXCEPTION 'some {WIDE}'; END IF; END $$"
        )
        value = f"CAST(CAST('x' || lpad({DIGITS}, 16, '0') AS bit(64)) AS bigint)"
    elif dialect == 'sqlite':
        op.execute(f'CREATE TEMPORARY TABLE narrow (ok BOOLEAN CONSTRAINT "some {WIDE}" CHECK (ok))')
        op.execute(f"INSERT INTO narrow SELECT 0 WHERE EXISTS (SELECT 1 FROM hand_records WHERE {WIDE_SEED})")
        op.execute('DROP TABLE narrow')
        padded = f"substr('0000000000000000' || {DIGITS}, -16)"
        value = ' + '.join(
            f"(instr('0123456789abcdef', substr({padded}, {i + 1}, 1)) - 1) * {16 ** (15 - i)}"
            for i in range(16)
        )
    else:
        raise NotImplementedError(f"0006 as SQL for {dialect}: PostgreSQL and SQLite only")
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seed_int', sa.BigInteger(), nullable=True))
    op.execute(f"UPDATE hand_records SET seed_int = {value}")


def _hand_records_copy(*seeds: tuple[str, sa.types.TypeEngine[object], bool]) -> sa.Table | None:
    """`hand_records` as it is here, for SQLite's copy of it in SQL (no database to read it
    from; online, Alembic reads it): 0002's columns but the seed, 0005's options, then the
    seed columns `seeds` (name, type, nullable)."""
    if not context.is_offline_mode():
        return None
    text_columns = [('seats', False), ('ctx', False), ('preset', True), ('actions', False),
                    ('result', False)]
    table = sa.Table(
        'hand_records', sa.MetaData(),
        sa.Column('id', sa.String(64), primary_key=True, nullable=False),
        sa.Column('table_id', sa.String(64), nullable=False),
        sa.Column('variant', sa.String(16), nullable=False),
        *[sa.Column(name, sa.Text(), nullable=nullable) for name, nullable in text_columns],
        sa.Column('voided', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('options', sa.Text(), nullable=True),
        *[sa.Column(name, kind, nullable=nullable) for name, kind, nullable in seeds],
    )
    sa.Index('ix_hand_records_table_id', table.c.table_id)
    return table

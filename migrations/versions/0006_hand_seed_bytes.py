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
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

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
    connection = op.get_bind()
    if connection.dialect.name == 'postgresql':
        op.execute("UPDATE hand_records SET seed_hex = lpad(to_hex(seed), 16, '0')")
    elif connection.dialect.name == 'sqlite':
        op.execute("UPDATE hand_records SET seed_hex = printf('%016x', seed)")
    else:  # any other backend: row by row
        rows = connection.execute(sa.select(hand_records.c.id, hand_records.c.seed)).all()
        for hand_id, seed in rows:
            connection.execute(
                hand_records.update().where(hand_records.c.id == hand_id)
                .values(seed_hex=int(seed).to_bytes(8, 'big').hex())
            )
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.drop_column('seed')
        batch_op.alter_column(
            'seed_hex', new_column_name='seed', existing_type=sa.String(length=128),
            nullable=False,
        )


def downgrade() -> None:
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
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.drop_column('seed')
        batch_op.alter_column(
            'seed_int', new_column_name='seed', existing_type=sa.BigInteger(), nullable=False
        )

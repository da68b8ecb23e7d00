"""hand records

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 13:15:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('hand_records',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('variant', sa.String(length=16), nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('seats', sa.Text(), nullable=False),
    sa.Column('ctx', sa.Text(), nullable=False),
    sa.Column('preset', sa.Text(), nullable=True),
    sa.Column('actions', sa.Text(), nullable=False),
    sa.Column('result', sa.Text(), nullable=False),
    sa.Column('voided', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_hand_records_table_id'), ['table_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_hand_records_table_id'))

    op.drop_table('hand_records')

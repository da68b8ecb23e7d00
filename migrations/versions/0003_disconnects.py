"""disconnects

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 14:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('disconnects',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('account_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('hand_id', sa.String(length=64), nullable=False),
    sa.Column('variant', sa.String(length=16), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('penalty', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('account_id', 'hand_id', name='uq_disconnect_hand')
    )
    with op.batch_alter_table('disconnects', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_disconnects_account_id'), ['account_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('disconnects', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_disconnects_account_id'))

    op.drop_table('disconnects')

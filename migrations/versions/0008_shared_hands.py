"""shared_hands: the hands whose replay a player made public

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07 14:30:00

An expand migration: a new table, nothing of the old ones changed. A row is a hand whose
replay anyone with its link may read (GET /replays/{hand_id}); making it private again
deletes the row. Downgrading drops the table, and with it every shared link.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('shared_hands',
    sa.Column('hand_id', sa.String(length=64), nullable=False),
    sa.Column('account_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('shared_at', sa.DateTime(timezone=True), server_default=sa.text('(CURRENT_TIMESTAMP)'),
              nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.ForeignKeyConstraint(['hand_id'], ['hand_records.id'], ),
    sa.PrimaryKeyConstraint('hand_id')
    )


def downgrade() -> None:
    op.drop_table('shared_hands')

"""room_rematch: a private room points to the room opened after it (再来一局)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07 17:50:00

An expand migration: two nullable columns on `rooms`, nothing else changed. `rematch_id`
is the room opened with the same rules and owner once this one was over, `rematch_by` the
player who asked for it. Downgrading drops them (the new rooms stay, unlinked).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('rooms', sa.Column('rematch_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'),
                                     nullable=True))
    op.add_column('rooms', sa.Column('rematch_by', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column('rooms', 'rematch_by')
    op.drop_column('rooms', 'rematch_id')

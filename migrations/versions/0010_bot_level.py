"""bot_level: who plays the house bots of a quick-match level's tables and of a private room

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 18:30:00

An expand migration: a `bot_level` column (beginner | standard | expert, 新手 / 普通 / 高手)
on `match_levels` (the operator's choice per level) and on `rooms` (the owner's choice; a
rematch copies it), both not null with the server default `standard`, the greedy bot the
house played before: every existing level and room keeps playing as it did. Downgrading
drops both columns.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('match_levels', sa.Column('bot_level', sa.String(length=16), nullable=False,
                                            server_default='standard'))
    op.add_column('rooms', sa.Column('bot_level', sa.String(length=16), nullable=False,
                                     server_default='standard'))


def downgrade() -> None:
    op.drop_column('rooms', 'bot_level')
    op.drop_column('match_levels', 'bot_level')

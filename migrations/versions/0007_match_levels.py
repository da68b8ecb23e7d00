"""match_levels: the quick-match levels (初级场 / 中级场 / 高级场), seeded with the defaults

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-10 10:00:00

The defaults are copied here (not imported from app/store/levels.py), so that this migration
stays what it was if they change: stake 1 / 100 silver, 10 / 2,000 and 100 / 20,000. A
level's minimum covers its table's (100 x the stake, app/tables/registry.py).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULTS = [
    {"key": "beginner", "name_zh": "初级场", "name_en": "Beginner", "stake": 1,
     "min_balance": 100, "position": 0, "enabled": True},
    {"key": "intermediate", "name_zh": "中级场", "name_en": "Intermediate", "stake": 10,
     "min_balance": 2000, "position": 1, "enabled": True},
    {"key": "advanced", "name_zh": "高级场", "name_en": "Advanced", "stake": 100,
     "min_balance": 20000, "position": 2, "enabled": True},
]


def upgrade() -> None:
    levels = op.create_table('match_levels',
    sa.Column('key', sa.String(length=16), nullable=False),
    sa.Column('name_zh', sa.String(length=32), nullable=False),
    sa.Column('name_en', sa.String(length=64), nullable=False),
    sa.Column('stake', sa.BigInteger(), nullable=False),
    sa.Column('min_balance', sa.BigInteger(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.CheckConstraint('stake >= 1', name='level_stake_positive'),
    sa.CheckConstraint('min_balance >= 100 * stake', name='level_min_covers_stake'),
    sa.PrimaryKeyConstraint('key')
    )
    op.bulk_insert(levels, DEFAULTS)


def downgrade() -> None:
    op.drop_table('match_levels')

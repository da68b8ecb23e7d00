"""tournament play: the director's lease and round on `tournaments`, the event of a room

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-08 00:00:00

An expand migration. `tournaments` gains `round` (the round in play, 0 before the start;
not null, server default 0), `director` (the node that directs the running event, null
when none) and `lease_until` (until when that node holds it). `rooms` gains `tournament_id`
(null for a private room of players; the event whose round a room's table plays), indexed.
Every existing row reads as before: no event has started, every room is a players' room.
Downgrading drops the four columns.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('round', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('director', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('lease_until', sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table('rooms', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tournament_id', Id, nullable=True))
        batch_op.create_index(batch_op.f('ix_rooms_tournament_id'), ['tournament_id'],
                              unique=False)
        batch_op.create_foreign_key('fk_rooms_tournament_id', 'tournaments', ['tournament_id'],
                                    ['id'])


def downgrade() -> None:
    with op.batch_alter_table('rooms', schema=None) as batch_op:
        batch_op.drop_constraint('fk_rooms_tournament_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_rooms_tournament_id'))
        batch_op.drop_column('tournament_id')
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.drop_column('lease_until')
        batch_op.drop_column('director')
        batch_op.drop_column('round')

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
    op.add_column('tournaments', sa.Column('round', sa.Integer(), nullable=False,
                                           server_default='0'))
    op.add_column('tournaments', sa.Column('director', sa.String(length=64), nullable=True))
    op.add_column('tournaments', sa.Column('lease_until', sa.DateTime(timezone=True),
                                           nullable=True))
    if op.get_context().dialect.name == 'sqlite':
        # the column and its reference in one ALTER TABLE, which SQLite takes as it is (a
        # constraint added apart rebuilds the table there, which the offline SQL cannot)
        op.execute('ALTER TABLE rooms ADD COLUMN tournament_id INTEGER '
                   'CONSTRAINT fk_rooms_tournament_id REFERENCES tournaments (id)')
    else:
        op.add_column('rooms', sa.Column('tournament_id', Id, nullable=True))
        op.create_foreign_key('fk_rooms_tournament_id', 'rooms', 'tournaments',
                              ['tournament_id'], ['id'])
    op.create_index(op.f('ix_rooms_tournament_id'), 'rooms', ['tournament_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_rooms_tournament_id'), table_name='rooms')
    if op.get_context().dialect.name == 'sqlite':
        op.execute('ALTER TABLE rooms DROP COLUMN tournament_id')  # SQLite 3.35 and later
    else:
        op.drop_constraint('fk_rooms_tournament_id', 'rooms', type_='foreignkey')
        op.drop_column('rooms', 'tournament_id')
    for column in ('lease_until', 'director', 'round'):
        op.drop_column('tournaments', column)

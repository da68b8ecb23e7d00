"""rooms (private rooms, 好友房) and hand_records.options

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 01:00:00

A room is a table found only by its code, with the owner's house rules and a session of a
fixed length; its scoreboard is stored when it ends (docs/rooms.md). A hand played with
options other than the variant's defaults stores them, so that its replay deals and scores
as it was played (null: the defaults, every hand before this migration).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.add_column(sa.Column('options', sa.Text(), nullable=True))
    op.create_table(
        'rooms',
        sa.Column('id', Id, autoincrement=True, nullable=False),
        sa.Column('code', sa.String(length=6), nullable=False),
        sa.Column('open_code', sa.String(length=6), nullable=True),
        sa.Column('table_id', sa.String(length=64), nullable=False),
        sa.Column('owner_id', sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column('variant', sa.String(length=16), nullable=False),
        sa.Column('options', sa.Text(), nullable=False),
        sa.Column('stake', sa.BigInteger(), nullable=False),
        sa.Column('timers', sa.Text(), nullable=False),
        sa.Column('length_unit', sa.String(length=8), nullable=False),
        sa.Column('length', sa.Integer(), nullable=False),
        sa.Column('spectators', sa.Boolean(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('scoreboard', sa.Text(), nullable=True),
        sa.Column('vote_by', sa.BigInteger(), nullable=True),
        sa.Column('vote_deadline', sa.DateTime(timezone=True), nullable=True),
        sa.Column('votes', sa.Text(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('open', 'ended', 'dissolved')", name='ck_room_status'),
        sa.CheckConstraint("length_unit IN ('hands', 'ban')", name='ck_room_length_unit'),
        sa.ForeignKeyConstraint(['owner_id'], ['accounts.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('open_code'),
        sa.UniqueConstraint('table_id'),
    )
    with op.batch_alter_table('rooms', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rooms_code'), ['code'], unique=False)
        batch_op.create_index(batch_op.f('ix_rooms_owner_id'), ['owner_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('rooms', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rooms_owner_id'))
        batch_op.drop_index(batch_op.f('ix_rooms_code'))
    op.drop_table('rooms')
    if context.is_offline_mode() and op.get_context().dialect.name == 'sqlite':
        # as SQL there is no table to read for Alembic's copy: SQLite (3.35 on) drops it
        op.drop_column('hand_records', 'options')
        return
    with op.batch_alter_table('hand_records', schema=None) as batch_op:
        batch_op.drop_column('options')

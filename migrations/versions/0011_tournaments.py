"""tournaments (比赛场): the events, their entries and their tables

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07 21:40:00

An expand migration: three new tables, nothing of the old ones changed. A tournament holds
its fees in an account of its own (`event-<id>`, a row of `accounts`, not schema); its
entries are the players registered (and, from the start, the house bots filling the
seats); its tables are the rounds' draws (docs/tournaments.md). Downgrading drops the three
tables; the events' accounts and their ledger rows stay, as every account does.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        'tournaments',
        sa.Column('id', Id, autoincrement=True, nullable=False),
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('variant', sa.String(length=16), nullable=False),
        sa.Column('options', sa.Text(), nullable=False),
        sa.Column('stake', sa.BigInteger(), nullable=False),
        sa.Column('timers', sa.Text(), nullable=False),
        sa.Column('fee', sa.BigInteger(), nullable=False),
        sa.Column('rake_bp', sa.Integer(), nullable=False),
        sa.Column('guarantee', sa.BigInteger(), nullable=False),
        sa.Column('seats', sa.Integer(), nullable=False),
        sa.Column('rounds', sa.Integer(), nullable=False),
        sa.Column('length_unit', sa.String(length=8), nullable=False),
        sa.Column('length', sa.Integer(), nullable=False),
        sa.Column('final_table', sa.Boolean(), nullable=False),
        sa.Column('prize_shares', sa.Text(), nullable=False),
        sa.Column('starts_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('seed', sa.String(length=64), nullable=False),
        sa.Column('seed_revealed', sa.Boolean(), nullable=False),
        sa.Column('commitment', sa.String(length=64), nullable=False),
        sa.Column('bot_level', sa.String(length=16), nullable=False),
        sa.Column('account_id', Id, nullable=False),
        sa.Column('created_by', Id, nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.CheckConstraint("status IN ('open', 'running', 'finished', 'cancelled')",
                           name='ck_tournament_status'),
        sa.CheckConstraint("length_unit IN ('hands', 'ban')", name='ck_tournament_length_unit'),
        sa.CheckConstraint("seats >= 8 AND seats <= 256 AND seats % 4 = 0",
                           name='ck_tournament_seats'),
        sa.CheckConstraint("rounds >= 1 AND rounds <= 8", name='ck_tournament_rounds'),
        sa.CheckConstraint("fee >= 0 AND guarantee >= 0 AND rake_bp >= 0 AND rake_bp <= 10000",
                           name='ck_tournament_money'),
        sa.ForeignKeyConstraint(['account_id'], ['accounts.id']),
        sa.ForeignKeyConstraint(['created_by'], ['accounts.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('account_id'),
    )
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tournaments_starts_at'), ['starts_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_tournaments_status'), ['status'], unique=False)
    op.create_table(
        'tournament_entries',
        sa.Column('id', Id, autoincrement=True, nullable=False),
        sa.Column('tournament_id', Id, nullable=False),
        sa.Column('account_id', Id, nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('number', sa.Integer(), nullable=True),
        sa.Column('bot', sa.Boolean(), nullable=False),
        sa.Column('registrations', sa.Integer(), nullable=False),
        sa.Column('registered_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('prize', sa.BigInteger(), nullable=True),
        sa.CheckConstraint(
            "status IN ('registered', 'withdrawn', 'playing', 'forfeited', 'finished')",
            name='ck_tournament_entry_status',
        ),
        sa.ForeignKeyConstraint(['account_id'], ['accounts.id']),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tournament_id', 'account_id', name='uq_tournament_entry'),
    )
    with op.batch_alter_table('tournament_entries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tournament_entries_account_id'), ['account_id'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_tournament_entries_tournament_id'),
                              ['tournament_id'], unique=False)
    op.create_table(
        'tournament_tables',
        sa.Column('tournament_id', Id, nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.String(length=64), nullable=False),
        sa.Column('seats', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('results', sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('waiting', 'playing', 'done')",
                           name='ck_tournament_table_status'),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id']),
        sa.PrimaryKeyConstraint('tournament_id', 'round', 'number'),
        sa.UniqueConstraint('table_id'),
    )


def downgrade() -> None:
    op.drop_table('tournament_tables')
    with op.batch_alter_table('tournament_entries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournament_entries_tournament_id'))
        batch_op.drop_index(batch_op.f('ix_tournament_entries_account_id'))
    op.drop_table('tournament_entries')
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournaments_status'))
        batch_op.drop_index(batch_op.f('ix_tournaments_starts_at'))
    op.drop_table('tournaments')

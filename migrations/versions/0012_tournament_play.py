"""tournament play: the director's lease and round on `tournaments`, the event of a room,
and the 圈 as a length

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-08 00:00:00

An expand migration. `tournaments` gains `round` (the round in play, 0 before the start;
not null, server default 0), `director` (the node that directs the running event, null
when none) and `lease_until` (until when that node holds it). `rooms` gains `tournament_id`
(null for a private room of players; the event whose round a room's table plays), indexed.
Every existing row reads as before: no event has started, every room is a players' room.
Both tables' `length_unit` may also be `quan` (圈: a room's session, or an event's round, of
rounds of the deal). SQLite cannot change a CHECK constraint in place: there the two tables
are rebuilt (created anew with the wider CHECK, the rows copied, the old table dropped and
the new one renamed, the references checked at the commit), in SQL that needs no live
database. Downgrading drops the four columns and narrows the CHECK again (a row of the
`quan` unit stops it).
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
    _units(WIDER)


UNITS = "('hands', 'ban')"
WIDER = "('hands', 'quan', 'ban')"
ROOMS = """CREATE TABLE {name} (
	id INTEGER NOT NULL, 
	code VARCHAR(6) NOT NULL, 
	open_code VARCHAR(6), 
	table_id VARCHAR(64) NOT NULL, 
	owner_id INTEGER NOT NULL, 
	variant VARCHAR(16) NOT NULL, 
	options TEXT NOT NULL, 
	stake BIGINT NOT NULL, 
	timers TEXT NOT NULL, 
	length_unit VARCHAR(8) NOT NULL, 
	length INTEGER NOT NULL, 
	spectators BOOLEAN NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	scoreboard TEXT, 
	vote_by BIGINT, 
	vote_deadline DATETIME, 
	votes TEXT, 
	created_at DATETIME DEFAULT (CURRENT_TIMESTAMP) NOT NULL, 
	ended_at DATETIME, rematch_id INTEGER, rematch_by BIGINT, bot_level VARCHAR(16) DEFAULT 'standard' NOT NULL, tournament_id INTEGER CONSTRAINT fk_rooms_tournament_id REFERENCES tournaments (id), 
	PRIMARY KEY (id), 
	CONSTRAINT ck_room_status CHECK (status IN ('open', 'ended', 'dissolved')), 
	CONSTRAINT ck_room_length_unit CHECK (length_unit IN {units}), 
	FOREIGN KEY(owner_id) REFERENCES accounts (id), 
	UNIQUE (open_code), 
	UNIQUE (table_id)
)"""
TOURNAMENTS = """CREATE TABLE {name} (
	id INTEGER NOT NULL, 
	name VARCHAR(40) NOT NULL, 
	variant VARCHAR(16) NOT NULL, 
	options TEXT NOT NULL, 
	stake BIGINT NOT NULL, 
	timers TEXT NOT NULL, 
	fee BIGINT NOT NULL, 
	rake_bp INTEGER NOT NULL, 
	guarantee BIGINT NOT NULL, 
	seats INTEGER NOT NULL, 
	rounds INTEGER NOT NULL, 
	length_unit VARCHAR(8) NOT NULL, 
	length INTEGER NOT NULL, 
	final_table BOOLEAN NOT NULL, 
	prize_shares TEXT NOT NULL, 
	starts_at DATETIME NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	seed VARCHAR(64) NOT NULL, 
	seed_revealed BOOLEAN NOT NULL, 
	commitment VARCHAR(64) NOT NULL, 
	bot_level VARCHAR(16) NOT NULL, 
	account_id INTEGER NOT NULL, 
	created_by INTEGER NOT NULL, 
	created_at DATETIME DEFAULT (CURRENT_TIMESTAMP) NOT NULL, round INTEGER DEFAULT '0' NOT NULL, director VARCHAR(64), lease_until DATETIME, 
	PRIMARY KEY (id), 
	CONSTRAINT ck_tournament_status CHECK (status IN ('open', 'running', 'finished', 'cancelled')), 
	CONSTRAINT ck_tournament_length_unit CHECK (length_unit IN {units}), 
	CONSTRAINT ck_tournament_seats CHECK (seats >= 8 AND seats <= 256 AND seats % 4 = 0), 
	CONSTRAINT ck_tournament_rounds CHECK (rounds >= 1 AND rounds <= 8), 
	CONSTRAINT ck_tournament_money CHECK (fee >= 0 AND guarantee >= 0 AND rake_bp >= 0 AND rake_bp <= 10000), 
	FOREIGN KEY(account_id) REFERENCES accounts (id), 
	FOREIGN KEY(created_by) REFERENCES accounts (id), 
	UNIQUE (account_id)
)"""
INDEXES = {
    "rooms": ("ix_rooms_code ON rooms (code)", "ix_rooms_owner_id ON rooms (owner_id)",
              "ix_rooms_tournament_id ON rooms (tournament_id)"),
    "tournaments": ("ix_tournaments_starts_at ON tournaments (starts_at)",
                    "ix_tournaments_status ON tournaments (status)"),
}


def _units(units: str) -> None:
    """Both tables' CHECK of `length_unit`: IN `units`."""
    if op.get_context().dialect.name != 'sqlite':
        for table, name in (('rooms', 'ck_room_length_unit'),
                            ('tournaments', 'ck_tournament_length_unit')):
            op.drop_constraint(name, table, type_='check')
            op.create_check_constraint(name, table, f"length_unit IN {units}")
        return
    op.execute('PRAGMA defer_foreign_keys = ON')  # the references hold again at the commit
    for table, ddl in (('tournaments', TOURNAMENTS), ('rooms', ROOMS)):
        op.execute(ddl.format(name=f'_{table}_new', units=units))
        op.execute(f'INSERT INTO _{table}_new SELECT * FROM {table}')
        op.execute(f'DROP TABLE {table}')
        op.execute(f'ALTER TABLE _{table}_new RENAME TO {table}')
        for index in INDEXES[table]:
            op.execute(f'CREATE INDEX {index}')


def downgrade() -> None:
    _units(UNITS)
    op.drop_index(op.f('ix_rooms_tournament_id'), table_name='rooms')
    if op.get_context().dialect.name == 'sqlite':
        op.execute('ALTER TABLE rooms DROP COLUMN tournament_id')  # SQLite 3.35 and later
    else:
        op.drop_constraint('fk_rooms_tournament_id', 'rooms', type_='foreignkey')
        op.drop_column('rooms', 'tournament_id')
    for column in ('lease_until', 'director', 'round'):
        op.drop_column('tournaments', column)

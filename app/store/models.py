"""The tables, as SQLAlchemy 2 typed models. Migrations in migrations/ create them."""

from __future__ import annotations

import unicodedata
from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, validates

# SQLite only autoincrements an INTEGER PRIMARY KEY; PostgreSQL gets a BIGINT identity.
Id = BigInteger().with_variant(Integer(), "sqlite")

ROLES = ("player", "admin", "house")  # house: the one account that funds the bots
# Why silver moved (docs/architecture.md, "House bots and the silver supply"). Silver is
# made by signup_grant, admin_adjustment and house_reward only; the others move it between
# accounts and sum to 0 over the ledger.
REASONS = (
    "signup_grant",  # a new account's silver (made)
    "hand_settlement",  # a hand's payments between its seats
    "escape_penalty",  # an escape (逃跑) paid to the other seats
    "disconnect_penalty",  # the third disconnect in 24 hours, paid to the other seats
    "house_reward",  # points or silver the rules pay from the house (湖州) (made)
    "admin_adjustment",  # an operator's change, the house account's funding included (made)
    "house_funding",  # the house account <-> a bot: one row each side, summing to 0
    "house_float",  # the house account's opening float, once per database (made)
    # a tournament's (比赛场) money through its own account (`event-<id>`), each a pair of
    # rows summing to 0 (app/tournaments/money.py)
    "tournament_fee",  # player -> event: the entry fee, held until the prizes or a refund
    "tournament_refund",  # event -> player: unregistering, or the event cancelled
    "tournament_prize",  # event -> player: a place's prize
    "tournament_rake",  # event -> house: the house's cut of the fees
    "tournament_guarantee",  # house -> event: the top-up to the guarantee
)


class Base(DeclarativeBase):
    pass


USERNAME_KEY_LENGTH = 64  # a name's 32 characters, or a renamed duplicate's NAME#ID (0004)


def username_key(username: str) -> str:
    """What makes a username one account's: NFKC, casefolded, NFKC again (casefolding can
    undo a normal form), so `acc1_x`, `ACC1_X` and `ａｃｃ１＿ｘ` are one name."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


class Account(Base):
    __tablename__ = "accounts"
    __table_args__ = (CheckConstraint("balance >= 0", name="balance_not_negative"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)  # shown as typed
    # unique: set from the username (`username_key`) whenever the username is set
    username_key: Mapped[str] = mapped_column(
        String(USERNAME_KEY_LENGTH), unique=True, index=True
    )
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="player")
    banned: Mapped[bool] = mapped_column(default=False)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)  # silver (银两), whole units
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    @validates("username")
    def _set_key(self, _: str, username: str) -> str:
        self.username_key = username_key(username)
        return username


class LedgerEntry(Base):
    """One silver change. Append-only: nothing updates or deletes a row."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    delta: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(32))
    hand_id: Mapped[str | None] = mapped_column(String(64), index=True, default=None)
    note: Mapped[str | None] = mapped_column(Text, default=None)
    idempotency_key: Mapped[str] = mapped_column(String(160), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class VariantStats(Base):
    """Per account and variant: points (积分, never below 0) and counts."""

    __tablename__ = "variant_stats"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    points: Mapped[int] = mapped_column(BigInteger, default=0)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    self_draws: Mapped[int] = mapped_column(Integer, default=0)
    deal_ins: Mapped[int] = mapped_column(Integer, default=0)
    escapes: Mapped[int] = mapped_column(Integer, default=0)
    disconnects: Mapped[int] = mapped_column(Integer, default=0)


class RefreshToken(Base):
    """An issued refresh token (by its id); refreshing revokes it and issues a new one."""

    __tablename__ = "refresh_tokens"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class AuditLog(Base):
    """Every admin action, with who did it, to whom, and the details (JSON text)."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    admin_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    action: Mapped[str] = mapped_column(String(32))
    target_account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), default=None)
    detail: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class HandRecord(Base):
    """One finished (or voided) hand, enough to replay and audit it: variant, seed, the
    table context, the seats' account ids and the action log, all as JSON text."""

    __tablename__ = "hand_records"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # the hand id
    table_id: Mapped[str] = mapped_column(String(64), index=True)
    variant: Mapped[str] = mapped_column(String(16))
    # the seed's bytes in hex (`app.rules.wall.seed_bytes`); 8 bytes for hands stored
    # when seeds were 63-bit ints (migration 0006), 32 since
    seed: Mapped[str] = mapped_column(String(128))
    seats: Mapped[str] = mapped_column(Text)  # [account id or null] x 4
    ctx: Mapped[str] = mapped_column(Text)  # the TableContext the hand was dealt with
    preset: Mapped[str | None] = mapped_column(Text, default=None)  # admin test mode wall
    actions: Mapped[str] = mapped_column(Text)  # [{"seat": n, "action": wire action}]
    result: Mapped[str] = mapped_column(Text)  # {"outcome": ..., "net": [...]} or {}
    voided: Mapped[bool] = mapped_column(default=False)
    # the variant's options as JSON when a private room changed them (null: the defaults)
    options: Mapped[str | None] = mapped_column(Text, default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class SharedHand(Base):
    """A hand whose replay its player made public (公开回放): anyone with its link may read
    it, without an account. One row per hand; making it private again deletes the row."""

    __tablename__ = "shared_hands"

    hand_id: Mapped[str] = mapped_column(ForeignKey("hand_records.id"), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))  # who shared it
    shared_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )


class Disconnect(Base):
    """One disconnect (断线) of an account: away when a hand ended (RULES.md 1). `at` is the
    end of that hand on the server's wall clock; the rolling 24-hour count reads it. One row
    per account and hand."""

    __tablename__ = "disconnects"
    __table_args__ = (UniqueConstraint("account_id", "hand_id", name="uq_disconnect_hand"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    hand_id: Mapped[str] = mapped_column(String(64))
    variant: Mapped[str] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    penalty: Mapped[int] = mapped_column(BigInteger, default=0)  # silver due (0: none)


ROOM_STATUSES = ("open", "ended", "dissolved")


class Room(Base):
    """A private room (好友房): a table found only by its `code`, with the owner's house rules
    and a session of a fixed length (docs/rooms.md). `open_code` is the code while the room
    is open and null after: codes are unique among open rooms and reused later. The session
    scoreboard (大结算) is stored when the room ends."""

    __tablename__ = "rooms"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'ended', 'dissolved')", name="ck_room_status"),
        CheckConstraint("length_unit IN ('hands', 'quan', 'ban')", name="ck_room_length_unit"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(6), index=True)
    open_code: Mapped[str | None] = mapped_column(String(6), unique=True, default=None)
    table_id: Mapped[str] = mapped_column(String(64), unique=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    variant: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text, default="{}")  # only the changed ones
    stake: Mapped[int] = mapped_column(BigInteger)
    timers: Mapped[str] = mapped_column(Text)  # {"discard": s, "claim": s, ...}
    length_unit: Mapped[str] = mapped_column(String(8))  # hands | ban (版)
    length: Mapped[int] = mapped_column(Integer)
    spectators: Mapped[bool] = mapped_column(default=False)  # watching with the code
    # who plays its house bots: beginner | standard | expert (app/tables/levels.py)
    bot_level: Mapped[str] = mapped_column(String(16), default="standard", server_default="standard")
    status: Mapped[str] = mapped_column(String(16), default="open")
    scoreboard: Mapped[str | None] = mapped_column(Text, default=None)  # JSON, when ended
    # a dissolve vote (解散投票) in progress: who asked, until when, and each human seat's
    # answer so far ({"account id": true|false}); null: none
    vote_by: Mapped[int | None] = mapped_column(BigInteger, default=None)
    vote_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    votes: Mapped[str | None] = mapped_column(Text, default=None)
    # 再来一局: the room opened after this one with the same rules and owner, and the player
    # who asked for it (null: none yet); set once, so a second press finds the same room
    rematch_id: Mapped[int | None] = mapped_column(Id, default=None)
    rematch_by: Mapped[int | None] = mapped_column(BigInteger, default=None)
    # the tournament whose round this room's table plays (null: a room of players), which
    # seats its players, keeps their seats and counts its session for the event
    tournament_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournaments.id", name="fk_rooms_tournament_id"), index=True, default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class MatchLevel(Base):
    """A quick-match level (场次: 初级场, 中级场, 高级场): the stake of the tables it forms
    (silver per point) and the silver a player needs to queue and to be seated there.
    Data, not code: an administrator changes them (`PUT /admin/match-levels/{key}`);
    migration 0007 seeds the defaults (`app.store.levels.DEFAULT_LEVELS`)."""

    __tablename__ = "match_levels"
    __table_args__ = (
        CheckConstraint("stake >= 1", name="level_stake_positive"),
        CheckConstraint("min_balance >= 100 * stake", name="level_min_covers_stake"),
    )

    key: Mapped[str] = mapped_column(String(16), primary_key=True)  # e.g. "beginner"
    name_zh: Mapped[str] = mapped_column(String(32))  # 初级场
    name_en: Mapped[str] = mapped_column(String(64))  # Beginner
    stake: Mapped[int] = mapped_column(BigInteger)  # silver per point at its tables
    min_balance: Mapped[int] = mapped_column(BigInteger)  # silver needed to queue and sit
    position: Mapped[int] = mapped_column(Integer, default=0)  # the order levels are shown in
    enabled: Mapped[bool] = mapped_column(default=True)  # false: not offered, queue closed
    # who plays the house bots that fill its tables: beginner | standard | expert (0010)
    bot_level: Mapped[str] = mapped_column(String(16), default="standard", server_default="standard")


TOURNAMENT_STATUSES = ("open", "running", "finished", "cancelled")
ENTRY_STATUSES = ("registered", "withdrawn", "playing", "forfeited", "finished")


class Tournament(Base):
    """A tournament (比赛场, docs/tournaments.md): an operator's event of Swiss rounds at
    tables of four. Its fees are held in its own account (`account_id`, `event-<id>`) until
    the prizes are paid or refunded. `seed` is drawn at creation and kept secret (shown once
    round 1 is drawn); `commitment` is its SHA-256, public from the start."""

    __tablename__ = "tournaments"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'running', 'finished', 'cancelled')",
                        name="ck_tournament_status"),
        CheckConstraint("length_unit IN ('hands', 'quan', 'ban')",
                        name="ck_tournament_length_unit"),
        CheckConstraint("seats >= 8 AND seats <= 256 AND seats % 4 = 0",
                        name="ck_tournament_seats"),
        CheckConstraint("rounds >= 1 AND rounds <= 8", name="ck_tournament_rounds"),
        CheckConstraint("fee >= 0 AND guarantee >= 0 AND rake_bp >= 0 AND rake_bp <= 10000",
                        name="ck_tournament_money"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40))
    variant: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text, default="{}")  # only the changed ones
    stake: Mapped[int] = mapped_column(BigInteger)  # silver per point at its tables
    timers: Mapped[str] = mapped_column(Text)  # {"discard": s, "claim": s, ...}
    fee: Mapped[int] = mapped_column(BigInteger)  # silver per player
    rake_bp: Mapped[int] = mapped_column(Integer, default=0)  # the house's cut, basis points
    guarantee: Mapped[int] = mapped_column(BigInteger, default=0)  # the least pool
    seats: Mapped[int] = mapped_column(Integer)  # 8-256, in fours
    rounds: Mapped[int] = mapped_column(Integer)  # Swiss rounds, 1-8
    length_unit: Mapped[str] = mapped_column(String(8))  # per round: hands | ban (版)
    length: Mapped[int] = mapped_column(Integer)
    final_table: Mapped[bool] = mapped_column(default=False)
    prize_shares: Mapped[str] = mapped_column(Text)  # JSON list of positive ints, place 1 first
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    seed: Mapped[str] = mapped_column(String(64))  # 32 bytes in hex; secret until round 1
    seed_revealed: Mapped[bool] = mapped_column(default=False)
    commitment: Mapped[str] = mapped_column(String(64))  # SHA-256 hex of the seed's bytes
    bot_level: Mapped[str] = mapped_column(String(16), default="standard")
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), unique=True)
    # the round in play (0 before the start), and the node directing the running event
    # until `lease_until` (app/tournaments/director.py)
    round: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    director: Mapped[str | None] = mapped_column(String(64), default=None)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    created_by: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TournamentEntry(Base):
    """A player's (or, from the start, a house bot's) entry. `number` is the entrant number
    the draw uses (null until the start); `registrations` counts the times the account
    registered, so that each fee and refund has its own ledger key; `prize` is null until
    paid."""

    __tablename__ = "tournament_entries"
    __table_args__ = (
        UniqueConstraint("tournament_id", "account_id", name="uq_tournament_entry"),
        CheckConstraint(
            "status IN ('registered', 'withdrawn', 'playing', 'forfeited', 'finished')",
            name="ck_tournament_entry_status",
        ),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="registered")
    number: Mapped[int | None] = mapped_column(Integer, default=None)
    bot: Mapped[bool] = mapped_column(default=False)
    registrations: Mapped[int] = mapped_column(Integer, default=1)
    registered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    prize: Mapped[int | None] = mapped_column(BigInteger, default=None)


class TournamentTable(Base):
    """One table of a tournament's round: its entrants by seat (JSON list of entrant
    numbers, seat 0 = 东) and, once done, its results (JSON)."""

    __tablename__ = "tournament_tables"
    __table_args__ = (
        CheckConstraint("status IN ('waiting', 'playing', 'done')",
                        name="ck_tournament_table_status"),
    )

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), unique=True)
    seats: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="waiting")
    results: Mapped[str | None] = mapped_column(Text, default=None)

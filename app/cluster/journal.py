"""Durable table state for failover, in Redis: the table's configuration, and the hand in
play as its header (seed, context, preset, first seq) plus its applied actions, appended
one by one as the hand goes. Another node rebuilds the hand by replaying the log
(`app.rules.hand.replay`), as the actor does after an internal error.

Every write is fenced: a script compares the table's fencing counter with the writer's
token and refuses (returns 0) when a newer token was handed out.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, field_validator
from redis.typing import EncodableT

from app.cluster.keys import Keys
from app.protocol import WireAction, logged_action, to_code, to_rules_action, to_tile
from app.rules.actions import Action, Escape
from app.rules.context import TableContext
from app.rules.state import Preset
from app.rules.wall import seed_bytes
from app.tables.timers import Timers

WIRE_ACTION: TypeAdapter[WireAction] = TypeAdapter(WireAction)

START_HAND = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3])
redis.call('SET', KEYS[4], ARGV[3])
redis.call('HSET', KEYS[5], ARGV[4], ARGV[5])
return 1
"""

APPEND = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('RPUSH', KEYS[2], ARGV[2])
"""

STORE_TABLE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[4], ARGV[2])
if ARGV[3] == '1' then redis.call('DEL', KEYS[2], KEYS[3]) end
redis.call('HSET', KEYS[5], ARGV[4], ARGV[5])
return 1
"""

REMOVE_TABLE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('HDEL', KEYS[5], ARGV[2])
return 1
"""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SeatData(_Model):
    account: int | None
    autoplay: bool = False
    bot: bool = False  # a bot account: 托管 for good, always there
    # the 托管 level the player chose at the table (app/tables/levels.py; read leniently:
    # a journal written before it has none, standard)
    autoplay_level: str = "standard"


class ContextData(_Model):
    dealer: int = 0
    streak: int = 0
    seat_points: tuple[int, int, int, int] = (0, 0, 0, 0)
    draw_bonus: int = 0

    @classmethod
    def of(cls, ctx: TableContext) -> ContextData:
        return cls(
            dealer=ctx.dealer,
            streak=ctx.streak,
            seat_points=ctx.seat_points,
            draw_bonus=ctx.draw_bonus,
        )

    def context(self) -> TableContext:
        return TableContext(self.dealer, self.streak, self.seat_points, self.draw_bonus)


class PresetData(_Model):
    wall: list[str]
    dice: tuple[int, int]
    wild_dice: tuple[int, int]

    @classmethod
    def of(cls, preset: Preset) -> PresetData:
        return cls(
            wall=[to_code(t) for t in preset.wall], dice=preset.dice, wild_dice=preset.wild_dice
        )

    def preset(self) -> Preset:
        return Preset(tuple(to_tile(c) for c in self.wall), self.dice, self.wild_dice)


class TimersData(_Model):
    discard: float
    claim: float
    decide: float
    ready: float

    @classmethod
    def of(cls, timers: Timers) -> TimersData:
        return cls(
            discard=timers.discard, claim=timers.claim, decide=timers.decide, ready=timers.ready
        )

    def timers(self) -> Timers:
        return Timers(self.discard, self.claim, self.decide, self.ready)


class TableConfig(_Model):
    """What a node needs to serve a table between hands: `ctx` is the next hand's context
    (None: the first hand's dice choose the dealer), `hands` the hands dealt so far, `seq`
    the table's last event seq, `paused` whether an administrator paused it."""

    table_id: str
    variant: str
    stake: int
    timers: TimersData
    seats: list[SeatData]
    ctx: ContextData | None
    hands: int
    seq: int
    paused: bool = False
    options: dict[str, Any] | None = None  # a private room's options (None: the defaults)
    room: str | None = None  # a private room's code
    creator: int | None = None  # who opened it (a room's owner)
    spectators: bool = True  # a private room: whether people with its code may watch
    bot_level: str = "standard"  # who plays its house bots (app/tables/levels.py)
    tournament: int | None = None  # the tournament whose round it plays (keeps its seats)


class HandHeader(_Model):
    """How the hand in play was dealt; its actions are in the table's action list. `seed`:
    the seed's bytes in hex (a header a node wrote before seeds were bytes has an int,
    read as its 8-byte form)."""

    hand_id: str
    hands: int
    seed: str
    ctx: ContextData
    preset: PresetData | None
    first_seq: int

    @field_validator("seed", mode="before")
    @classmethod
    def _int_seed(cls, value: object) -> object:
        return seed_bytes(value).hex() if isinstance(value, int) else value

    def seed_bytes(self) -> bytes:
        return bytes.fromhex(self.seed)


def action_of(text: str) -> Action:
    item = json.loads(text)
    seat = int(item["seat"])
    if item["action"]["type"] == "escape":
        return Escape(seat)
    return to_rules_action(WIRE_ACTION.validate_python(item["action"]), seat)


class Journal:
    """The scripts and keys of fenced table writes; `args_*` give (keys, args) so that the
    node's writer can pipeline them, in order, with its other commands."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys

    def start_hand(
        self, token: int, header: HandHeader, config: TableConfig, summary: str
    ) -> tuple[list[str], list[EncodableT]]:
        t = config.table_id
        k = self.keys
        return (
            [k.fence(t), k.hand(t), k.actions(t), k.config(t), k.directory],
            [token, header.model_dump_json(), config.model_dump_json(), t, summary],
        )

    def append(self, table_id: str, token: int, action: Action) -> tuple[list[str], list[EncodableT]]:
        return [self.keys.fence(table_id), self.keys.actions(table_id)], [token, logged_action(action)]

    def store_table(
        self, token: int, config: TableConfig, summary: str, *, clear_hand: bool
    ) -> tuple[list[str], list[EncodableT]]:
        t = config.table_id
        k = self.keys
        return (
            [k.fence(t), k.hand(t), k.actions(t), k.config(t), k.directory],
            [token, config.model_dump_json(), "1" if clear_hand else "0", t, summary],
        )

    def remove_table(self, table_id: str, token: int) -> tuple[list[str], list[EncodableT]]:
        k = self.keys
        t = table_id
        return [k.fence(t), k.hand(t), k.actions(t), k.config(t), k.directory], [token, t]

"""Every WebSocket message, one discriminated union on ``type`` per direction, and the
``hello`` a client opens its socket with (`HelloMessage`, not part of the union: it is only
ever the first message).

Messages are JSON objects validated once at the edge (`parse_client`, `parse_hello`),
frozen, with no unknown fields, and versioned: each carries ``"v": 2`` (a client may leave
it out, except in ``hello``). Tiles are codes ("5m", "7z", "1f").
Every event the server sends carries the table's sequence number ``seq``; a client sends
the last one it saw with each action, and ``resume`` with it after a reconnect.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import ConfigDict, Field, StringConstraints, TypeAdapter

from app.protocol.actions import WireAction
from app.protocol.base import ClientModel, HandId, SeatNumber, Seq, TableId, WireModel
from app.protocol.errors import ErrorCode
from app.protocol.events import EventPayload
from app.protocol.rooms import RoomMessage
from app.protocol.tiles import TileCode
from app.protocol.tournaments import TournamentMessage
from app.protocol.views import SeatView
from app.protocol.vocabulary import AutoplayLevel, BotLevel, ChatPhrase, Variant

Nonce = Annotated[str, StringConstraints(max_length=64)]
VERSION: Final = 2  # docs/protocol.md: what changed from version 1
Version = Literal[2]
MAX_TOKEN_LENGTH = 2048  # an access token is a JWT of about 200 characters
RoomCode = Annotated[str, StringConstraints(pattern=r"^[0-9]{6}$")]


# --- client -> server ------------------------------------------------------------------


class HelloMessage(ClientModel):
    """The first message on a socket, within a few seconds of opening it: the protocol
    version the client speaks (required) and its access token (from /auth/login or
    /auth/refresh). The token never travels in the URL."""

    v: Version
    """the protocol version the client speaks (required here)"""
    type: Literal["hello"] = "hello"
    token: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOKEN_LENGTH)]
    """an access token from POST /auth/login or /auth/refresh"""


class ActionMessage(ClientModel):
    """Take `action` in the current hand; `seq` is the last event seq the client saw (a
    server may refuse an action sent on an older state with ``stale``)."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["action"] = "action"
    table_id: TableId
    seq: Seq
    """the last event seq the client saw (the prompt's seq); an error refusing this action
    carries it as `ref_seq`"""
    action: WireAction
    """the action, one the last prompt offered"""


class ResumeMessage(ClientModel):
    """After connecting or reconnecting: what the seat missed at the table since `last_seq`
    (the events after it, or a snapshot when they are not at hand; see docs/protocol.md),
    then its prompt if it owes a decision."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["resume"] = "resume"
    table_id: TableId
    last_seq: Seq
    """the last event seq the client saw at this table (0: none)"""


class AutoplayMessage(ClientModel):
    """托管 (auto-play) on or off: the server plays this seat until the player turns it off
    (or acts: any action turns it off), at the level the player chooses (standard: the rule
    book's 托管; expert: the 高手 house bot). The level is kept for the seat at this table: a
    later 托管 switched on by two timeouts plays at it too. 新手 is not offered: a value not
    offered is refused (`validation_error`) and changes nothing."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["autoplay"] = "autoplay"
    table_id: TableId
    on: bool
    """true: turn 托管 on; false: off"""
    level: AutoplayLevel = "standard"
    """who plays the seat while 托管 is on (with `on: true`; ignored with `on: false`);
    left out: standard, 托管 as before"""


class LeaveMessage(ClientModel):
    """Leave the table. Between hands this is free. During a hand it is an escape (逃跑):
    the hand ends at once and the leaver pays the variant's escape penalty; the seat is
    free from then on, and the leaver may sit again while the hand is being stored."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["leave"] = "leave"
    table_id: TableId


class ReadyMessage(ClientModel):
    """准备: the seat is ready for the next hand. Between hands only (``in_hand`` during a
    hand or while its result is stored). Once every seat is taken and every player at the
    table has said ready (a bot always is), the next hand is dealt at once instead of when
    the ready timer ends; the timer still deals without them."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["ready"] = "ready"
    table_id: TableId


class PingMessage(ClientModel):
    """Keep-alive; the server answers ``pong`` with the same nonce."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["ping"] = "ping"
    nonce: Nonce
    """any string of at most 64 characters, echoed in the pong"""


class WatchMessage(ClientModel):
    """Watch the table as a spectator (旁观): the public view of its hands, what every seat
    sees of the others, never a concealed tile, a prompt or the wall order. Answered with
    ``watching`` (and a ``snapshot`` of the hand in play, then its events as they come), or
    an error: ``no_table``, ``seated_here`` (a player does not watch its own table),
    ``spectators_full``, and for a private room ``spectators_not_allowed`` or
    ``wrong_room_code``. A socket watches one table at a time: a watch ends the one before.
    Send it again after a reconnect, or after a gap in the events' seq (it is answered with
    a fresh ``watching`` and snapshot)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"v": 2, "type": "watch", "table_id": "T1", "code": None}
    ]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["watch"] = "watch"
    table_id: TableId
    code: RoomCode | None = None
    """a private room's code (房间号), as its owner gave it; null or left out for a public
    table"""


class UnwatchMessage(ClientModel):
    """Stop watching the table. Not answered (nothing more of the table comes); unwatching
    a table the socket does not watch does nothing."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"v": 2, "type": "unwatch", "table_id": "T1"}
    ]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["unwatch"] = "unwatch"
    table_id: TableId


class SendChatMessage(ClientModel):
    """Quick chat (快捷语), what a client sends: a seated player sends one phrase or
    reaction of the fixed list (no free text) to the table; everyone seated there and every
    spectator gets it as a ``ChatSaidMessage`` (``type`` ``chat`` too; the sender included),
    except those who muted the sender. At most 3 at once, then one every 3 seconds
    (``chat_limited``); a spectator may not chat (``wrong_table``)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"v": 2, "type": "chat", "table_id": "T1", "phrase": "nice_play"}
    ]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["chat"] = "chat"
    table_id: TableId
    phrase: ChatPhrase
    """the phrase or reaction, by its id"""


class MuteMessage(ClientModel):
    """Stop receiving the quick chat of the player at `seat` (屏蔽). The mute holds for that
    player (by account, also if they change seats) for as long as the muter sits at or
    watches the table. Answered with ``muted``; `bad_seat` for an empty seat or one's own."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"v": 2, "type": "mute", "table_id": "T1", "seat": 3}
    ]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["mute"] = "mute"
    table_id: TableId
    seat: SeatNumber
    """the seat of the player to mute"""


class UnmuteMessage(ClientModel):
    """Receive the quick chat of the player at `seat` again. Answered with ``muted``."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"v": 2, "type": "unmute", "table_id": "T1", "seat": 3}
    ]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["unmute"] = "unmute"
    table_id: TableId
    seat: SeatNumber
    """the seat of the player to hear again"""


ClientMessage = Annotated[
    ActionMessage | ResumeMessage | AutoplayMessage | LeaveMessage | ReadyMessage | PingMessage
    | WatchMessage | UnwatchMessage | SendChatMessage | MuteMessage | UnmuteMessage,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
HELLO: TypeAdapter[HelloMessage] = TypeAdapter(HelloMessage)


# --- server -> client ------------------------------------------------------------------


class EventMessage(WireModel):
    """Something happened in the hand, as this seat may see it."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["event"] = "event"
    table_id: TableId
    hand_id: HandId
    seq: Seq
    """this event's number: the table's last seq plus one"""
    event: EventPayload
    """what happened; `kind` says which"""


class WaitHint(WireModel):
    """A tile that would complete the hand (by the variant's own rules, special hands
    included), and how many of its copies the seat has not seen: four, less its own
    tiles, the melds shown and the discards in the river."""

    tile: TileCode
    """the tile that completes the hand"""
    unseen: int = Field(ge=0, le=4)
    """its copies the seat has not seen (0-4)"""


class ReadyHint(WireModel):
    """A discard that leaves the hand ready (听), and its waits."""

    discard: TileCode
    """the tile to throw"""
    waits: list[WaitHint] = Field(min_length=1)
    """what the hand then waits on, in tile order"""


class PromptMessage(WireModel):
    """The seat must decide: one of `legal_actions` within `deadline_ms` (the time left when
    sent), or the server takes `timeout_action` (in a claim window: pass). `seq` is the
    last event the prompt follows."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["prompt"] = "prompt"
    table_id: TableId
    hand_id: HandId
    seq: Seq
    """the seq of the last event the prompt follows; the answering action carries it"""
    legal_actions: list[WireAction] = Field(min_length=1)
    """every action the seat may take now"""
    deadline_ms: int = Field(ge=0)
    """the milliseconds left to decide when the prompt was sent"""
    timeout_action: WireAction
    """what the server plays for the seat when the time runs out"""
    ready: list[ReadyHint] = Field(default_factory=list)
    """on the seat's turn: each discard that leaves the hand ready (听), with what it then
    waits on; empty when none does, and on every other prompt"""
    dead_ends: list[WireAction] = Field(default_factory=list)
    """in a 上海 claim window: the claims among `legal_actions` (吃, 碰, 明杠) after which the
    hand can make no winning shape (only 大吊车, 杠开 or 八花 could still win it); empty
    otherwise and in every other variant"""


class SnapshotMessage(WireModel):
    """The seat's whole view at event `seq` (after ``resume`` or on joining mid-hand);
    `deadline_ms` is the time left for the seat's own pending decision, if any."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["snapshot"] = "snapshot"
    table_id: TableId
    hand_id: HandId
    seq: Seq
    """the seq of the last event the view includes; events after it follow"""
    view: SeatView
    """the seat's whole view of the hand"""
    deadline_ms: int | None = Field(default=None, ge=0)
    """the milliseconds left for the seat's own pending decision; null: none pending"""


class ErrorMessage(WireModel):
    """A refused message. `code` is stable (see `app.protocol.errors`); `message` is for
    people; `ref_seq` is the seq the refused message carried, if it was readable."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["error"] = "error"
    code: ErrorCode
    """what went wrong; branch on this, never on `message`"""
    message: str = Field(max_length=300)
    """an explanation for people (English), never to parse"""
    ref_seq: Seq | None = None
    """the seq the refused message carried (an action's `seq`, a resume's `last_seq`);
    null when it carried none or it could not be read, and for errors that answer no
    message (`hand_voided`, `kicked`)"""


class PongMessage(WireModel):
    """The answer to ``ping``."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["pong"] = "pong"
    nonce: Nonce
    """the ping's nonce"""


class SeatedMessage(WireModel):
    """You sit at `seat` of `table_id`, which plays `variant` at `stake` silver per point."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["seated"] = "seated"
    table_id: TableId
    seat: SeatNumber
    """the receiver's seat, 0-3"""
    variant: Variant
    """the variant the table plays"""
    stake: int = Field(ge=0)
    """silver (银两) per point: a hand moves net x stake silver"""


class SeatInfo(WireModel):
    """One seat of a table: who sits there (null name: empty), their title (e.g. 菜鸟) and
    silver (银两), whether they are connected, ready for the next hand, or on 托管."""

    seat: SeatNumber
    """the seat, 0-3"""
    name: str | None
    """the player's name as they typed it (bots: bot-<n>); null: the seat is empty"""
    title: str | None
    """the player's title (称号) by their silver, the 丽水 ladder of RULES.md 2 (菜鸟 ...
    万赌之王); null: empty"""
    balance: int | None
    """the player's silver (银两); null: empty"""
    connected: bool
    """the player has a socket and is not away (a bot always is)"""
    ready: bool
    """during a hand: taken and connected; between hands: its player said ready (准备) for
    the next hand (a bot always is)"""
    autoplay: bool
    """托管: the server plays for the seat (bots; two timeouts in a row; until it acts)"""
    autoplay_level: AutoplayLevel = "standard"
    """the level a player chose for the seat's 托管 at this table (standard until they
    choose; a house bot's seat plays at the table's `bot_level` instead)"""


class TableStateMessage(WireModel):
    """The table around the hands: its seats, the dealer (庄家) and the hand in play (null
    between hands). Sent on joining and whenever a seat changes."""

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["table_state"] = "table_state"
    table_id: TableId
    variant: Variant
    """the variant the table plays"""
    dealer: SeatNumber
    """the dealer (庄家) of the hand in play, or of the next one"""
    hand_id: HandId | None
    """the hand in play; null between hands"""
    seats: list[SeatInfo] = Field(min_length=4, max_length=4)
    """the four seats, by seat number"""
    settling: bool = False
    """the last hand's result is being stored: its hand_ended comes once the database has
    it, and no hand is dealt before"""
    next_hand_ms: int | None = None
    """between hands, the milliseconds (when this message was sent) until the ready timer
    deals the next hand, unless every seat says ready (准备) first; null during a hand,
    while the result is stored, while an operator has paused the table or while a seat is
    empty"""
    spectators: int = Field(default=0, ge=0)
    """how many watch the table (旁观) now"""
    bot_level: BotLevel = "standard"
    """who plays the table's house bots (the seats whose player is a bot, bot-<n>):
    beginner (新手), standard (普通, the default) or expert (高手); chosen with the table, by a
    private room's owner or by the operator for a quick-match level. A player's seat on
    托管 is played the same way at every level"""


class WatchingMessage(WireModel):
    """The answer to ``watch``: the receiver watches `table_id`, which plays `variant` at
    `stake`. `seq` is the table's last event shown: a ``snapshot`` at that seq follows when
    the table has dealt (the hand in play, or the last one), then every event after it, as
    every seat sees the others (no concealed tile, no prompt). ``table_state`` comes too,
    and again whenever it changes."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "v": 2, "type": "watching", "table_id": "T1", "variant": "lishui", "stake": 10, "seq": 37,
        "spectators": 3,
    }]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["watching"] = "watching"
    table_id: TableId
    variant: Variant
    """the variant the table plays"""
    stake: int = Field(ge=0)
    """silver (银两) per point"""
    seq: Seq
    """the table's last event seq shown; the events that follow carry the next ones"""
    spectators: int = Field(ge=1)
    """how many watch the table now, the receiver included"""


class ChatSaidMessage(WireModel):
    """Quick chat (快捷语), what the server sends: the player at `seat` said `phrase` (its
    ``SendChatMessage``; both are ``type`` ``chat``, told apart by direction). Sent to
    everyone seated at the table (the sender too) and to its spectators, except those who
    muted the sender. It carries no seq: it is not part of the hand."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"v": 2, "type": "chat", "table_id": "T1", "seat": 2, "phrase": "nice_play"}
    ]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["chat"] = "chat"
    table_id: TableId
    seat: SeatNumber
    """the seat of the player who said it"""
    phrase: ChatPhrase
    """the phrase or reaction, by its id"""


class MutedMessage(WireModel):
    """The seats whose players' quick chat the receiver does not receive at `table_id` (it
    muted them), as they sit now. The answer to ``mute`` and ``unmute``, and sent after
    ``seated`` when there are any."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"v": 2, "type": "muted", "table_id": "T1", "seats": [3]}
    ]})

    v: Version = VERSION
    """the protocol version, 2"""
    type: Literal["muted"] = "muted"
    table_id: TableId
    seats: list[SeatNumber]
    """the muted players' seats, in order"""


ServerMessage = Annotated[
    EventMessage
    | PromptMessage
    | SnapshotMessage
    | ErrorMessage
    | PongMessage
    | SeatedMessage
    | TableStateMessage
    | RoomMessage
    | TournamentMessage
    | WatchingMessage
    | ChatSaidMessage
    | MutedMessage,
    Field(discriminator="type"),
]
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)

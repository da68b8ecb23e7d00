"""The live tables of this process, and the wiring between them, the sockets and the store.

- `create` makes a `Table` actor with four empty seats and runs it as an asyncio task with
  the real (monotonic) clock and a tick task; the first hand is dealt on the first tick
  once four players sit.
- Sitting and leaving between hands change the actor's seats directly: the registry and
  the actor share one event loop and the actor only reads its seats between awaits, so no
  message is needed. Leaving during a hand is an escape (逃跑, RULES.md 1) and goes through
  the inbox; the seat is freed once that hand has ended.
- Outbound items become the wire messages of `app.protocol` and go to the one connection
  of the account sitting at that seat (none connected: dropped; `resume` catches up).
- administration (`pause`, `resume`, `kick`, `dissolve`) goes through the inbox and waits
  for the actor (`Flush`), so that the caller sees the table after the command;
- `on_hand_end` is the one place money moves: it settles the hand's silver
  (`ledger.settle_hand`, skipped for a voided hand), stores its `HandRecord`, then records
  the disconnects of seats still away and charges the third in 24 hours
  (`app.tables.penalties`, on the injectable `wall_clock`);
- ``table_state`` (names, titles, balances, connected, ready, 托管) goes to every connected
  seat whenever a seat changes: sit, leave, connect, disconnect, 托管 on or off, kick, a
  reseat, and after each settlement (new balances); a seat that connects, resumes or sits
  gets ``seated`` and ``table_state``. Profiles are read from the store when sent, one
  sender task per table, so the last message a seat gets is the table as it is;
- a kicked account is told (``error`` code ``kicked``) and, sitting nowhere else, its
  socket is closed with `CLOSE_KICKED`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, Protocol

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.cluster.base import Network
from app.ops import metrics
from app.protocol import (
    ERROR_CODES,
    ErrorMessage,
    EventMessage,
    PromptMessage,
    SeatedMessage,
    SeatInfo,
    ServerMessage,
    SnapshotMessage,
    TableStateMessage,
    event_payload,
    from_rules_action,
    to_code,
    view_model,
)
from app.protocol.actions import PassAction, WireAction
from app.protocol.encode import Encoded, event_text, message_text, prompt_text
from app.rules.actions import Action, Escape, Pass
from app.rules.bots import TimeoutBot
from app.rules.events import Event
from app.rules.hand import Preset
from app.rules.variants import get_ruleset
from app.rules.variants.base import TableContext
from app.store import ledger, ranks
from app.store.models import Account, HandRecord
from app.tables.actor import Table, tick_forever
from app.tables.clock import MonotonicClock
from app.tables.messages import (
    AdminDissolve,
    AdminPause,
    AdminResume,
    Connected,
    ErrorOut,
    EventOut,
    Flush,
    HandRecordData,
    Inbound,
    Leave,
    Outbound,
    PromptOut,
    SnapshotOut,
    Stop,
)
from app.tables.penalties import DEFAULT_POLICY, DisconnectPolicy, settle_disconnects
from app.tables.seats import SeatState
from app.tables.timers import Timers

log = logging.getLogger(__name__)

MIN_BALANCE_PER_STAKE = 100
"""To sit at a table a player needs at least 100 x its stake in silver (银两)."""

TICK_SECONDS = 0.25
CLOSE_KICKED = 4003  # the WebSocket close code of a kicked account that sits nowhere else
ADMIN_WAIT_SECONDS = 10.0  # how long an admin command waits for the actor to handle it

# Codes the actor uses that the wire protocol does not list, and the listed code a client gets.

_TIMEOUT = TimeoutBot()

Status = Literal["waiting", "playing"]


class Sink(Protocol):
    """One client connection as the registry sees it."""

    def deliver(self, message: ServerMessage) -> None:
        """Queue `message` for the client; never blocks the actor."""
        ...

    # A sink may also have `deliver_encoded(encoded: Encoded) -> None` (the socket's
    # `Connection` has): it is then given events and prompts as their JSON text.

    def close(self, code: int) -> None:
        """Close the connection with this WebSocket close code."""
        ...


class TableError(Exception):
    """A lobby request refused: `code` is the API error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class LiveTable:
    """One table of this process: its actor, its stake (silver per point) and its tasks."""

    table_id: str
    variant: str
    stake: int
    timers: Timers
    table: Table
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    bots: set[int] = field(default_factory=set)  # accounts the greedy bot plays for good
    creator: int | None = None  # the account that opened it in the lobby (its table limit)
    # the last event sent and its text, shared by the seats that see the same copy
    last_event: tuple[int, Event, Encoded] | None = None

    def accounts(self) -> list[int | None]:
        return [seat.account for seat in self.table.seats]

    def seat_of(self, account_id: int) -> int | None:
        for seat, account in enumerate(self.accounts()):
            if account == account_id:
                return seat
        return None

    @property
    def status(self) -> Status:
        return "playing" if self.table.hand is not None else "waiting"


class TableRegistry:
    """Owns every live table of this process. `start` with the app, `stop` at shutdown."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        disconnect_policy: DisconnectPolicy = DEFAULT_POLICY,
    ) -> None:
        self._sessions = sessions
        self._tables: dict[str, LiveTable] = {}
        self._connections: dict[int, Sink] = {}  # account id -> its one connection
        self._wall_clock = wall_clock  # when a disconnect happened (the 24-hour window)
        self._disconnect_policy = disconnect_policy
        # table_state: the seats owed one (and `seated` first), one sender task per table
        self._owed: dict[str, set[int]] = {}
        self._owed_seated: dict[str, set[int]] = {}
        self._senders: dict[str, asyncio.Task[None]] = {}
        self.network = Network()  # the cluster (app.cluster), or this process alone

    # --- tables ---------------------------------------------------------------------------

    def create(
        self,
        variant: str,
        stake: int,
        *,
        timers: Timers | None = None,
        preset: Preset | None = None,
        ctx: TableContext | None = None,
        table_id: str | None = None,
    ) -> LiveTable:
        """A new empty table of `variant` at `stake` silver per point, running at once. A
        `preset` (admin test mode) deals the first hand from that wall, with `ctx`'s dealer."""
        ruleset = get_ruleset(variant)  # ValueError for an unknown variant
        if stake < 0:
            raise ValueError("the stake is not below 0")
        table_id = table_id or secrets.token_hex(6)
        chosen = timers or Timers()
        table = Table(
            table_id,
            ruleset,
            [None] * 4,
            MonotonicClock(),
            lambda seat, item: self._send(table_id, seat, item),
            self._on_hand_end,
            timers=chosen,
            preset=preset,
            ctx=ctx,
            on_seats_changed=lambda: self.announce(table_id),
        )
        table.observer = self.network.observer()
        live = LiveTable(table_id, variant, stake, chosen, table)
        live.tasks = [
            asyncio.create_task(table.run(), name=f"table-{table_id}"),
            asyncio.create_task(tick_forever(table, TICK_SECONDS), name=f"tick-{table_id}"),
        ]
        self._tables[table_id] = live
        return live

    def get(self, table_id: str) -> LiveTable | None:
        return self._tables.get(table_id)

    def all(self) -> list[LiveTable]:
        return list(self._tables.values())

    def sit(
        self, table_id: str, account_id: int, seat: int | None = None, *, bot: bool = False
    ) -> int:
        """Seat `account_id` (at `seat`, or the first empty one); the seat taken. The caller
        checks the account's standing (banned, balance) first. A `bot` seat is on 托管 for
        good: the greedy bot answers its prompts inside the actor, with no socket."""
        live = self.require(table_id)
        if live.seat_of(account_id) is not None:
            raise TableError("already_seated", "you already sit at this table")
        accounts = live.accounts()
        if seat is None:
            seat = next((s for s, a in enumerate(accounts) if a is None), None)
            if seat is None:
                raise TableError("table_full", "every seat is taken")
        elif accounts[seat] is not None:
            raise TableError("seat_taken", f"seat {seat} is taken")
        live.table.seats[seat] = SeatState(account_id, autoplay=bot)
        if bot:
            live.bots.add(account_id)
        self.announce(table_id)
        self.announce(table_id, [seat], seated=True)
        self.network.changed(live)
        return seat

    def seated_accounts(self) -> set[int]:
        """Every account sitting at a table of this process."""
        return {a for live in self._tables.values() for a in live.accounts() if a is not None}

    def leave(self, table_id: str, account_id: int) -> None:
        """Free the account's seat; during a hand this is an escape and the seat is freed
        when that hand has ended."""
        live = self.require(table_id)
        seat = live.seat_of(account_id)
        if seat is None:
            raise TableError("wrong_table", "you do not sit at this table")
        if live.table.hand is None:
            live.table.seats[seat] = SeatState(None)
            self.announce(table_id)
            self.network.changed(live)
            return
        # the first Leave escapes (the hand ends), the second finds no hand and frees the seat
        live.table.submit(Leave(seat))
        live.table.submit(Leave(seat))

    def submit(self, table_id: str, msg: Inbound) -> None:
        self.require(table_id).table.submit(msg)

    # --- administration ---------------------------------------------------------------------

    async def flush(self, table_id: str) -> None:
        """Return once the table's actor has handled every message submitted so far."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.require(table_id).table.submit(Flush(done))
        await asyncio.wait_for(done, ADMIN_WAIT_SECONDS)

    async def pause(self, table_id: str) -> None:
        """Freeze the table: deadlines keep their remaining time, actions are refused."""
        live = self.require(table_id)
        live.table.submit(AdminPause())
        await self.flush(table_id)
        self.network.pause_changed(live)

    async def resume(self, table_id: str) -> None:
        """Unfreeze the table: deadlines run again from their remaining time."""
        live = self.require(table_id)
        live.table.submit(AdminResume())
        await self.flush(table_id)
        self.network.pause_changed(live)

    async def kick(self, table_id: str, seat: int) -> int | None:
        """Remove whoever sits at `seat`: during a hand an escape (逃跑, RULES.md 1) that
        ends the hand and is settled as one, then the seat is freed. The account removed."""
        live = self.require(table_id)
        account = live.table.seats[seat].account
        if account is None:
            raise TableError("not_found", f"nobody sits at seat {seat}")
        # as in `leave`: the first Leave escapes (the hand ends), the second frees the seat
        live.table.submit(Leave(seat))
        live.table.submit(Leave(seat))
        await self.flush(table_id)
        self._tell_kicked(account, table_id)
        return account

    def _tell_kicked(self, account_id: int, table_id: str) -> None:
        """The kicked player learns it at once; sitting at no other table, its socket closes."""
        sink = self._connections.get(account_id)
        told = ErrorMessage(
            code="kicked", message=f"an administrator removed you from table {table_id}"
        )
        if sink is None:
            if self.network.remote:  # a socket on another node: told, left open
                self.network.deliver(account_id, told)
            return
        sink.deliver(told)
        if account_id not in self.seated_accounts():
            sink.close(CLOSE_KICKED)

    async def dissolve(self, table_id: str) -> str | None:
        """Dissolve the table (解散): its hand in play is voided (no silver moves, a voided
        record is stored), every seat is freed and the table stops. The voided hand's id."""
        live = self.require(table_id)
        done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        live.table.submit(AdminDissolve(done))
        voided = await asyncio.wait_for(done, ADMIN_WAIT_SECONDS)
        live.table.submit(Stop())
        live.tasks[1].cancel()
        await asyncio.gather(*live.tasks, return_exceptions=True)
        self._tables.pop(table_id, None)
        self._owed.pop(table_id, None)
        self._owed_seated.pop(table_id, None)
        self._senders.pop(table_id, None)  # it finds no table and ends
        self.network.closed(table_id)
        return voided

    def require(self, table_id: str) -> LiveTable:
        """The live table `table_id` (TableError `not_found` when this node has none)."""
        live = self._tables.get(table_id)
        if live is None:
            raise TableError("not_found", f"no table {table_id!r}")
        return live

    async def drop(self, table_id: str) -> None:
        """Stop serving a table without ending its hand (another node owns it now)."""
        live = self._tables.pop(table_id, None)
        if live is None:
            return
        live.table.submit(Stop())
        live.tasks[1].cancel()
        await asyncio.gather(*live.tasks, return_exceptions=True)

    async def stop(self) -> None:
        """Stop every table's actor and ticker."""
        for live in self._tables.values():
            live.table.submit(Stop())
            live.tasks[1].cancel()
        for sender in self._senders.values():
            sender.cancel()
        tasks = [task for live in self._tables.values() for task in live.tasks]
        tasks += self._senders.values()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tables.clear()

    # --- connections ----------------------------------------------------------------------

    def connect(self, account_id: int, sink: Sink) -> Sink | None:
        """Route this account's seats to `sink`; the connection it replaces, if any."""
        old = self._connections.get(account_id)
        self._connections[account_id] = sink
        for live in self._tables.values():
            if (seat := live.seat_of(account_id)) is not None:
                live.table.submit(Connected(seat))  # after any Disconnected of the old one
                self.announce(live.table_id)
                self.announce(live.table_id, [seat], seated=True)
        self.network.connected(account_id, sink)
        return old

    def disconnect(self, account_id: int, sink: Sink) -> list[tuple[str, int]]:
        """Forget `sink` (unless a newer connection replaced it); the (table, seat) pairs
        the account holds, so that the caller can tell their actors."""
        if self._connections.get(account_id) is not sink:
            return []
        del self._connections[account_id]
        self.network.disconnected(account_id, sink)
        held = [
            (live.table_id, seat)
            for live in self._tables.values()
            if (seat := live.seat_of(account_id)) is not None
        ]
        for table_id, _ in held:
            self.announce(table_id)
        return held

    def _send(self, table_id: str, seat: int, item: Outbound) -> None:
        live = self._tables.get(table_id)
        if live is None:
            return
        account = live.table.seats[seat].account
        sink = self._connections.get(account) if account is not None else None
        try:
            if sink is None:
                if account is not None and self.network.remote:  # a socket on another node
                    self.network.deliver(account, wire_message(live, seat, item))
                return
            deliver_encoded = getattr(sink, "deliver_encoded", None)
            if deliver_encoded is None:
                sink.deliver(wire_message(live, seat, item))
            else:
                deliver_encoded(encoded_message(live, seat, item))
        except Exception:  # a bad conversion must not reach the actor
            log.exception("table %s: cannot send %r to seat %d", table_id, item, seat)

    # --- table_state ----------------------------------------------------------------------

    def announce(self, table_id: str, seats: Iterable[int] = range(4), *, seated: bool = False
                 ) -> None:
        """Send ``table_state`` to `seats` (connected ones) soon, ``seated`` first when asked;
        several calls before the sender runs make one message per seat."""
        if table_id not in self._tables:
            return
        chosen = set(seats)
        self._owed.setdefault(table_id, set()).update(chosen)
        if seated:
            self._owed_seated.setdefault(table_id, set()).update(chosen)
        sender = self._senders.get(table_id)
        if sender is None or sender.done():
            self._senders[table_id] = asyncio.create_task(
                self._send_table_state(table_id), name=f"table-state-{table_id}"
            )

    async def _send_table_state(self, table_id: str) -> None:
        while (seats := self._owed.pop(table_id, None)) is not None:
            seated = self._owed_seated.pop(table_id, set())
            try:
                live = self._tables.get(table_id)
                if live is None:
                    return
                profiles: dict[int, tuple[str, int]] = {}
                for _ in range(3):  # a seat may change while the profiles are read
                    wanted = {a for a in live.accounts() if a is not None}
                    if wanted <= profiles.keys():
                        break
                    profiles = await self._profiles(wanted)
                message = self.table_state(live, profiles)
                for seat in sorted(seats):
                    if seat in seated:
                        self._deliver(live, seat, SeatedMessage(
                            table_id=table_id, seat=seat, variant=live.variant, stake=live.stake
                        ))
                    self._deliver(live, seat, message)
            except Exception:
                log.exception("table %s: cannot send table_state", table_id)

    async def _profiles(self, accounts: set[int]) -> dict[int, tuple[str, int]]:
        """Each account's name and silver, as the store has them now."""
        async with self._sessions() as session, session.begin():
            rows = await session.execute(
                select(Account.id, Account.username, Account.balance).where(
                    Account.id.in_(sorted(accounts))
                )
            )
            return {account_id: (name, balance) for account_id, name, balance in rows.all()}

    def table_state(
        self, live: LiveTable, profiles: dict[int, tuple[str, int]]
    ) -> TableStateMessage:
        """The table as every seat may see it: no tile, only who sits where and how."""
        seats = []
        for number, seat in enumerate(live.table.seats):
            account = seat.account
            if account is None:
                seats.append(SeatInfo(seat=number, name=None, title=None, balance=None,
                                      connected=False, ready=False, autoplay=False))
                continue
            name, balance = profiles.get(account, (None, None))
            # a bot is always there; a player is there with a socket and not marked away
            connected = account in live.bots or (
                seat.connected and (account in self._connections or self.network.remote)
            )
            seats.append(SeatInfo(
                seat=number,
                name=name,
                title=None if balance is None else ranks.title_of(balance),
                balance=balance,
                connected=connected,
                ready=connected,
                autoplay=seat.autoplay,
            ))
        table = live.table
        return TableStateMessage(
            table_id=live.table_id,
            variant=live.variant,
            dealer=table.dealer,
            hand_id=table.hand_id if table.hand is not None else None,
            seats=seats,
        )

    def _deliver(self, live: LiveTable, seat: int, message: ServerMessage) -> None:
        account = live.table.seats[seat].account
        sink = self._connections.get(account) if account is not None else None
        if sink is not None:
            sink.deliver(message)
        elif account is not None and self.network.remote:  # a socket on another node
            self.network.deliver(account, message)

    # --- the end of a hand ----------------------------------------------------------------

    async def _on_hand_end(self, record: HandRecordData) -> None:
        """Store the hand's record, then settle its silver (结算): a hand whose settlement
        failed keeps its record (and action log) for an audit or a later replay. A failure
        is logged and the table plays on."""
        live = self._tables.get(record.table_id)
        stake = live.stake if live is not None else 0
        state, settlement = record.state, record.settlement
        seats = [a for a in record.seats if a is not None]
        if not await self.network.may_write(record.table_id):
            log.warning("table %s: a newer owner exists; hand %s not stored here",
                        record.table_id, record.hand_id)
            return
        try:
            async with self._sessions() as session:
                async with session.begin():
                    if await session.get(HandRecord, record.hand_id) is None:
                        session.add(hand_record(record))
                if record.voided or state is None or settlement is None or len(seats) != 4:
                    return
                await ledger.settle_hand(
                    session,
                    record.hand_id,
                    seats,
                    settlement,
                    stake,
                    variant=record.variant,
                    stats=ranks.results_from(state, disconnected=record.away),
                )
                if record.away:
                    await settle_disconnects(
                        session,
                        get_ruleset(record.variant),
                        record,
                        stake,
                        self._wall_clock(),
                        self._disconnect_policy,
                    )
            metrics.settled(state.outcome)
        except Exception:
            metrics.settled("failed")
            log.exception("table %s: storing hand %s failed", record.table_id, record.hand_id)
        finally:
            # new balances and titles; after a reseat every seat learns its new seat
            self.announce(record.table_id, seated=record.reseat is not None)
            await self.network.hand_stored(live, record)


# --- conversions ----------------------------------------------------------------------------


def wire_message(live: LiveTable, seat: int, item: Outbound) -> ServerMessage:
    """The wire message of one outbound item (events are already redacted for `seat`)."""
    table_id = live.table_id
    if isinstance(item, EventOut):
        return EventMessage(
            table_id=table_id, hand_id=item.hand_id, seq=item.seq, event=event_payload(item.event)
        )
    if isinstance(item, PromptOut):
        legal = [a for a in item.legal if not isinstance(a, Escape)]
        return PromptMessage(
            table_id=table_id,
            hand_id=item.hand_id,
            seq=item.seq,
            legal_actions=[from_rules_action(a) for a in legal],
            deadline_ms=int(item.remaining * 1000),
            timeout_action=_timeout_action(live, seat, legal),
        )
    if isinstance(item, SnapshotOut):
        return SnapshotMessage(
            table_id=table_id,
            hand_id=item.hand_id,
            seq=item.seq,
            view=view_model(item.view),
            deadline_ms=None if item.remaining is None else int(item.remaining * 1000),
        )
    assert isinstance(item, ErrorOut)
    code = item.code if item.code in ERROR_CODES else "internal"
    message = item.message[:300]
    return ErrorMessage(code=code, message=message, ref_seq=item.ref_seq)  # type: ignore[arg-type]


def encoded_message(live: LiveTable, seat: int, item: Outbound) -> Encoded:
    """`wire_message(live, seat, item)` as its JSON text, the same text the model writes.
    Events and prompts are written straight from the core's values (`app.protocol.encode`),
    and an event every seat sees alike is written once and shared: the last event's text
    is kept per table, and the four copies of one event are sent one after another."""
    if isinstance(item, EventOut):
        cached = live.last_event
        if cached is not None and cached[0] == item.seq and cached[1] == item.event:
            return cached[2]
        encoded = event_text(live.table_id, item.hand_id, item.seq, item.event)
        live.last_event = (item.seq, item.event, encoded)
        return encoded
    if isinstance(item, PromptOut):
        legal = [a for a in item.legal if not isinstance(a, Escape)]
        return prompt_text(
            live.table_id,
            item.hand_id,
            item.seq,
            legal,
            int(item.remaining * 1000),
            _timeout_choice(live, seat, legal),
        )
    return message_text(wire_message(live, seat, item))


def _timeout_action(live: LiveTable, seat: int, legal: Sequence[Action]) -> WireAction:
    """What the server does when the time is up: pass in a claim window, else the clock's
    choice (`TimeoutBot`)."""
    choice = _timeout_choice(live, seat, legal)
    return PassAction() if choice is None else from_rules_action(choice)


def _timeout_choice(live: LiveTable, seat: int, legal: Sequence[Action]) -> Action | None:
    """The core action behind `_timeout_action` (None: pass)."""
    if any(isinstance(a, Pass) for a in legal):
        return None
    state = live.table.hand
    if state is None or not legal:
        return None
    return _TIMEOUT.choose(state, seat, list(legal))


def hand_record(record: HandRecordData) -> HandRecord:
    """The stored form of a hand: the action log as wire actions with their seats."""
    actions = [
        {"seat": a.seat, "action": _action_json(a)}
        for a in record.actions
    ]
    result: dict[str, object] = {}
    if record.settlement is not None and record.state is not None:
        result = {
            "outcome": record.state.outcome,
            "net": record.settlement.net(),
        }
    if record.reseat is not None:
        result["reseat"] = {"seed": record.reseat.seed, "order": list(record.reseat.order)}
    preset = None
    if record.preset is not None:
        preset = json.dumps({
            "wall": [to_code(t) for t in record.preset.wall],
            "dice": list(record.preset.dice),
            "wild_dice": list(record.preset.wild_dice),
        })
    ctx = record.ctx
    return HandRecord(
        id=record.hand_id,
        table_id=record.table_id,
        variant=record.variant,
        seed=record.seed,
        seats=json.dumps(list(record.seats)),
        ctx=json.dumps({
            "dealer": ctx.dealer,
            "streak": ctx.streak,
            "seat_points": list(ctx.seat_points),
            "draw_bonus": ctx.draw_bonus,
        }),
        preset=preset,
        actions=json.dumps(actions),
        result=json.dumps(result),
        voided=record.voided,
    )


def _action_json(action: Action) -> dict[str, object]:
    if isinstance(action, Escape):
        return {"type": "escape"}
    return from_rules_action(action).model_dump(mode="json")

"""The table actor: one asyncio task per table that owns the table's seats and its hands.

Everything that changes a table arrives in its inbox and is handled one message at a
time, so no locks are needed. The actor is made of parts, each the one owner of its state,
given what they need explicitly (`app.tables.tableside`); only the actor writes the seats:

- `TableActor` (here): the inbox (`submit`, `run`, `handle`), the seats and what is asked of
  them through the inbox (sit, leave, a ban, ready, 托管, connected or not, pause and
  resume, dissolve, close when idle), and what callers may read. `tick_forever`
  (`app.tables.ticker`) posts its `Tick` when its next deadline comes;
- `HandCycle` (`app.tables.cycle`): from one hand to the next: the deal, the hand's end,
  its result stored before it is shown, the ready timer, the 版 and its reseating;
- `HandPlay` (`app.tables.play`): the hand in play: steps of the pure core, prompts,
  timers, the seats the server plays (bots, 托管) and their pace;
- `Transcript` (`app.tables.transcript`): the per-table sequence numbers, each seat's
  redacted copy of every event, the spectators' copy, the result held until stored, and
  what a resuming seat missed.

Bad input changes nothing and answers `ErrorOut` with a stable code; the actor never dies
on input, and an exception inside a handler restores the hand by replaying its action log
from the seed (or voids it when that fails too). While the last hand's result is being
stored (`settling`), actions and readies wait, and are answered in order once it is shown.
An escape (逃跑, `Leave` during a hand) takes its turn in the endings' lane (`Lane`) first,
so that hundreds of hands ending together do not hold every other table's turn.

`on_seats_changed` is called after any message that changed who sits where, a seat's
connection or its 托管, or the hand in play (dealt, ended), so that the caller can tell
every seat (``table_state``); at a hand's end also before its record is stored, once the
seats that leave with it are freed.

Administration: `AdminPause`/`AdminResume` freeze and unfreeze the timers, `AdminPreset`
deals the next hand from a prepared wall, `AdminDissolve` voids the hand in play (no silver
moves) and frees every seat; `CloseIdle` frees every seat only between hands and only when
no person sits (the registry then closes the table); `Flush` tells a caller its earlier
messages are done."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from app.ops import logging as ops_logging
from app.ops import metrics
from app.rules.actions import Action, Escape
from app.rules.context import TableContext
from app.rules.state import HandState, Preset
from app.rules.variants.base import Ruleset
from app.rules.wall import SEED_BYTES
from app.tables.clock import Clock
from app.tables.cycle import HandCycle
from app.tables.errors import TableError
from app.tables.lane import Ending, Lane
from app.tables.levels import DEFAULT_BOT_LEVEL
from app.tables.messages import (
    AdminDissolve,
    AdminPause,
    AdminPreset,
    AdminResume,
    Autoplay,
    CloseIdle,
    Connected,
    Disconnected,
    ErrorOut,
    Flush,
    Inbound,
    Leave,
    Outbound,
    PlayerAction,
    Ready,
    Resume,
    SeatedOut,
    Settled,
    Sit,
    SnapshotOut,
    Stop,
    Tick,
)
from app.tables.seats import SeatState, seat_to_take
from app.tables.tableside import AdoptedHand, OnHandEnd, Order, Public, SeatPoints, SeedSource, Send
from app.tables.ticker import tick_forever
from app.tables.timers import BotPace, Timers
from app.tables.transcript import Transcript

__all__ = ["AdoptedHand", "HandObserver", "TableActor", "random_seed", "tick_forever"]

log = logging.getLogger(__name__)


OnSeatsChanged = Callable[[], None]
SeatSummary = tuple[str | None, list[tuple[int | None, bool, bool, str, bool]]]
"""The hand in play, and each seat's account, connection, 托管 and readiness."""


class HandObserver(Protocol):
    """Told of every hand dealt and every action applied, in order (the cluster's journal,
    so that another process can rebuild the hand by replay)."""

    def hand_started(
        self, table: TableActor, hands: int, seed: bytes, ctx: TableContext, preset: Preset | None
    ) -> None: ...

    def action_applied(self, table: TableActor, action: Action) -> None: ...


DEFAULT_TIMERS = Timers()
INSTANT = BotPace()


def random_seed() -> bytes:
    """A hand seed from the OS's randomness (production): 32 bytes from `secrets`, never a
    predictable source. Only its commitment is shown before the hand ends."""
    return secrets.token_bytes(SEED_BYTES)


class TableActor:
    """One table's actor. Feed it with `submit` (or `await handle(msg)` directly in tests)
    and run it with `await run()`; the first hand is dealt on the first `Tick`."""

    def __init__(
        self,
        table_id: str,
        ruleset: Ruleset,
        seats: Sequence[int | None],
        clock: Clock,
        send: Send,
        on_hand_end: OnHandEnd,
        *,
        timers: Timers = DEFAULT_TIMERS,
        seed_source: SeedSource = random_seed,
        preset: Preset | None = None,
        ctx: TableContext | None = None,
        on_seats_changed: OnSeatsChanged | None = None,
        bot_pace: BotPace = INSTANT,
        lane: Lane | None = None,
        bot_level: str = DEFAULT_BOT_LEVEL,
    ) -> None:
        if len(seats) != 4:
            raise ValueError("a table has four seats")
        self.table_id = table_id
        self.ruleset = ruleset
        self.seats = [SeatState(account) for account in seats]
        self.clock = clock
        self.timers = timers
        self.bot_pace = bot_pace
        self.bot_level = bot_level  # who plays its house bots' seats (app/tables/levels.py)
        # a hand's ending (the escape, the stored result shown, the next deal) takes its
        # turn with the other tables' endings: a few per pass of the event loop
        self._lane = lane or Lane(0)
        self.inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        self._send = send
        self._deferred: list[Inbound] = []  # actions and readies that came while storing
        # the first and last event seq each seat's connection was sent (its outbox's)
        self.sent: Callable[[int], tuple[int, int] | None] = lambda seat: None
        self._on_seats_changed = on_seats_changed
        self._seats_told: SeatSummary | None = None  # the seats as the caller last knew them
        self.observer: HandObserver | None = None
        # the seats' 积分 for the next hand's context (湖州, RULES.md 4); None: the core's
        self.seat_points: SeatPoints | None = None
        # whether another hand may be dealt (a private room's session); None: always
        self.may_deal: Callable[[], bool] | None = None
        # a tournament's table keeps its seats: the away play on 托管, leaving forfeits
        self.keeps_seats = False
        self.on_forfeit: Callable[[int], None] | None = None  # told the account
        # the spectators' copy of every event (no concealed tile); None: nobody watches
        self.public: Public | None = None
        # told when a stored hand's result is shown (the seats' silver changed with it)
        self.on_shown: Callable[[], None] | None = None
        # `tick_forever`: set when the next deadline may have moved; the one it slept on
        self.wake = asyncio.Event()
        self.wake_seen: float | None = None
        # the parts: what was shown, the cycle of hands and the hand in play (its `play`)
        self._shown = Transcript(self, send)
        self._cycle = HandCycle(
            self, self._shown, _ObserverJournal(self),
            table_id=table_id, ruleset=ruleset, clock=clock, send=send, lane=self._lane,
            seed_source=seed_source, on_hand_end=on_hand_end, preset=preset, ctx=ctx,
        )
        self._play = self._cycle.play

    # --- what callers may read ------------------------------------------------------------

    @property
    def hand(self) -> HandState | None:
        """The hand in play, None between hands."""
        return self._play.live

    @property
    def hand_id(self) -> str:
        return self._shown.hand_id

    @property
    def seq(self) -> int:
        """The sequence number of the last event sent."""
        return self._shown.seq

    @property
    def shown_seq(self) -> int:
        """The seq of the last event sent (a result being stored is not sent yet)."""
        return self._shown.shown_seq

    @property
    def paused(self) -> bool:
        return self._play.paused

    @property
    def next_context(self) -> TableContext | None:
        """The next hand's context (None: its dice choose the dealer, as at a new table)."""
        return self._cycle.next_context

    @property
    def settling(self) -> bool:
        """The last hand's result is being stored: not shown yet, no hand is dealt."""
        return self._cycle.storing

    @property
    def settling_task(self) -> asyncio.Task[None] | None:
        """The hand being stored, beside the inbox; its `Settled` comes back there."""
        return self._cycle.settling_task

    @property
    def next_deal_in(self) -> float | None:
        """Between hands, the seconds until the ready timer deals the next hand; None during
        a hand, while the result is stored, while paused or while a seat is empty."""
        return self._cycle.next_deal_in

    @property
    def dealer(self) -> int:
        """The dealer of the hand in play, or of the next hand (seat 0 until the first
        hand's dice have chosen one)."""
        return self._cycle.dealer

    @property
    def ready_seats(self) -> frozenset[int]:
        """The seats whose player said ready for the next hand (准备), bots included."""
        return self._cycle.ready_seats

    def public_snapshot(self) -> SnapshotOut | None:
        """An observer's view of the hand in play, or of the last one, at the last event
        shown (`Transcript.snapshot`); None when no hand was dealt since the table (or its
        版) started. Called by the registry as a spectator starts watching, in the same step
        as it starts sending the events: nothing is lost or repeated."""
        return self._shown.snapshot(self._play.state)

    def catch_up(self, seat: int, from_seq: int) -> list[Outbound]:
        """What a seat's new connection needs of the hand in play (`HandPlay.catch_up`).
        Called by the registry as the connection is made, so that nothing is lost and
        nothing sent after it is repeated."""
        return self._play.catch_up(seat, from_seq)

    def next_wake(self) -> float | None:
        """When (on `clock`) a `Tick` could next change something (`HandCycle.next_wake`);
        None when only a message can."""
        return self._cycle.next_wake()

    # --- the loop -------------------------------------------------------------------------

    def submit(self, msg: Inbound) -> None:
        self.inbox.put_nowait(msg)

    async def run(self) -> None:
        """Handle inbox messages one at a time until `Stop`."""
        ops_logging.bind_table(self.table_id, lambda: self.hand_id or None)
        while True:
            msg = await self.inbox.get()
            if isinstance(msg, Stop):
                return
            await self.handle(msg)

    async def handle(self, msg: Inbound) -> None:
        """Handle one message. An exception is logged and the hand restored (or voided):
        the table keeps serving."""
        self._seats_told = _seat_summary(self)
        metrics.handling(msg)
        try:
            await self._dispatch(msg)
        except Exception:
            log.exception("table %s: handling %r failed; restoring the hand", self.table_id, msg)
            await self._cycle.recover()
        self.tell_seats()
        if isinstance(msg, Tick) or self.next_wake() != self.wake_seen:
            self.wake.set()

    def tell_seats(self) -> None:
        """`on_seats_changed`, if the seats changed since the caller was last told."""
        summary = _seat_summary(self)
        if self._on_seats_changed is not None and summary != self._seats_told:
            self._seats_told = summary
            self._on_seats_changed()

    async def _dispatch(self, msg: Inbound) -> None:
        if self._cycle.storing and isinstance(msg, PlayerAction | Ready):
            # the hand is over and its result not shown yet: answered once it is, in order
            self._deferred.append(msg)
            return
        if isinstance(msg, PlayerAction):
            await self._on_action(msg)
        elif isinstance(msg, Tick):
            await self._cycle.tick()
        elif isinstance(msg, Resume):
            if _valid_seat(msg.seat, self._send):
                self.seats[msg.seat].connected = True
                self._play.resume(msg.seat, msg.last_seq, self.sent(msg.seat))
        elif isinstance(msg, Autoplay):
            if _valid_seat(msg.seat, self._send):
                await self._play.autoplay(msg.seat, msg.on, msg.level)
        elif isinstance(msg, Ready):
            if _valid_seat(msg.seat, self._send):
                await self._cycle.ready(msg.seat)
        elif isinstance(msg, Connected | Disconnected):
            if _valid_seat(msg.seat, self._send):
                self.seats[msg.seat].connected = isinstance(msg, Connected)
        elif isinstance(msg, Leave):
            await self._on_leave(msg)
        elif isinstance(msg, Sit):
            self._on_sit(msg)
        elif isinstance(msg, AdminPause):
            self._cycle.pause()
        elif isinstance(msg, AdminResume):
            await self._cycle.unpause()
        elif isinstance(msg, AdminPreset):
            self._cycle.preset = msg.preset
        elif isinstance(msg, AdminDissolve):
            self._dissolve(msg)
        elif isinstance(msg, CloseIdle):
            self._close_idle(msg)
        elif isinstance(msg, Settled):
            if await self._cycle.settled(msg):  # shown (or stored elsewhere): answer those
                deferred, self._deferred = self._deferred, []  # that waited, in order
                for waiting in deferred:
                    await self._dispatch(waiting)
        elif isinstance(msg, Flush):
            if not msg.done.done():
                msg.done.set_result(None)
        elif isinstance(msg, Stop):
            pass  # only `run` acts on it
        else:
            log.warning("table %s: unknown message %r", self.table_id, msg)

    # --- messages -------------------------------------------------------------------------

    async def _on_action(self, msg: PlayerAction) -> None:
        seat, action = msg.seat, msg.action
        if not _valid_seat(seat, self._send):
            return
        if self.seats[seat].banned:
            return  # never applied: the seat is escaping (the socket is closed already)
        if getattr(action, "seat", None) != seat:
            self._send(seat, ErrorOut("bad_seat", "the action names another seat", msg.last_seq))
            return
        if self.paused:
            self._send(seat, ErrorOut("paused", "the table is paused", msg.last_seq))
            return
        # the player is at the keyboard: 托管 ends even if this action comes too late
        self._play.player_back(seat)
        if isinstance(action, Escape):
            await self._on_leave(Leave(seat))
            return
        await self._play.act(seat, action, msg.last_seq)

    def _on_sit(self, msg: Sit) -> None:
        """Seat an account (the caller checked its standing: banned, balance, a seat at
        another table); refused when it sits here already, or the seat is taken."""
        if msg.done.done():
            return  # the caller gave up waiting
        try:
            seat = seat_to_take(self.seats, msg.account, msg.seat)
        except TableError as refused:
            msg.done.set_exception(refused)
            return
        self.seats[seat] = SeatState(msg.account, autoplay=msg.bot, house_bot=msg.bot)
        msg.done.set_result(seat)

    def ban(self, account: int) -> None:
        """A ban (封号): from now on no action of the account's seat is applied, also one
        already in the inbox; its seat escapes (during a hand) or is freed, through the
        inbox."""
        for seat, state in enumerate(self.seats):
            if state.account == account:
                state.banned = True
                self.submit(Leave(seat, account))

    async def _on_leave(self, msg: Leave) -> None:
        """逃跑: leaving during a hand is an escape, which ends it (RULES.md 1), and the
        seat is freed with the hand's end; between hands the seat is simply freed. At a
        tournament's table leaving forfeits."""
        if not _valid_seat(msg.seat, self._send):
            return
        state = self.seats[msg.seat]
        if msg.account is not None and state.account != msg.account:
            return  # it left already (and somebody else may sit there now)
        if self.keeps_seats:  # forfeit: the house bot plays the seat for good
            if state.account is not None and not state.house_bot:
                state.house_bot = True
                await self._play.autoplay(msg.seat, True)
                if self.on_forfeit is not None:
                    self.on_forfeit(state.account)
        elif self.hand is not None:
            await self._lane.turn(Ending.ESCAPE)
            self._play.apply(Escape(msg.seat))
            await self._play.advance()
        else:
            self.free_seats([msg.seat])

    def _dissolve(self, msg: AdminDissolve) -> None:
        voided = self.hand_id if self.hand is not None else None
        if voided is not None:
            self._cycle.void("the table was dissolved by an administrator")
        self.seats = [SeatState(None) for _ in range(4)]
        if not msg.done.done():
            msg.done.set_result(voided)

    def _close_idle(self, msg: CloseIdle) -> None:
        """Between hands, with no person seated (nobody, or house bots only), free every
        seat; the answer says whether it did."""
        idle = self.hand is None and not self.settling and not self.keeps_seats and all(
            seat.account is None or seat.house_bot for seat in self.seats
        )
        if idle:
            self.seats = [SeatState(None) for _ in range(4)]
        if not msg.done.done():
            msg.done.set_result(idle)

    # --- what the parts ask of the seats (`TableSide`) ------------------------------------

    def free_seats(self, seats: Iterable[int]) -> None:
        """Free these seats: their players leave the table (a tournament's table keeps
        them: the players away play on 托管)."""
        for seat in seats:
            if self.keeps_seats:
                self.seats[seat].autoplay = True
            else:
                self.seats[seat] = SeatState(None)

    def reseat(self, order: Order) -> None:
        """Move every player to their new seat (`order[new_seat] = old_seat`, a 版 redrawn)
        and tell each seated player where they sit, before any event of the next hand."""
        old = list(self.seats)
        self.seats = [old[order[new]] for new in range(4)]
        for seat in range(4):
            if self.seats[seat].account is not None:
                self._send(seat, SeatedOut(seat))

    def adopt(
        self,
        hands: int,
        seq: int,
        ctx: TableContext | None,
        hand: AdoptedHand | None = None,
        seats: Sequence[SeatState] | None = None,
    ) -> None:
        """Take over a table another process served (failover): the hands dealt so far, the
        last seq, the next hand's context and who sat where as it was journaled; with
        `hand`, the hand in play, rebuilt by replaying its action log from its seed
        (ValueError when the log does not replay). Call before `run`; the table is left
        paused, and `AdminResume` through the inbox prompts the pending seats again with
        fresh deadlines."""
        if seats is not None:
            self.seats = list(seats)
            self.wake.set()
        self._cycle.adopt(hands, seq, ctx, hand)


@dataclass(frozen=True, slots=True)
class _ObserverJournal:
    """The parts' `Journal`: told to the table's `observer`, if any, naming the table."""

    table: TableActor

    def hand_started(
        self, hands: int, seed: bytes, ctx: TableContext, preset: Preset | None
    ) -> None:
        observer = self.table.observer
        if observer is not None:
            observer.hand_started(self.table, hands, seed, ctx, preset)

    def action_applied(self, action: Action) -> None:
        observer = self.table.observer
        if observer is not None:
            observer.action_applied(self.table, action)


def _seat_summary(table: TableActor) -> SeatSummary:
    hand = table.hand_id if table.hand is not None else None
    ready = table.ready_seats
    return hand, [(s.account, s.connected, s.autoplay, s.autoplay_level, n in ready)
                  for n, s in enumerate(table.seats)]


def _valid_seat(seat: object, send: Send) -> bool:
    """Whether `seat` names a seat; refused to it when it does not."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 4:
        return True
    send(seat, ErrorOut("bad_seat", f"no seat {seat!r}", None))  # type: ignore[arg-type]
    return False

"""The table actor: one asyncio task per table that owns the hand in play.

Everything that changes a table arrives in its inbox and is handled one message at a
time, so no locks are needed. The hand itself is the pure core (`new_hand`, `step`); the
actor adds what the core leaves out:

- numbering: every event gets the next per-table sequence number, and every seat receives
  its own redacted copy (`Event.for_seat`) under that same number;
- prompts: after each step every seat the hand waits for (`pending_seats`) is told
  exactly its `legal_actions` and its deadline. A seat still waiting in the same claim
  window (or decision round) keeps its prompt and deadline when another seat answers;
- timers (RULES.md 1): on a `Tick` an expired prompt is answered for the seat: 过 in a
  claim window, a 胡 or 摸切 on a turn (`TimeoutBot`), "decline" for 温州 买底/顶底. Two
  consecutive timeouts switch the seat to 托管 (autoplay: `AutoplayBot` answers every
  prompt, at the bot pace below: a 胡 when there is one, never a 吃/碰/杠 on a discard, the greedy bot's
  choice on its own turn) until the player acts. A disconnected seat is not an escape: its
  timeouts are played by 托管. A house bot's seat is played by the full greedy bot;
- the pace of the seats the server plays (a house bot, 托管; `BotPace`): each of their
  decisions waits a delay drawn when its prompt is made (at most until its deadline), as a
  deadline of its own that a `Tick` acts on, so the actor never sleeps and a delay dies with
  its prompt (the hand ends, the table is dissolved or stops) or when the player acts or
  turns 托管 off; a pause drops it and the resume draws a new one. A timeout's own play
  (摸切, 过, the 托管 choice of an away seat) is not delayed past the timer. With no delay
  (the default) the server plays such a seat at once, inside the step that prompted it;
- 湖州's dealer after a drawn hand depends on whether a player left the table: before
  each deal the actor compares the seats with those of the ended hand (`departed`);
- bad input changes nothing and answers `ErrorOut` with a stable code; the actor never
  dies on input, and an exception inside a handler restores the hand by replaying its
  action log from the seed (or voids it when that fails too);
- results are stored before they are shown (DESIGN.md): the hand's ``hand_ended`` event
  (its settlement) is numbered when the hand ends but held back; `on_hand_end` gets the
  record exactly once and returns, once the record and its silver are stored, what each
  seat's balance moved by (it retries until then; meanwhile `settling` is true and the
  table deals nothing). Only then is ``hand_ended`` sent, carrying those amounts
  (`silver`: the balance floor may have made them smaller than net x stake), and the
  ready timer started; the next hand is dealt once it has run out and four players are
  seated. None (another process owns the table now and stores the hand itself): nothing
  is shown and nothing more is dealt here;
- at the deal (`_deal`): a seat whose player is away (its socket closed) is freed first,
  with no penalty, and the table waits for a fourth player instead of dealing to three;
  with `seat_points` (湖州) the four seats' stored 积分 are read into the hand's context;
- spectators (旁观): while `public` is set (the registry sets it while anyone watches),
  every event is also given to it as an observer's copy (`Event.for_seat(None)`: no
  concealed tile of any seat), ``hand_ended`` when it is shown; `public_snapshot` is the
  observer's view of the hand in play (or the last one) at the last event shown. The
  table never waits on a spectator: `public` only queues;
- seats: `on_seats_changed` is called after any message that changed who sits where, a
  seat's connection or its 托管, or the hand in play (dealt, ended), so that the caller can
  tell every seat (``table_state``); at a hand's end also before its record is stored,
  once the seats that leave with it are freed: an escaper's (逃跑, `Leave` during a hand)
  and those still away. So the escaper may sit again (here or elsewhere) while the
  hand is being stored; the result is shown to whoever sits then;
- endings take turns (`Lane`, the registry's `ENDINGS_PER_PASS`): an escape before it is
  applied, a stored result before it is shown and a deal before it is dealt wait until
  the lane lets the table through, a few tables per pass of the event loop, so that
  hundreds of hands ending together do not hold every other table's turn behind them;
- sessions (版, RULES.md 1: four 圈; a 圈 ends when every seat has dealt once, i.e. the deal
  has passed four times as the core's `next_context` reports it): with the variant option
  `reseat_after_session` (丽水) the seats are redrawn after each 版 from a seed of the
  seed source, recorded with the hand that ended it, and the next 版 starts as a new
  table (the dice choose its first dealer);
- administration: `AdminPause`/`AdminResume` freeze and unfreeze the timers, `AdminPreset`
  deals the next hand from a prepared wall, `AdminDissolve` voids the hand in play (no
  silver moves) and frees every seat; `CloseIdle` frees every seat only between hands and
  only when no person sits (the registry then closes the table); `Flush` tells a caller
  its earlier messages are done.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from app.ops import logging as ops_logging
from app.ops import metrics
from app.rules.actions import Action, Escape
from app.rules.bots import AutoplayBot, Bot, GreedyBot, TimeoutBot
from app.rules.context import TableContext
from app.rules.errors import IllegalAction
from app.rules.events import Event, HandEnded
from app.rules.hand import legal_actions, new_hand, pending_seats, replay, step
from app.rules.state import HandState, Preset
from app.rules.variants.base import Ruleset
from app.rules.views import seat_view
from app.rules.wall import SEED_BYTES, hand_rng, roll_dice, seed_bytes, seed_int
from app.tables.clock import Clock
from app.tables.errors import TableError
from app.tables.lane import Lane
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
    EventOut,
    Flush,
    Inbound,
    Leave,
    Outbound,
    PlayerAction,
    PromptOut,
    Ready,
    Resume,
    SeatedOut,
    Settled,
    Sit,
    SnapshotOut,
    Stop,
    Tick,
)
from app.tables.seats import SeatState
from app.tables.settlement.record import HandRecordData, Reseat, Silver
from app.tables.timers import BotPace, Timers

log = logging.getLogger(__name__)


Send = Callable[[int, Outbound], None]
Public = Callable[[EventOut], None]
"""Where the observers' copy of each event goes (the spectators: `Table.public`)."""
OnHandEnd = Callable[[HandRecordData], Awaitable[Silver | None]]
SeedSource = Callable[[], int | bytes]
"""A hand's seed (bytes; an int stands for its 8-byte form: `app.rules.wall.seed_bytes`)."""
OnSeatsChanged = Callable[[], None]
SeatSummary = tuple[str | None, list[tuple[int | None, bool, bool, bool]]]
"""The hand in play, and each seat's account, connection, 托管 and readiness."""
SeatPoints = Callable[[tuple[int, int, int, int]], Awaitable[tuple[int, int, int, int]]]
"""The 积分 (points) the four seated accounts hold as stored, in seat order."""

ROUNDS_PER_SESSION = 4  # a 版 is four 圈 (RULES.md 1)
POINTS_RETRY_SECONDS = 1.0  # a deal whose points could not be read waits this long
DEALING_POLL = 0.25  # seconds between looks at whether a room's session may deal

class HandObserver(Protocol):
    """Told of every hand dealt and every action applied, in order (the cluster's journal,
    so that another process can rebuild the hand by replay)."""

    def hand_started(
        self, table: Table, hands: int, seed: bytes, ctx: TableContext, preset: Preset | None
    ) -> None: ...

    def action_applied(self, table: Table, action: Action) -> None: ...


_AUTOPLAY = AutoplayBot()  # 托管 of a player's seat: 胡, else no claim, else the greedy turn
_HOUSE_BOT = GreedyBot()  # a house bot's seat (`SeatState.house_bot`): claims too
_TIMEOUT = TimeoutBot()  # a present seat whose time ran out
DEFAULT_TIMERS = Timers()
INSTANT = BotPace()


def random_seed() -> bytes:
    """A hand seed from the OS's randomness (production): 32 bytes from `secrets`, never a
    predictable source. Only its commitment is shown before the hand ends."""
    return secrets.token_bytes(SEED_BYTES)


@dataclass(slots=True)
class Prompt:
    """A decision a seat owes: its legal actions as of event `seq`, due at `deadline`.
    While the table is paused `frozen` holds the time that was left. `bot_at`: when the
    server plays the seat itself (a bot or 托管 at `BotPace`), None when it does not."""

    seq: int
    legal: list[Action]
    deadline: float
    frozen: float | None = None
    bot_at: float | None = None

    def remaining(self, now: float) -> float:
        if self.frozen is not None:
            return self.frozen
        return max(0.0, self.deadline - now)


class Table:
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
    ) -> None:
        if len(seats) != 4:
            raise ValueError("a table has four seats")
        self.table_id = table_id
        self.ruleset = ruleset
        self.seats = [SeatState(account) for account in seats]
        self.clock = clock
        self.timers = timers
        self.bot_pace = bot_pace
        # a hand's ending (the escape, the stored result shown, the next deal) takes its
        # turn with the other tables' endings: a few per pass of the event loop
        self._lane = lane or Lane(0)
        self.inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        self._send = send
        self._on_hand_end = on_hand_end
        self._seed_source = seed_source
        self._preset = preset  # for the next hand only (admin test mode)
        self._ctx = ctx  # the next hand's context; None: the first hand's dice choose
        self._seq = 0
        self._hands = 0
        self._paused = False
        self._next_hand_at: float | None = clock.now()
        self._ready_left: float | None = None  # the ready timer while paused
        # (seat, account) of the players who said ready (准备) since the last deal
        self._ready: set[tuple[int, int]] = set()
        # the hand in play (or the last one, once reported)
        self._state: HandState | None = None
        self._hand_id = ""
        self._seed = b""
        self._hand_ctx = TableContext()
        self._hand_preset: Preset | None = None
        self._actions: list[Action] = []
        self._events: list[Event] = []  # events[i] carries seq first_seq + i
        self._held: list[EventOut] = []  # the result, numbered, shown once stored
        self._storing = False
        # the hand being stored (`_report`), beside the inbox; its `Settled` comes back there
        self.settling_task: asyncio.Task[None] | None = None
        self._reseat_after: Reseat | None = None  # the new seating, once the result shows
        self._deferred: list[Inbound] = []  # actions and readies that came while storing
        # the first and last event seq each seat's connection was sent (its outbox's)
        self.sent: Callable[[int], tuple[int, int] | None] = lambda seat: None
        self._first_seq = 1
        self._prompts: dict[int, Prompt] = {}
        self._reported = True
        self._on_seats_changed = on_seats_changed
        self._seats_told: SeatSummary | None = None  # the seats as the caller last knew them
        self._deal_passes = 0  # times the deal passed to another seat in this 版
        self._hand_accounts: tuple[int | None, ...] = ()  # who sat where when it was dealt
        self.observer: HandObserver | None = None
        # the seats' 积分 for the next hand's context (湖州 bases, RULES.md 4); None: the
        # context's own (the core's `next_context`)
        self.seat_points: SeatPoints | None = None
        # whether another hand may be dealt (a private room: False once its session is
        # over, or while that is not known yet); None: always
        self.may_deal: Callable[[], bool] | None = None
        # the spectators' copy of every event (no concealed tile); None: nobody watches
        self.public: Public | None = None
        # told when a stored hand's result is shown (the seats' silver changed with it)
        self.on_shown: Callable[[], None] | None = None
        # `tick_forever`: set when the next deadline may have moved; the one it slept on
        self.wake = asyncio.Event()
        self.wake_seen: float | None = None

    # --- what callers may read ------------------------------------------------------------

    @property
    def hand(self) -> HandState | None:
        """The hand in play, None between hands."""
        return self._live()

    @property
    def hand_id(self) -> str:
        return self._hand_id

    @property
    def seq(self) -> int:
        """The sequence number of the last event sent."""
        return self._seq

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def next_context(self) -> TableContext | None:
        """The next hand's context (None: its dice choose the dealer, as at a new table)."""
        return self._ctx

    @property
    def settling(self) -> bool:
        """The last hand's result is being stored: not shown yet, no hand is dealt."""
        return self._storing

    @property
    def next_deal_in(self) -> float | None:
        """Between hands, the seconds until the ready timer deals the next hand; None during
        a hand, while the result is stored, while paused or while a seat is empty."""
        due = self._next_hand_at
        if due is None or self._paused or self._storing or self._live() is not None:
            return None
        if not self._seated() or not self._dealing():
            return None
        return max(0.0, due - self.clock.now())

    def _dealing(self) -> bool:
        return self.may_deal is None or self.may_deal()

    @property
    def dealer(self) -> int:
        """The dealer of the hand in play, or of the next hand (seat 0 until the first
        hand's dice have chosen one)."""
        state = self._live()
        if state is not None:
            return state.ctx.dealer
        return self._ctx.dealer if self._ctx is not None else 0

    # --- the loop -------------------------------------------------------------------------

    def submit(self, msg: Inbound) -> None:
        self.inbox.put_nowait(msg)

    async def run(self) -> None:
        """Handle inbox messages one at a time until `Stop`."""
        ops_logging.bind_table(self.table_id)
        while True:
            msg = await self.inbox.get()
            if isinstance(msg, Stop):
                return
            await self.handle(msg)

    async def handle(self, msg: Inbound) -> None:
        """Handle one message. An exception is logged and the hand restored (or voided):
        the table keeps serving."""
        self._seats_told = self._seat_summary()
        metrics.handling(msg)
        try:
            await self._dispatch(msg)
        except Exception:
            log.exception("table %s: handling %r failed; restoring the hand", self.table_id, msg)
            await self._recover()
        self._tell_seats()
        if isinstance(msg, Tick) or self.next_wake() != self.wake_seen:
            self.wake.set()

    def _tell_seats(self) -> None:
        """`on_seats_changed`, if the seats changed since the caller was last told."""
        summary = self._seat_summary()
        if self._on_seats_changed is not None and summary != self._seats_told:
            self._seats_told = summary
            self._on_seats_changed()

    def poke(self) -> None:
        """The caller changed the table outside the inbox (a seat taken or freed between
        hands): `tick_forever` looks at the deadlines again."""
        self.wake.set()

    def next_wake(self) -> float | None:
        """When (on `clock`) a `Tick` could next change something: the earliest deadline of
        a pending prompt (or of the server's play of a bot or 托管 seat), or the ready timer
        between hands with four seated; None when only a message can (paused, a seat
        empty, a result being stored). A private room whose session may not deal yet is
        looked at again every `DEALING_POLL` seconds (its count is not a message)."""
        if self._paused:
            return None
        state = self._live()
        if state is None:
            due = self._next_hand_at
            if due is None or self._storing or not self._seated():
                return None
            return due if self._dealing() else self.clock.now() + DEALING_POLL
        wakes = []
        for seat in pending_seats(state):
            prompt = self._prompts.get(seat)
            if prompt is None:
                continue
            wakes.append(prompt.deadline)
            if prompt.bot_at is not None and self.seats[seat].autoplay:
                wakes.append(prompt.bot_at)
        return min(wakes, default=None)

    def _seat_summary(self) -> SeatSummary:
        hand = self._hand_id if self._live() is not None else None
        return hand, [(s.account, s.connected, s.autoplay, n in self.ready_seats)
                      for n, s in enumerate(self.seats)]

    @property
    def ready_seats(self) -> frozenset[int]:
        """The seats whose player said ready for the next hand (准备), bots included."""
        return frozenset(
            n for n, s in enumerate(self.seats)
            if s.account is not None and (s.house_bot or (n, s.account) in self._ready)
        )

    async def _dispatch(self, msg: Inbound) -> None:
        if self._storing and isinstance(msg, PlayerAction | Ready):
            # the hand is over and its result not shown yet: answered once it is, in order
            self._deferred.append(msg)
            return
        if isinstance(msg, PlayerAction):
            await self._on_action(msg)
        elif isinstance(msg, Tick):
            await self._on_tick()
        elif isinstance(msg, Resume):
            self._on_resume(msg)
        elif isinstance(msg, Autoplay):
            await self._on_autoplay(msg)
        elif isinstance(msg, Ready):
            await self._on_ready(msg)
        elif isinstance(msg, Connected | Disconnected):
            if self._check_seat(msg.seat):
                self.seats[msg.seat].connected = isinstance(msg, Connected)
        elif isinstance(msg, Leave):
            await self._on_leave(msg)
        elif isinstance(msg, Sit):
            self._on_sit(msg)
        elif isinstance(msg, AdminPause):
            self._pause()
        elif isinstance(msg, AdminResume):
            await self._resume()
        elif isinstance(msg, AdminPreset):
            self._preset = msg.preset
        elif isinstance(msg, AdminDissolve):
            await self._dissolve(msg)
        elif isinstance(msg, CloseIdle):
            self._close_idle(msg)
        elif isinstance(msg, Settled):
            await self._on_settled(msg)
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
        if not self._check_seat(seat):
            return
        if self.seats[seat].banned:
            return  # never applied: the seat is escaping (the socket is closed already)
        if getattr(action, "seat", None) != seat:
            self._error(seat, "bad_seat", "the action names another seat", msg.last_seq)
            return
        if self._paused:
            self._error(seat, "paused", "the table is paused", msg.last_seq)
            return
        # the player is at the keyboard: 托管 ends even if this action comes too late
        self._player_back(seat)
        if isinstance(action, Escape):
            await self._on_leave(Leave(seat))
            return
        state = self._live()
        if state is None:
            self._error(seat, "hand_over", "no hand is in play", msg.last_seq)
            return
        prompt = self._prompts.get(seat)
        if seat not in pending_seats(state) or prompt is None:
            self._error(
                seat, "not_your_turn", "the hand is not waiting for this seat", msg.last_seq
            )
            return
        if msg.last_seq < prompt.seq:
            self._error(
                seat, "stale", f"the current prompt is at seq {prompt.seq}", msg.last_seq
            )
            return
        try:
            self._apply(action)
        except IllegalAction as refused:
            self._error(seat, refused.code, refused.message, msg.last_seq)
            return
        await self._advance()

    async def _on_tick(self) -> None:
        if self._paused:
            return
        if self._live() is None:
            due = self._next_hand_at
            if due is not None and self.clock.now() >= due and self._seated() and self._dealing():
                await self._lane.turn()
                await self._deal()
            return
        while (state := self._live()) is not None:
            seat = self._due(state, self.clock.now())
            if seat is None:
                return
            if self.seats[seat].autoplay:  # the server's own play, at its pace
                action = self._server_bot(seat).choose(state, seat, legal_actions(state, seat))
            else:
                self.seats[seat].timed_out()
                action = self._timeout_action(state, seat)
            self._apply(action)
            await self._advance()

    def _due(self, state: HandState, now: float) -> int | None:
        """The first pending seat whose prompt's deadline has passed, or whose delay has
        run out while the server plays it (a bot or 托管)."""
        for seat in pending_seats(state):
            prompt = self._prompts.get(seat)
            if prompt is None:
                continue
            if prompt.deadline <= now:
                return seat
            if prompt.bot_at is not None and prompt.bot_at <= now and self.seats[seat].autoplay:
                return seat
        return None

    def _on_resume(self, msg: Resume) -> None:
        seat, last_seq = msg.seat, msg.last_seq
        if not self._check_seat(seat):
            return
        self.seats[seat].connected = True
        if self._state is None:
            self._error(seat, "no_hand", "no hand has been played at this table", last_seq)
            return
        sent = self.sent(seat)
        if sent is not None:  # what this socket was sent (`Outbox.sent`), and `last_seq`
            first, last = sent
            if first == 0 or last_seq == first - 1:
                # from before what this socket was sent (a reconnect's resume, sent before
                # the replay arrived): only what it was not sent, each event once
                last_seq = max(last_seq, last)
            elif last_seq < first - 1:
                last_seq = -1  # it also lacks events from before this socket: a snapshot
            # else: it lacks events this socket was sent (a gap it saw): from last_seq again
        for item in self._missed(seat, last_seq):
            self._send(seat, item)

    def catch_up(self, seat: int, from_seq: int) -> list[Outbound]:
        """What a seat's new connection needs of the hand in play, as of now, when what the
        actor sent from event `from_seq` on reached no socket: those events (a snapshot if
        they were of an older hand) and the seat's prompt; nothing between hands. Called by
        the registry as the connection is made, so that nothing is lost and nothing sent
        after it is repeated."""
        if self._live() is None or not 0 <= seat < 4:
            return []
        return self._missed(seat, from_seq - 1)

    def _missed(self, seat: int, last_seq: int) -> list[Outbound]:
        """The answer to a resume from `last_seq` (docs/protocol.md, `resume`): the events
        after it in the current hand, or a snapshot; then the seat's prompt, if any."""
        state = self._state
        assert state is not None
        now = self.clock.now()
        prompt = self._prompts.get(seat)
        shown = self._seq - len(self._held)  # a result not yet stored is not resent
        items: list[Outbound] = []
        if self._first_seq - 1 <= last_seq <= shown:
            first = last_seq + 1
            missed = self._events[first - self._first_seq:shown + 1 - self._first_seq]
            for offset, event in enumerate(missed):
                items.append(EventOut(first + offset, self._hand_id, event.for_seat(seat)))
        else:
            remaining = prompt.remaining(now) if prompt is not None else None
            view = self._shown_view(state, seat)
            items.append(SnapshotOut(shown, self._hand_id, view, remaining))
        if prompt is not None:
            items.append(self._prompt_out(prompt, now))
        return items

    @property
    def shown_seq(self) -> int:
        """The seq of the last event sent (a result being stored is not sent yet)."""
        return self._seq - len(self._held)

    def public_snapshot(self) -> SnapshotOut | None:
        """An observer's view (`seat_view(state, None)`: no concealed tile until the hand
        ends, no legal action, no claim offer) of the hand in play, or of the last one, at
        the last event shown; None when no hand was dealt since the table (or its 版)
        started. Called by the registry as a spectator starts watching, in the same step
        as it starts sending the events: nothing is lost or repeated."""
        state = self._state
        if state is None:
            return None
        view = seat_view(state, None)
        if self._held:  # the points come with ``hand_ended``, once stored
            view["net"] = None
        return SnapshotOut(self.shown_seq, self._hand_id, view, None)

    def _shown_view(self, state: HandState, seat: int) -> dict[str, Any]:
        """`seat`'s view as shown: while the result is held (being stored) the hand has no
        outcome, net or seed yet; they come with ``hand_ended``."""
        view = seat_view(state, seat)
        if self._held:
            view["outcome"] = view["net"] = view["seed"] = None
        return view

    async def _on_autoplay(self, msg: Autoplay) -> None:
        if not self._check_seat(msg.seat):
            return
        if msg.on:
            self.seats[msg.seat].autoplay = True
            if not self._paused:
                await self._advance()
        else:
            self._player_back(msg.seat)

    async def _on_ready(self, msg: Ready) -> None:
        """准备: between hands, the seat is ready; when every seat is taken and ready, the
        next hand is dealt now rather than at the end of the ready timer."""
        if not self._check_seat(msg.seat):
            return
        if self._live() is not None or self._storing or self._held:
            self._error(msg.seat, "in_hand", "the hand is not over: ready comes between hands")
            return
        account = self.seats[msg.seat].account
        if account is None:
            return  # freed meanwhile (the routing found the player there)
        self._ready.add((msg.seat, account))
        if len(self.ready_seats) == 4 and self._next_hand_at is not None:
            self._next_hand_at = min(self._next_hand_at, self.clock.now())
            await self._on_tick()

    def _player_back(self, seat: int) -> None:
        """The player acts for their seat again: 托管 ends, and with it any play the server
        had scheduled for the seat."""
        self.seats[seat].acted()
        prompt = self._prompts.get(seat)
        if prompt is not None:
            prompt.bot_at = None

    def _on_sit(self, msg: Sit) -> None:
        """Seat an account (the caller checked its standing: banned, balance, a seat at
        another table); refused when it sits here already, or the seat is taken."""
        if msg.done.done():
            return  # the caller gave up waiting
        seats = self.seats
        if any(s.account == msg.account for s in seats):
            msg.done.set_exception(TableError("already_seated", "you already sit at this table"))
            return
        seat = msg.seat
        if seat is None:
            seat = next((n for n, s in enumerate(seats) if s.account is None), None)
            if seat is None:
                msg.done.set_exception(TableError("table_full", "every seat is taken"))
                return
        elif not 0 <= seat < 4:
            msg.done.set_exception(TableError("validation_error", f"no seat {seat!r}"))
            return
        elif seats[seat].account is not None:
            msg.done.set_exception(TableError("seat_taken", f"seat {seat} is taken"))
            return
        seats[seat] = SeatState(msg.account, autoplay=msg.bot, house_bot=msg.bot)
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
        seat is freed with the hand's end (`_end_hand`); between hands the seat is simply
        freed."""
        if not self._check_seat(msg.seat):
            return
        if msg.account is not None and self.seats[msg.seat].account != msg.account:
            return  # it left already (and somebody else may sit there now)
        if self._live() is not None:
            await self._lane.turn()
            self._apply(Escape(msg.seat))
            await self._advance()
        else:
            self.seats[msg.seat] = SeatState(None)

    def _pause(self) -> None:
        if self._paused:
            return
        self._paused = True
        now = self.clock.now()
        for prompt in self._prompts.values():
            prompt.frozen = max(0.0, prompt.deadline - now)
            prompt.bot_at = None  # the resume draws a new delay
        if self._next_hand_at is not None:
            self._ready_left = max(0.0, self._next_hand_at - now)

    async def _resume(self) -> None:
        if not self._paused:
            return
        self._paused = False
        now = self.clock.now()
        for prompt in self._prompts.values():
            if prompt.frozen is not None:
                prompt.deadline = now + prompt.frozen
                prompt.frozen = None
        if self._ready_left is not None:
            self._next_hand_at = now + self._ready_left
            self._ready_left = None
        await self._advance()

    async def _dissolve(self, msg: AdminDissolve) -> None:
        voided = self._hand_id if self._live() is not None else None
        if voided is not None:
            await self._void("the table was dissolved by an administrator")
        self.seats = [SeatState(None) for _ in range(4)]
        if not msg.done.done():
            msg.done.set_result(voided)

    def _close_idle(self, msg: CloseIdle) -> None:
        """Between hands, with no person seated (nobody, or house bots only), free every
        seat; the answer says whether it did."""
        idle = self._live() is None and not self._storing and all(
            seat.account is None or seat.house_bot for seat in self.seats
        )
        if idle:
            self.seats = [SeatState(None) for _ in range(4)]
        if not msg.done.done():
            msg.done.set_result(idle)

    # --- the hand -------------------------------------------------------------------------

    async def _deal(self) -> None:
        """The deal is due and four sit: free the seats of absent players (the table then
        waits for a fourth), read the seats' points, then deal."""
        if self._free_absent():
            return
        points = None
        if self.seat_points is not None:
            accounts = self._seated_accounts()
            try:
                points = await self.seat_points(accounts)
            except Exception:
                log.exception("table %s: reading the seats' points failed", self.table_id)
                self._next_hand_at = self.clock.now() + POINTS_RETRY_SECONDS
                return
            if self._accounts() != accounts:
                return  # a seat changed while they were read: the next tick deals
        await self._start_hand(points)

    def _free_absent(self) -> bool:
        """Between hands a player whose socket is gone when the deal is due leaves the
        seat, with no penalty (RULES.md 1 charges a drop during a hand only)."""
        absent = [
            s for s, seat in enumerate(self.seats) if seat.account is not None and not seat.connected
        ]
        for s in absent:
            self.seats[s] = SeatState(None)
        if absent:
            log.info("table %s: seats %s freed: away when the deal was due", self.table_id, absent)
        return bool(absent)

    def _seated_accounts(self) -> tuple[int, int, int, int]:
        a, b, c, d = (s.account for s in self.seats)
        assert a is not None and b is not None and c is not None and d is not None
        return a, b, c, d

    async def _start_hand(self, points: tuple[int, int, int, int] | None = None) -> None:
        seed = seed_bytes(self._seed_source())
        preset, self._preset = self._preset, None
        self._pass_deal_if_departed()
        if self._ctx is None:
            # the first hand's dice (its first roll, or the preset's) choose the first dealer
            dice = preset.dice if preset is not None else roll_dice(hand_rng(seed))
            self._ctx = TableContext(dealer=self.ruleset.first_dealer(dice))
        if points is not None:
            self._ctx = replace(self._ctx, seat_points=points)
        state, events = new_hand(self.ruleset, seed, self._ctx, preset)
        self._hands += 1
        self._hand_id = f"{self.table_id}-{self._hands}"
        self._state = state
        self._seed = seed
        self._hand_ctx = self._ctx
        self._hand_accounts = self._accounts()
        self._hand_preset = preset
        self._actions = []
        self._events = []
        self._first_seq = self._seq + 1
        self._prompts = {}
        self._reported = False
        self._next_hand_at = None
        self._ready = set()
        if self.observer is not None:
            self.observer.hand_started(self, self._hands, seed, self._hand_ctx, preset)
        self._publish(events)
        await self._advance()

    def _apply(self, action: Action) -> None:
        """One step of the core; raises IllegalAction and changes nothing when refused."""
        assert self._state is not None
        state, events = step(self._state, action)
        self._state = state
        self._actions.append(action)
        if self.observer is not None:
            self.observer.action_applied(self, action)
        self._publish(events)

    def _publish(self, events: list[Event]) -> None:
        """Number the events, log them for resumes, then send each seat its copy."""
        first = self._seq + 1
        self._events.extend(events)
        self._seq += len(events)
        for offset, event in enumerate(events):
            if isinstance(event, HandEnded):  # the settlement: shown once stored (`_report`)
                self._held.append(EventOut(first + offset, self._hand_id, event))
                continue
            for seat in range(4):
                self._send(seat, EventOut(first + offset, self._hand_id, event.for_seat(seat)))
            if self.public is not None:
                self.public(EventOut(first + offset, self._hand_id, event.for_seat(None)))
        metrics.events_published()

    async def _advance(self) -> None:
        """After a step: end the hand, or prompt the pending seats and let 托管 play."""
        while True:
            state = self._state
            if state is None or self._reported:
                return
            if state.phase == "ended":
                await self._end_hand(state)
                return
            self._prompt(state)
            if self._paused:
                return
            auto = next((s for s in pending_seats(state) if self.seats[s].autoplay), None)
            if auto is None:
                return
            if not self.bot_pace.instant:
                self._pace_bots(state)  # a `Tick` plays them when their delay has run out
                return
            self._apply(self._server_bot(auto).choose(state, auto, legal_actions(state, auto)))

    def _pace_bots(self, state: HandState) -> None:
        """Give each pending seat the server plays a delay (`bot_pace`), unless its prompt
        has one already: drawn once per decision, never past the prompt's deadline."""
        now = self.clock.now()
        for seat in pending_seats(state):
            prompt = self._prompts.get(seat)
            if prompt is None or prompt.bot_at is not None or not self.seats[seat].autoplay:
                continue
            prompt.bot_at = min(now + self.bot_pace.draw(), prompt.deadline)

    def _prompt(self, state: HandState) -> None:
        now = self.clock.now()
        prompts: dict[int, Prompt] = {}
        for seat in pending_seats(state):
            legal = legal_actions(state, seat)
            old = self._prompts.get(seat)
            if old is not None and old.legal == legal and (
                old.seq == self._seq or state.phase != "turn"
            ):
                # nothing happened since, or another seat answered in the same window (or
                # decision round): the same prompt, the same deadline
                prompts[seat] = old
                continue
            timer = self.timers.for_phase(state.phase)
            prompt = Prompt(self._seq, legal, now + timer, timer if self._paused else None)
            prompts[seat] = prompt
            self._send(seat, self._prompt_out(prompt, now))
        self._prompts = prompts

    def _timeout_action(self, state: HandState, seat: int) -> Action:
        """What a seat does when its time is up: for a present player the clock's choice
        (`TimeoutBot`: 过 on a claim, 摸切 on a turn), the one its prompt announced; for a
        disconnected seat the 托管 choice."""
        bot = _TIMEOUT if self.seats[seat].connected else self._server_bot(seat)
        return bot.choose(state, seat, legal_actions(state, seat))

    def _server_bot(self, seat: int) -> Bot:
        """Who plays a seat the server plays for: a house bot account the full greedy bot
        (claims included); a player's seat on 托管 (or away) `AutoplayBot`, which takes a
        胡 and otherwise never claims (RULES.md 1)."""
        return _HOUSE_BOT if self.seats[seat].house_bot else _AUTOPLAY

    def _pass_deal_if_departed(self) -> None:
        """Before dealing: if the account at some seat is not the one the ended hand was
        played with (its player was away at the hand's end and the seat was freed, got up
        between hands, or somebody else sat down), a player left the table, and the next
        dealer is asked again of the core with `departed` (湖州: after a drawn hand the
        deal then passes, RULES.md 4; no other variant's dealer changes)."""
        ended, ctx = self._state, self._ctx
        if ended is None or ended.phase != "ended" or ctx is None:
            return  # no hand ended here since the table (or its 版) started, or it was voided
        if self._accounts() == self._hand_accounts:
            return
        after = self.ruleset.next_context(ended, departed=True)
        if after.dealer != ctx.dealer:
            self._deal_passes += 1
            self._ctx = replace(ctx, dealer=after.dealer, streak=after.streak)

    async def _end_hand(self, state: HandState) -> None:
        """Report the hand once; seats still disconnected leave the table (RULES.md 1), and
        so does the escaper's, before the hand is stored (the caller is told at once)."""
        self._reported = True
        self._prompts = {}
        away = tuple(s for s in range(4) if not self.seats[s].connected)
        next_ctx = self.ruleset.next_context(state)
        session_end, reseat = self._session_over(state.ctx, next_ctx)
        record = self._record(state, voided=False, away=away, reseat=reseat,
                              session_end=session_end)
        self._ctx = next_ctx
        for seat in range(4):
            if seat in away or seat == state.escaped:
                self.seats[seat] = SeatState(None)
        self._tell_seats()
        # the result goes to the seats that played the hand, then the new seating (if any)
        self._reseat_after = reseat
        self._report(record)

    def _report(self, record: HandRecordData) -> None:
        """Hand the record over to be stored, beside the inbox (the table goes on answering
        its seats meanwhile, `settling`); `Settled` comes back once it is stored."""
        self._storing = True
        self.settling_task = asyncio.create_task(
            self._store(record), name=f"settle-{record.hand_id}"
        )

    async def _store(self, record: HandRecordData) -> None:
        silver = await self._on_hand_end(record)
        self.submit(Settled(record.hand_id, silver))

    async def _on_settled(self, msg: Settled) -> None:
        """The hand is stored: show the held result to whoever sits now (``hand_ended`` is
        alike for every seat), start the ready timer, then seat the players anew if the
        hand ended a 版 that redraws the seats. None: another process owns the table now
        and reports the hand; nothing is shown or dealt here."""
        if not self._storing or msg.hand_id != self._hand_id:
            return
        if msg.silver is not None:
            await self._lane.turn()
        self._storing = False
        self.settling_task = None
        deferred, self._deferred = self._deferred, []
        if msg.silver is not None:
            self._show(msg.silver)
        for waiting in deferred:
            await self._dispatch(waiting)

    def _show(self, silver: Silver) -> None:
        """Show the stored result, start the ready timer, and reseat after a 版."""
        held, self._held = self._paid(silver), []
        for item in held:
            for seat in range(4):
                self._send(seat, item)
            if self.public is not None:  # the result shows every hand: the same for all
                self.public(item)
        self._next_hand_at = self.clock.now() + self.timers.ready
        if self._paused:  # the ready timer runs from the resume
            self._ready_left = self.timers.ready
        if self.on_shown is not None:  # the table is no longer settling: new balances
            self.on_shown()
        reseat, self._reseat_after = self._reseat_after, None
        if reseat is not None:
            self._reseat(reseat)

    def _paid(self, silver: Silver) -> list[EventOut]:
        """The held result with the silver each seat's balance moved by, also in the hand's
        events (what a resume sends again)."""
        held = []
        for item in self._held:
            if isinstance(item.event, HandEnded):
                item = replace(item, event=replace(item.event, silver=silver))
                index = item.seq - self._first_seq
                if 0 <= index < len(self._events) and self._events[index].kind == "hand_ended":
                    self._events[index] = item.event
            held.append(item)
        return held

    def _session_over(
        self, ctx: TableContext, next_ctx: TableContext
    ) -> tuple[bool, Reseat | None]:
        """Count the deal passing: whether this hand ended a 版, and then, with
        `reseat_after_session`, the new seating (its seed from the seed source)."""
        if next_ctx.dealer != ctx.dealer:
            self._deal_passes += 1
        if self._deal_passes < 4 * ROUNDS_PER_SESSION:
            return False, None
        self._deal_passes = 0
        if not getattr(self.ruleset.options, "reseat_after_session", False):
            return True, None
        seed = seed_int(seed_bytes(self._seed_source()))
        return True, Reseat(seed, draw_seats(seed))

    def _reseat(self, reseat: Reseat) -> None:
        """Move every player to their new seat; the next 版 starts as a new table would
        (the next hand's dice choose its dealer). The hand just ended can no longer be
        resumed: its events were redacted for the old seats."""
        old = list(self.seats)
        self.seats = [old[reseat.order[new]] for new in range(4)]
        self._ctx = None
        self._state = None
        self._events = []
        self._first_seq = self._seq + 1
        for seat in range(4):  # before any event of the next hand
            if self.seats[seat].account is not None:
                self._send(seat, SeatedOut(seat))

    def _record(
        self,
        state: HandState | None,
        *,
        voided: bool,
        away: tuple[int, ...] = (),
        reseat: Reseat | None = None,
        session_end: bool = False,
    ) -> HandRecordData:
        options = self.ruleset.options
        return HandRecordData(
            table_id=self.table_id,
            hand_id=self._hand_id,
            variant=self.ruleset.name,
            seed=self._seed,
            ctx=self._hand_ctx,
            seats=tuple(s.account for s in self.seats),
            actions=list(self._actions),
            events=list(self._events),
            settlement=None if voided or state is None else state.settlement,
            state=None if voided else state,
            preset=self._hand_preset,
            voided=voided,
            away=away,
            reseat=reseat,
            session_end=session_end,
            options=None if options == self.ruleset.default_options() else options,
        )

    # --- recovery -------------------------------------------------------------------------

    async def _recover(self) -> None:
        try:
            self._restore()
            await self._advance()
        except Exception:
            log.exception("table %s: the hand cannot be restored; voiding it", self.table_id)
            try:
                await self._void()
            except Exception:
                log.exception("table %s: voiding the hand failed", self.table_id)

    def _restore(self) -> None:
        """Rebuild the hand from its seed and action log (the only way state changes)."""
        if self._state is None or self._reported:
            return
        state, events = replay(
            self.ruleset, self._seed, self._hand_ctx, self._actions, self._hand_preset
        )
        if events != self._events:
            raise RuntimeError("the replayed hand differs from the one played")
        self._state = state

    async def _void(self, message: str = "the hand was voided after a server error") -> None:
        """The hand cannot go on: it ends with no settlement and the deal does not pass."""
        if self._state is None or self._reported:
            return
        self._reported = True
        self._prompts = {}
        self._state = None
        self._held = []
        for seat in range(4):
            self._error(seat, "hand_voided", message)
        self._reseat_after = None
        self._report(self._record(None, voided=True))

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
        self._hands = hands
        self._seq = seq
        self._ctx = ctx
        if hand is not None:
            try:
                state, events = replay(
                    self.ruleset, hand.seed, hand.ctx, list(hand.actions), hand.preset
                )
            except Exception as exc:
                raise ValueError(f"hand {hand.hand_id} does not replay: {exc}") from exc
            self._state = state
            self._hand_id = hand.hand_id
            self._hands = hand.hands
            self._seed = hand.seed
            self._ctx = self._hand_ctx = hand.ctx
            self._hand_accounts = self._accounts()
            self._hand_preset = hand.preset
            self._actions = list(hand.actions)
            self._events = events
            self._first_seq = hand.first_seq
            self._seq = hand.first_seq - 1 + len(events)
            # a hand that had ended: its result is shown once this process has stored it
            self._held = [
                EventOut(hand.first_seq + i, hand.hand_id, e)
                for i, e in enumerate(events) if isinstance(e, HandEnded)
            ]
            self._prompts = {}
            self._reported = False
            self._next_hand_at = None
        self._pause()

    # --- small helpers --------------------------------------------------------------------

    def _live(self) -> HandState | None:
        state = self._state
        if state is None or self._reported or state.phase == "ended":
            return None
        return state

    def _accounts(self) -> tuple[int | None, ...]:
        return tuple(s.account for s in self.seats)

    def _seated(self) -> bool:
        return all(s.account is not None for s in self.seats)

    def _check_seat(self, seat: object) -> bool:
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 4:
            return True
        self._error(seat, "bad_seat", f"no seat {seat!r}")  # type: ignore[arg-type]
        return False

    def _error(self, seat: int, code: str, message: str, ref_seq: int | None = None) -> None:
        """Refuse to `seat`; `ref_seq`: the seq the refused message carried."""
        self._send(seat, ErrorOut(code, message, ref_seq))

    def _prompt_out(self, prompt: Prompt, now: float) -> PromptOut:
        return PromptOut(
            prompt.seq, self._hand_id, list(prompt.legal), prompt.deadline, prompt.remaining(now)
        )


def draw_seats(seed: int) -> tuple[int, int, int, int]:
    """A random seating of four players from `seed`: `order[new_seat] = old_seat`."""
    order = list(range(4))
    random.Random(seed).shuffle(order)
    return (order[0], order[1], order[2], order[3])


@dataclass(frozen=True, slots=True)
class AdoptedHand:
    """A hand in play as another process journaled it (`Table.adopt`)."""

    hand_id: str
    hands: int
    seed: bytes
    ctx: TableContext
    preset: Preset | None
    first_seq: int
    actions: Sequence[Action]


async def tick_forever(table: Table, longest: float = 5.0, gap: float = 0.25) -> None:
    """Post a `Tick` to the table when its next deadline comes (`Table.next_wake`), and at
    least every `longest` seconds: the only sleep of the shell, outside the game logic (the
    actor compares deadlines with its clock on each tick). A table whose seats think, or
    that waits for a player, costs nothing meanwhile; `Table.wake` is set when the deadline
    may have moved (a message handled, a seat taken), which makes this look again. Ticks
    are at least `gap` apart: a table of bots with no ready time deals at most four hands
    a second, and a deadline that stays in the past cannot make a table spin."""
    last = -gap
    while True:
        table.wake.clear()
        due = table.next_wake()
        table.wake_seen = due
        now = table.clock.now()
        delay = longest if due is None else min(longest, max(due, last + gap) - now)
        if delay > 0:
            try:
                async with asyncio.timeout(delay):
                    await table.wake.wait()
                continue  # the deadline may have moved: look again
            except TimeoutError:
                pass
        last = table.clock.now()
        table.submit(Tick())
        await table.wake.wait()  # set once the Tick is handled

"""The hand in play at one table: the pure core (`new_hand`, `step`) driven by the actor's
messages and its clock. A hand changes only by `step`; each action applied is told to the
table's `Journal`, kept in the hand's action log and its events numbered and sent
(`Transcript.publish`), so that the hand can always be rebuilt from its seed.

- prompts: after each step every seat the hand waits for (`pending_seats`) is told
  exactly its `legal_actions` and its deadline. A seat still waiting in the same claim
  window (or decision round) keeps its prompt and deadline when another seat answers;
- timers (RULES.md 1): on a `Tick` an expired prompt is answered for the seat: 过 in a
  claim window, a 胡 or 摸切 on a turn (`TimeoutBot`), "decline" for 温州 买底/顶底. Two
  consecutive timeouts switch the seat to 托管 (autoplay: `AutoplayBot` answers every
  prompt, at the bot pace below: a 胡 when there is one, never a 吃/碰/杠 on a discard, the greedy bot's
  choice on its own turn; `ExpertBot` instead when the player chose 托管 at expert at this
  table) until the player acts. A disconnected seat is not an escape: its
  timeouts are played by 托管. A house bot's seat is played by the bot of the table's
  level, its choice timed (`mahjong_bot_decision_seconds`);
- the pace of the seats the server plays (a house bot, 托管; `BotPace`): each of their
  decisions waits a delay drawn when its prompt is made (at most until its deadline), as a
  deadline of its own that a `Tick` acts on, so the actor never sleeps and a delay dies with
  its prompt (the hand ends, the table is dissolved or stops) or when the player acts or
  turns 托管 off; a pause drops it and the resume draws a new one. A timeout's own play
  (摸切, 过, the 托管 choice of an away seat) is not delayed past the timer. With no delay
  (the default) the server plays such a seat at once, inside the step that prompted it;
- a pause freezes every prompt's time left (`pause`), and `thaw` gives it back;
- bad input changes nothing and answers `ErrorOut` with a stable code; after an exception
  inside a handler the hand is rebuilt by replaying its action log from the seed
  (`restore`), or given up (`abandon`: voided) when that fails too;
- the hand's end: once its phase is "ended" it is reported exactly once, to `ended` (the
  cycle of hands, which stores it before its result is shown);
- resumes: a seat that asks (`resume`) or a seat's new connection (`catch_up`) gets what
  it lacks of the hand (`Transcript.missed`) and its prompt.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from app.ops import metrics
from app.rules.actions import Action
from app.rules.bots import TimeoutBot
from app.rules.context import TableContext
from app.rules.deadend import dead_end_claims
from app.rules.errors import IllegalAction
from app.rules.events import Event
from app.rules.hand import legal_actions, pending_seats, replay, step
from app.rules.hints import ReadyDiscard, ready_discards
from app.rules.state import HandState, Preset
from app.rules.variants.base import Ruleset
from app.tables.clock import Clock
from app.tables.levels import autoplay_bot, autoplay_level, bot_level, house_bot
from app.tables.messages import ErrorOut, Outbound
from app.tables.settlement.record import HandRecordData, Reseat
from app.tables.tableside import AdoptedHand, Journal, Prompt, Send, TableSide
from app.tables.transcript import Transcript

_TIMEOUT = TimeoutBot()  # a present seat whose time ran out


class HandPlay:
    """The hand in play at one table (or the last one, once reported): its state, action
    log and prompts, and the seats the server plays."""

    def __init__(
        self,
        table: TableSide,
        transcript: Transcript,
        journal: Journal,
        ended: Callable[[HandState], None],
        *,
        table_id: str,
        ruleset: Ruleset,
        clock: Clock,
        send: Send,
    ) -> None:
        self._table = table
        self._shown = transcript
        self._journal = journal
        self._ended = ended  # told once of each hand that ends (not of one voided)
        self._table_id = table_id
        self._ruleset = ruleset
        self._clock = clock
        self._send = send
        self._paused = False
        self._state: HandState | None = None
        self._seed = b""
        self._ctx = TableContext()
        self._preset: Preset | None = None
        self.actions: list[Action] = []  # the hand's action log
        self._prompts: dict[int, Prompt] = {}
        self._reported = True

    @property
    def state(self) -> HandState | None:
        """The hand in play, or the last one (also once reported); None before the first
        hand, after a void, and once the seats were redrawn."""
        return self._state

    @property
    def live(self) -> HandState | None:
        """The hand in play, None between hands."""
        state = self._state
        if state is None or self._reported or state.phase == "ended":
            return None
        return state

    @property
    def paused(self) -> bool:
        return self._paused

    # --- the hand -------------------------------------------------------------------------

    async def start(
        self,
        hand_id: str,
        hands: int,
        seed: bytes,
        ctx: TableContext,
        preset: Preset | None,
        dealt: tuple[HandState, list[Event]],
    ) -> None:
        """Play a hand just dealt (`new_hand(ruleset, seed, ctx, preset)` gave `dealt`), the
        table's `hands`-th: number its first events, then prompt."""
        state, events = dealt
        self._state = state
        self._seed = seed
        self._ctx = ctx
        self._preset = preset
        self.actions = []
        self._shown.begin(hand_id)
        self._prompts = {}
        self._reported = False
        self._journal.hand_started(hands, seed, ctx, preset)
        self._shown.publish(events)
        await self.advance()

    def apply(self, action: Action) -> None:
        """One step of the core; raises IllegalAction and changes nothing when refused."""
        assert self._state is not None
        state, events = step(self._state, action)
        self._state = state
        self.actions.append(action)
        self._journal.action_applied(action)
        self._shown.publish(events)

    async def advance(self) -> None:
        """After a step: end the hand, or prompt the pending seats and let 托管 play."""
        while True:
            state = self._state
            if state is None or self._reported:
                return
            if state.phase == "ended":
                self._reported = True
                self._prompts = {}
                self._ended(state)
                return
            self._prompt(state)
            if self._paused:
                return
            seats = self._table.seats
            auto = next((s for s in pending_seats(state) if seats[s].autoplay), None)
            if auto is None:
                return
            if not self._table.bot_pace.instant:
                self._pace_bots(state)  # a `Tick` plays them when their delay has run out
                return
            self.apply(self._server_play(state, auto))

    async def act(self, seat: int, action: Action, last_seq: int) -> None:
        """A player's action for their seat (the actor checked the seat): applied when the
        hand waits for the seat and `last_seq` is not older than its prompt."""
        state = self.live
        if state is None:
            self._error(seat, "hand_over", "no hand is in play", last_seq)
            return
        prompt = self._prompts.get(seat)
        if seat not in pending_seats(state) or prompt is None:
            self._error(seat, "not_your_turn", "the hand is not waiting for this seat", last_seq)
            return
        if last_seq < prompt.seq:
            self._error(seat, "stale", f"the current prompt is at seq {prompt.seq}", last_seq)
            return
        try:
            self.apply(action)
        except IllegalAction as refused:
            self._error(seat, refused.code, refused.message, last_seq)
            return
        await self.advance()

    def record(
        self,
        state: HandState | None,
        *,
        voided: bool,
        away: tuple[int, ...] = (),
        reseat: Reseat | None = None,
        round_end: bool = False,
        session_end: bool = False,
    ) -> HandRecordData:
        """The hand's record as the table hands it over to be stored."""
        options = self._ruleset.options
        return HandRecordData(
            table_id=self._table_id,
            hand_id=self._shown.hand_id,
            variant=self._ruleset.name,
            seed=self._seed,
            ctx=self._ctx,
            seats=tuple(s.account for s in self._table.seats),
            actions=list(self.actions),
            events=list(self._shown.events),
            settlement=None if voided or state is None else state.settlement,
            state=None if voided else state,
            preset=self._preset,
            voided=voided,
            away=away,
            reseat=reseat,
            round_end=round_end,
            session_end=session_end,
            options=None if options == self._ruleset.default_options() else options,
        )

    def forget(self) -> None:
        """The seats were redrawn: the hand just ended can no longer be resumed (its events
        were redacted for the old seats)."""
        self._state = None
        self._shown.restart()

    # --- prompts, timers and the seats the server plays -----------------------------------

    def _prompt(self, state: HandState) -> None:
        now = self._clock.now()
        prompts: dict[int, Prompt] = {}
        for seat in pending_seats(state):
            legal = legal_actions(state, seat)
            old = self._prompts.get(seat)
            if old is not None and old.legal == legal and (
                old.seq == self._shown.seq or state.phase != "turn"
            ):
                # nothing happened since, or another seat answered in the same window (or
                # decision round): the same prompt, the same deadline
                prompts[seat] = old
                continue
            timer = self._table.timers.for_phase(state.phase)
            prompt = Prompt(self._shown.seq, legal, now + timer, timer if self._paused else None,
                            ready=self._ready(state, seat),
                            dead_ends=self._dead_ends(state, seat, legal))
            prompts[seat] = prompt
            self._send(seat, self._shown.prompt_out(prompt, now))
        self._prompts = prompts

    def _ready(self, state: HandState, seat: int) -> tuple[ReadyDiscard, ...]:
        """The turn's readiness hints, for a seat a person holds (a house bot is sent none)."""
        if state.phase != "turn" or self._table.seats[seat].house_bot:
            return ()
        return ready_discards(state, seat)

    def _dead_ends(self, state: HandState, seat: int, legal: list[Action]) -> tuple[Action, ...]:
        """The claims that leave a 上海 hand no winning shape (`app.rules.deadend`), for a
        seat a person holds (a house bot is told none)."""
        if state.phase != "claim" or self._table.seats[seat].house_bot:
            return ()
        return dead_end_claims(state, seat, legal)

    def _pace_bots(self, state: HandState) -> None:
        """Give each pending seat the server plays a delay (`bot_pace`), unless its prompt
        has one already: drawn once per decision, never past the prompt's deadline."""
        now = self._clock.now()
        seats = self._table.seats
        for seat in pending_seats(state):
            prompt = self._prompts.get(seat)
            if prompt is None or prompt.bot_at is not None or not seats[seat].autoplay:
                continue
            prompt.bot_at = min(now + self._table.bot_pace.draw(), prompt.deadline)

    async def tick(self) -> None:
        """The clock moved: answer for every seat whose time ran out (or whose delay did,
        when the server plays it), one after the other."""
        while (state := self.live) is not None:
            seat = self._due(state, self._clock.now())
            if seat is None:
                return
            seats = self._table.seats
            if seats[seat].autoplay:  # the server's own play, at its pace
                action = self._server_play(state, seat)
            else:
                seats[seat].timed_out()
                action = self._timeout_action(state, seat)
            self.apply(action)
            await self.advance()

    def _due(self, state: HandState, now: float) -> int | None:
        """The first pending seat whose prompt's deadline has passed, or whose delay has
        run out while the server plays it (a bot or 托管)."""
        seats = self._table.seats
        for seat in pending_seats(state):
            prompt = self._prompts.get(seat)
            if prompt is None:
                continue
            if prompt.deadline <= now:
                return seat
            if prompt.bot_at is not None and prompt.bot_at <= now and seats[seat].autoplay:
                return seat
        return None

    def next_wake(self) -> float | None:
        """The earliest deadline of a pending prompt, or of the server's play of a bot or
        托管 seat; None between hands."""
        state = self.live
        if state is None:
            return None
        seats = self._table.seats
        wakes = []
        for seat in pending_seats(state):
            prompt = self._prompts.get(seat)
            if prompt is None:
                continue
            wakes.append(prompt.deadline)
            if prompt.bot_at is not None and seats[seat].autoplay:
                wakes.append(prompt.bot_at)
        return min(wakes, default=None)

    def _timeout_action(self, state: HandState, seat: int) -> Action:
        """What a seat does when its time is up: for a present player the clock's choice
        (`TimeoutBot`: 过 on a claim, 摸切 on a turn), the one its prompt announced; for a
        disconnected seat the 托管 choice."""
        if self._table.seats[seat].connected:
            return _TIMEOUT.choose(state, seat, legal_actions(state, seat))
        return self._server_play(state, seat)

    def _server_play(self, state: HandState, seat: int) -> Action:
        """The action of a seat the server plays for: a house bot account the bot of the
        table's level (`bot_level`: 新手, 普通 = the full greedy bot, 高手; claims included),
        its choice timed (`mahjong_bot_decision_seconds`); a player's seat on 托管 (or away)
        the bot of the level the player chose at this table: `AutoplayBot` (which takes a 胡
        and otherwise never claims, RULES.md 1) until they choose, whatever the table's
        level; `ExpertBot` at expert."""
        legal = legal_actions(state, seat)
        seat_state = self._table.seats[seat]
        if not seat_state.house_bot:
            return autoplay_bot(seat_state.autoplay_level).choose(state, seat, legal)
        level = bot_level(self._table.bot_level)
        bot = house_bot(level)
        started = time.perf_counter()
        action = bot.choose(state, seat, legal)
        metrics.bot_decided(level, time.perf_counter() - started)
        return action

    async def autoplay(self, seat: int, on: bool, level: str = "standard") -> None:
        """托管 on (the server plays the seat from now on, at `level`, which the seat keeps)
        or off (the player is back)."""
        if on:
            self._table.seats[seat].autoplay = True
            self._table.seats[seat].autoplay_level = autoplay_level(level)
            if not self._paused:
                await self.advance()
        else:
            self.player_back(seat)

    def player_back(self, seat: int) -> None:
        """The player acts for their seat again: 托管 ends, and with it any play the server
        had scheduled for the seat."""
        self._table.seats[seat].acted()
        prompt = self._prompts.get(seat)
        if prompt is not None:
            prompt.bot_at = None

    def pause(self, now: float) -> None:
        """Freeze every prompt's time left; a delay of the server's play is drawn anew."""
        self._paused = True
        for prompt in self._prompts.values():
            prompt.frozen = max(0.0, prompt.deadline - now)
            prompt.bot_at = None  # the resume draws a new delay

    def thaw(self, now: float) -> None:
        """Every prompt gets the time it had left when paused, from `now`."""
        self._paused = False
        for prompt in self._prompts.values():
            if prompt.frozen is not None:
                prompt.deadline = now + prompt.frozen
                prompt.frozen = None

    # --- resumes --------------------------------------------------------------------------

    def resume(self, seat: int, last_seq: int, sent: tuple[int, int] | None) -> None:
        """A seat asks for what it missed after `last_seq`; `sent`: the first and last event
        seq its connection was sent (its outbox's), if known."""
        if self._state is None:
            self._error(seat, "no_hand", "no hand has been played at this table", last_seq)
            return
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
        they were of an older hand) and the seat's prompt; nothing between hands."""
        if self.live is None or not 0 <= seat < 4:
            return []
        return self._missed(seat, from_seq - 1)

    def _missed(self, seat: int, last_seq: int) -> list[Outbound]:
        state = self._state
        assert state is not None
        now = self._clock.now()
        return self._shown.missed(seat, last_seq, state, self._prompts.get(seat), now)

    # --- recovery -------------------------------------------------------------------------

    def restore(self) -> None:
        """Rebuild the hand from its seed and action log (the only way state changes)."""
        if self._state is None or self._reported:
            return
        state, events = replay(self._ruleset, self._seed, self._ctx, self.actions, self._preset)
        if events != self._shown.events:
            raise RuntimeError("the replayed hand differs from the one played")
        self._state = state

    def abandon(self, message: str) -> HandRecordData | None:
        """The hand cannot go on: it ends with no settlement, every seat is told why, and its
        record (voided) is returned to be stored; None when no hand is in play."""
        if self._state is None or self._reported:
            return None
        self._reported = True
        self._prompts = {}
        self._state = None
        self._shown.drop_held()
        for seat in range(4):
            self._send(seat, ErrorOut("hand_voided", message, None))
        return self.record(None, voided=True)

    def adopt(self, hand: AdoptedHand) -> None:
        """Go on with a hand another process journaled: rebuilt by replaying its action log
        from its seed (ValueError when the log does not replay); its prompts are made anew
        once the table is resumed."""
        try:
            state, events = replay(
                self._ruleset, hand.seed, hand.ctx, list(hand.actions), hand.preset
            )
        except Exception as exc:
            raise ValueError(f"hand {hand.hand_id} does not replay: {exc}") from exc
        self._state = state
        self._seed = hand.seed
        self._ctx = hand.ctx
        self._preset = hand.preset
        self.actions = list(hand.actions)
        # a hand that had ended: its result is shown once this process has stored it
        self._shown.adopt_hand(hand.hand_id, hand.first_seq, events)
        self._prompts = {}
        self._reported = False

    def _error(self, seat: int, code: str, message: str, ref_seq: int | None = None) -> None:
        """Refuse to `seat`; `ref_seq`: the seq the refused message carried."""
        self._send(seat, ErrorOut(code, message, ref_seq))

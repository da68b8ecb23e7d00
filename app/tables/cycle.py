"""From one hand to the next at one table: the deal, the hand's end, its result stored and
then shown, the ready timer, and the 版 (sessions). The hand in between is played by the
cycle's `HandPlay`.

- results are stored before they are shown (DESIGN.md): `on_hand_end` gets the hand's
  record exactly once, beside the inbox (`settling_task`), and returns, once the record and
  its silver are stored, what each seat's balance moved by (it retries until then;
  meanwhile `storing` is true and the table deals nothing). That comes back to the inbox as
  `Settled`; only then is the held ``hand_ended`` shown (`Transcript.show`) and the ready
  timer started; the next hand is dealt once it has run out (or every seat said ready,
  准备) and four players are seated. None (another process owns the table now and stores the
  hand itself): nothing is shown and nothing more is dealt here;
- seats at a hand's end: before its record is stored, the seats that leave with it are
  freed: an escaper's (逃跑, `Leave` during a hand) and those still away, and the caller is
  told at once. So the escaper may sit again (here or elsewhere) while the hand is being
  stored; the result is shown to whoever sits then;
- at the deal (`_deal`): a seat whose player is away (its socket closed) is freed first,
  with no penalty, and the table waits for a fourth player instead of dealing to three;
  with `seat_points` (湖州) the four seats' stored 积分 are read into the hand's context;
- 湖州's dealer after a drawn hand depends on whether a player left the table: before
  each deal the seats are compared with those of the ended hand (`departed`);
- sessions (版, RULES.md 1: four 圈; a 圈 ends when every seat has dealt once, i.e. the deal
  has passed four times as the core's `next_context` reports it): with the variant option
  `reseat_after_session` (丽水) the seats are redrawn after each 版 from a seed of the
  seed source, recorded with the hand that ended it, and the next 版 starts as a new
  table (the dice choose its first dealer);
- endings take turns (`Lane`, the registry's `ENDINGS_PER_PASS`): a stored result before
  it is shown and a deal before it is dealt wait until the lane lets the table through;
- a pause freezes the prompts' timers and the ready timer; an exception inside a handler
  restores the hand from its action log (`recover`), or voids it when that fails too: the
  hand ends with no settlement and the deal does not pass.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import replace

from app.ops import metrics
from app.rules.context import TableContext
from app.rules.events import SeatPenalty
from app.rules.hand import new_hand
from app.rules.state import HandState, Preset
from app.rules.variants.base import Ruleset
from app.rules.wall import hand_rng, roll_dice, seed_bytes, seed_int
from app.tables.clock import Clock
from app.tables.lane import Ending, Lane
from app.tables.messages import ErrorOut, Settled
from app.tables.play import HandPlay
from app.tables.seats import SeatState
from app.tables.settlement.record import HandRecordData, Reseat, Silver
from app.tables.tableside import AdoptedHand, Journal, OnHandEnd, SeedSource, Send, TableSide
from app.tables.transcript import Transcript

log = logging.getLogger(__name__)

ROUNDS_PER_SESSION = 4  # a 版 is four 圈 (RULES.md 1)
POINTS_RETRY_SECONDS = 1.0  # a deal whose points could not be read waits this long
DEALING_POLL = 0.25  # seconds between looks at whether a room's session may deal


def draw_seats(seed: int) -> tuple[int, int, int, int]:
    """A random seating of four players from `seed`: `order[new_seat] = old_seat`."""
    order = list(range(4))
    random.Random(seed).shuffle(order)
    return (order[0], order[1], order[2], order[3])


def _accounts(seats: Sequence[SeatState]) -> tuple[int | None, ...]:
    return tuple(s.account for s in seats)


def _seated(seats: Sequence[SeatState]) -> bool:
    return all(s.account is not None for s in seats)


class HandCycle:
    """The hands of one table, one after the other: owns the next hand's context and
    preset, the ready timer and who said ready, the count of hands and of the deal's passes,
    and the hand being stored; `play` is the hand in play."""

    def __init__(
        self,
        table: TableSide,
        transcript: Transcript,
        journal: Journal,
        *,
        table_id: str,
        ruleset: Ruleset,
        clock: Clock,
        send: Send,
        lane: Lane,
        seed_source: SeedSource,
        on_hand_end: OnHandEnd,
        preset: Preset | None,
        ctx: TableContext | None,
    ) -> None:
        self._table = table
        self._shown = transcript
        self._table_id = table_id
        self._ruleset = ruleset
        self._clock = clock
        self._send = send
        self._lane = lane
        self.seed_source = seed_source
        self.on_hand_end = on_hand_end
        self.play = HandPlay(
            table, transcript, journal, self._hand_ended,
            table_id=table_id, ruleset=ruleset, clock=clock, send=send,
        )
        self.preset = preset  # for the next hand only (admin test mode)
        self._ctx = ctx  # the next hand's context; None: the first hand's dice choose
        self._hands = 0
        self._next_hand_at: float | None = clock.now()
        self._ready_left: float | None = None  # the ready timer while paused
        # (seat, account) of the players who said ready (准备) since the last deal
        self._ready: set[tuple[int, int]] = set()
        self.storing = False
        self._ended_at = 0.0  # when the hand being stored ended (perf_counter)
        # the hand being stored (`_report`), beside the inbox; its `Settled` comes back there
        self.settling_task: asyncio.Task[None] | None = None
        self._reseat_after: Reseat | None = None  # the new seating, once the result shows
        self._deal_passes = 0  # times the deal passed to another seat in this 版
        self._hand_accounts: tuple[int | None, ...] = ()  # who sat where when it was dealt

    # --- what the table reads -------------------------------------------------------------

    @property
    def next_context(self) -> TableContext | None:
        """The next hand's context (None: its dice choose the dealer, as at a new table)."""
        return self._ctx

    @property
    def next_deal_in(self) -> float | None:
        """Between hands, the seconds until the ready timer deals the next hand; None during
        a hand, while the result is stored, while paused or while a seat is empty."""
        due = self._next_hand_at
        if due is None or self.play.paused or self.storing or self.play.live is not None:
            return None
        if not _seated(self._table.seats) or not self._dealing():
            return None
        return max(0.0, due - self._clock.now())

    def _dealing(self) -> bool:
        may_deal = self._table.may_deal
        return may_deal is None or may_deal()

    @property
    def dealer(self) -> int:
        """The dealer of the hand in play, or of the next hand (seat 0 until the first
        hand's dice have chosen one)."""
        state = self.play.live
        if state is not None:
            return state.ctx.dealer
        return self._ctx.dealer if self._ctx is not None else 0

    @property
    def ready_seats(self) -> frozenset[int]:
        """The seats whose player said ready for the next hand (准备), bots included."""
        return frozenset(
            n for n, s in enumerate(self._table.seats)
            if s.account is not None and (s.house_bot or (n, s.account) in self._ready)
        )

    def next_wake(self) -> float | None:
        """When (on the clock) a `Tick` could next change something: the earliest deadline
        of the hand in play, or the ready timer between hands with four seated; None when
        only a message can (paused, a seat empty, a result being stored). A private room
        whose session may not deal yet is looked at again every `DEALING_POLL` seconds (its
        count is not a message)."""
        if self.play.paused:
            return None
        if self.play.live is None:
            due = self._next_hand_at
            if due is None or self.storing or not _seated(self._table.seats):
                return None
            return due if self._dealing() else self._clock.now() + DEALING_POLL
        return self.play.next_wake()

    # --- between hands --------------------------------------------------------------------

    async def tick(self) -> None:
        """The clock moved: deal when the ready timer has run out, or let the hand in play
        answer for the seats whose time is up."""
        if self.play.paused:
            return
        if self.play.live is None:
            due = self._next_hand_at
            if (
                due is not None and self._clock.now() >= due
                and _seated(self._table.seats) and self._dealing()
            ):
                await self._lane.turn(Ending.DEAL)
                await self._deal()
            return
        await self.play.tick()

    async def ready(self, seat: int) -> None:
        """准备: between hands, the seat is ready; when every seat is taken and ready, the
        next hand is dealt now rather than at the end of the ready timer."""
        if self.play.live is not None or self.storing or self._shown.holding:
            self._send(seat, ErrorOut(
                "in_hand", "the hand is not over: ready comes between hands", None
            ))
            return
        account = self._table.seats[seat].account
        if account is None:
            return  # freed meanwhile (the routing found the player there)
        self._ready.add((seat, account))
        if len(self.ready_seats) == 4 and self._next_hand_at is not None:
            self._next_hand_at = min(self._next_hand_at, self._clock.now())
            await self.tick()

    def pause(self) -> None:
        """Freeze the timers: the prompts' and the ready timer."""
        if self.play.paused:
            return
        now = self._clock.now()
        self.play.pause(now)
        if self._next_hand_at is not None:
            self._ready_left = max(0.0, self._next_hand_at - now)

    async def unpause(self) -> None:
        """The timers run again with the time they had left; the pending seats are
        prompted again."""
        if not self.play.paused:
            return
        now = self._clock.now()
        self.play.thaw(now)
        if self._ready_left is not None:
            self._next_hand_at = now + self._ready_left
            self._ready_left = None
        await self.play.advance()

    # --- the deal -------------------------------------------------------------------------

    async def _deal(self) -> None:
        """The deal is due and four sit: free the seats of absent players (the table then
        waits for a fourth), read the seats' points, then deal."""
        if self._free_absent():
            return
        points = None
        seat_points = self._table.seat_points
        if seat_points is not None:
            a, b, c, d = _accounts(self._table.seats)
            assert a is not None and b is not None and c is not None and d is not None
            accounts = (a, b, c, d)
            try:
                points = await seat_points(accounts)
            except Exception:
                log.exception("table %s: reading the seats' points failed", self._table_id)
                self._next_hand_at = self._clock.now() + POINTS_RETRY_SECONDS
                return
            if _accounts(self._table.seats) != accounts:
                return  # a seat changed while they were read: the next tick deals
        await self._start_hand(points)

    def _free_absent(self) -> bool:
        """Between hands a player whose socket is gone when the deal is due leaves the
        seat, with no penalty (RULES.md 1 charges a drop during a hand only); at a
        tournament's table the seat is kept, on 托管. Whether a seat was freed."""
        seats = self._table.seats
        absent = [s for s, seat in enumerate(seats) if seat.account is not None and not seat.connected]
        self._table.free_seats(absent)
        freed = [s for s in absent if seats[s].account is None]
        if freed:
            log.info("table %s: seats %s freed: away when the deal was due", self._table_id, freed)
        return bool(freed)

    async def _start_hand(self, points: tuple[int, int, int, int] | None = None) -> None:
        seed = seed_bytes(self.seed_source())
        preset, self.preset = self.preset, None
        self._pass_deal_if_departed()
        if self._ctx is None:
            # the first hand's dice (its first roll, or the preset's) choose the first dealer
            dice = preset.dice if preset is not None else roll_dice(hand_rng(seed))
            self._ctx = TableContext(dealer=self._ruleset.first_dealer(dice))
        if points is not None:
            self._ctx = replace(self._ctx, seat_points=points)
        dealt = new_hand(self._ruleset, seed, self._ctx, preset)
        self._hands += 1
        self._hand_accounts = _accounts(self._table.seats)
        self._next_hand_at = None
        self._ready = set()
        await self.play.start(
            f"{self._table_id}-{self._hands}", self._hands, seed, self._ctx, preset, dealt
        )

    def _pass_deal_if_departed(self) -> None:
        """Before dealing: if the account at some seat is not the one the ended hand was
        played with (its player was away at the hand's end and the seat was freed, got up
        between hands, or somebody else sat down), a player left the table, and the next
        dealer is asked again of the core with `departed` (湖州: after a drawn hand the
        deal then passes, RULES.md 4; no other variant's dealer changes)."""
        ended, ctx = self.play.state, self._ctx
        if ended is None or ended.phase != "ended" or ctx is None:
            return  # no hand ended here since the table (or its 版) started, or it was voided
        if _accounts(self._table.seats) == self._hand_accounts:
            return
        after = self._ruleset.next_context(ended, departed=True)
        if after.dealer != ctx.dealer:
            self._deal_passes += 1
            self._ctx = replace(ctx, dealer=after.dealer, streak=after.streak)

    # --- the hand's end -------------------------------------------------------------------

    def _hand_ended(self, state: HandState) -> None:
        """The hand in play ended (told once): seats still disconnected leave the table
        (RULES.md 1), and so does the escaper's, before the hand is stored (the caller is
        told at once)."""
        seats = self._table.seats
        away = tuple(s for s in range(4) if not seats[s].connected)
        next_ctx = self._ruleset.next_context(state)
        round_end, session_end, reseat = self._session_over(state.ctx, next_ctx)
        record = self.play.record(state, voided=False, away=away, reseat=reseat,
                                  round_end=round_end, session_end=session_end)
        self._ctx = next_ctx
        self._table.free_seats([s for s in range(4) if s in away or s == state.escaped])
        self._table.tell_seats()
        # the result goes to the seats that played the hand, then the new seating (if any)
        self._reseat_after = reseat
        self._report(record)

    def _session_over(
        self, ctx: TableContext, next_ctx: TableContext
    ) -> tuple[bool, bool, Reseat | None]:
        """Count the deal passing: whether this hand ended a 圈 (the deal passed a fourth
        time since the last one ended) and a 版, and then, with `reseat_after_session`,
        the new seating (its seed from the seed source)."""
        passed = next_ctx.dealer != ctx.dealer
        if passed:
            self._deal_passes += 1
        round_end = passed and self._deal_passes % 4 == 0
        if self._deal_passes < 4 * ROUNDS_PER_SESSION:
            return round_end, False, None
        self._deal_passes = 0
        if not getattr(self._ruleset.options, "reseat_after_session", False):
            return round_end, True, None
        seed = seed_int(seed_bytes(self.seed_source()))
        return round_end, True, Reseat(seed, draw_seats(seed))

    def _report(self, record: HandRecordData) -> None:
        """Hand the record over to be stored, beside the inbox (the table goes on answering
        its seats meanwhile, `storing`); `Settled` comes back once it is stored."""
        self.storing = True
        self._ended_at = time.perf_counter()
        self.settling_task = asyncio.create_task(
            self._store(record), name=f"settle-{record.hand_id}"
        )

    async def _store(self, record: HandRecordData) -> None:
        paid = await self.on_hand_end(record)
        if paid is None:  # stored by a newer owner of the table
            self._table.submit(Settled(record.hand_id, None))
        else:
            self._table.submit(Settled(record.hand_id, paid.silver, paid.penalties))

    async def settled(self, msg: Settled) -> bool:
        """The hand is stored: show the held result to whoever sits now (``hand_ended`` is
        alike for every seat), start the ready timer, then seat the players anew if the
        hand ended a 版 that redraws the seats. None: another process owns the table now
        and reports the hand; nothing is shown or dealt here. False when `msg` is not about
        the hand being stored (nothing changed)."""
        if not self.storing or msg.hand_id != self._shown.hand_id:
            return False
        if msg.silver is not None:
            await self._lane.turn(Ending.RESULT)
        self.storing = False
        self.settling_task = None
        if msg.silver is not None:
            self._show(msg.silver, msg.penalties)
            metrics.result_shown(time.perf_counter() - self._ended_at)
        return True

    def _show(self, silver: Silver, penalties: tuple[SeatPenalty, ...] = ()) -> None:
        """Show the stored result, start the ready timer, and reseat after a 版."""
        self._shown.show(silver, penalties)
        self._next_hand_at = self._clock.now() + self._table.timers.ready
        if self.play.paused:  # the ready timer runs from the resume
            self._ready_left = self._table.timers.ready
        on_shown = self._table.on_shown
        if on_shown is not None:  # the table is no longer settling: new balances
            on_shown()
        reseat, self._reseat_after = self._reseat_after, None
        if reseat is not None:
            # the next 版 starts as a new table would (its dice choose the dealer)
            self._ctx = None
            self.play.forget()
            self._table.reseat(reseat.order)

    # --- recovery -------------------------------------------------------------------------

    async def recover(self) -> None:
        """After an exception in a handler: restore the hand from its action log and go on,
        or void it."""
        try:
            self.play.restore()
            await self.play.advance()
        except Exception:
            log.exception("table %s: the hand cannot be restored; voiding it", self._table_id)
            try:
                self.void()
            except Exception:
                log.exception("table %s: voiding the hand failed", self._table_id)

    def void(self, message: str = "the hand was voided after a server error") -> None:
        """The hand cannot go on: it ends with no settlement and the deal does not pass."""
        record = self.play.abandon(message)
        if record is None:
            return
        self._reseat_after = None
        self._report(record)

    def adopt(
        self, hands: int, seq: int, ctx: TableContext | None, hand: AdoptedHand | None
    ) -> None:
        """Take over the hands another process dealt here (`TableActor.adopt`); left paused."""
        self._hands = hands
        self._shown.adopt(seq)
        self._ctx = ctx
        if hand is not None:
            self.play.adopt(hand)  # ValueError when its log does not replay
            self._hands = hand.hands
            self._ctx = hand.ctx
            self._hand_accounts = _accounts(self._table.seats)
            self._next_hand_at = None
        self.pause()

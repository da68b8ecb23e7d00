"""Storing a hand's result: its record, its silver and stats, and the disconnects of seats
still away at its end.

`store_hand` is idempotent, so it can be retried until the database has the hand: the
record and the settlement are written in one transaction (`ledger.settle_hand`, keyed by
the hand id), and the disconnects are keyed by hand and account. A voided hand, or one
without four seated accounts, stores only its record. It answers what each seat's balance
moved by (`Silver`), as the ledger has it: that, not net x stake, is what the table shows.
"""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.protocol import from_rules_action, to_code
from app.rules.actions import Action, Escape
from app.rules.variants import get_ruleset
from app.rules.variants.base import Ruleset
from app.store import ledger, ranks
from app.store.models import HandRecord
from app.tables.messages import HandRecordData, Silver
from app.tables.penalties import DisconnectPolicy, settle_disconnects


NOTHING_MOVED: Silver = (0, 0, 0, 0)


async def store_hand(
    sessions: async_sessionmaker[AsyncSession],
    record: HandRecordData,
    stake: int,
    ended_at: datetime,
    policy: DisconnectPolicy,
) -> Silver:
    """Store `record`'s hand (结算), or raise; a second call after a success changes
    nothing and answers the same. `ended_at` places its disconnects in the 24-hour window.
    The answer: what each seat's balance moved by with the settlement (the disconnect
    penalties apart; they are rows of their own)."""
    state, settlement = record.state, record.settlement
    seats = [a for a in record.seats if a is not None]
    async with sessions() as session:
        if record.voided or state is None or settlement is None or len(seats) != 4:
            async with session.begin():
                if await session.get(HandRecord, record.hand_id) is None:
                    session.add(hand_record(record))
            return NOTHING_MOVED
        entries = await ledger.settle_hand(
            session,
            record.hand_id,
            seats,
            settlement,
            stake,
            variant=record.variant,
            stats=ranks.results_from(state, disconnected=record.away),
            record=hand_record(record),
        )
        if record.away:
            await settle_disconnects(
                session, _ruleset(record), record, stake, ended_at, policy
            )
    moved = dict.fromkeys(seats, 0)
    for entry in entries:
        moved[entry.account_id] += entry.delta
    a, b, c, d = (moved[account] for account in seats)
    return a, b, c, d


def _ruleset(record: HandRecordData) -> Ruleset:
    """The rules the hand was played by: its variant, with a private room's options."""
    ruleset = get_ruleset(record.variant)
    return ruleset if record.options is None else replace(ruleset, options=record.options)


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
    if record.session_end:
        result["session_end"] = True  # it ended a 版 (a private room counts them)
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
        seed=record.seed.hex(),
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
        options=None if record.options is None else json.dumps(asdict(record.options)),
    )


def _action_json(action: Action) -> dict[str, object]:
    if isinstance(action, Escape):
        return {"type": "escape"}
    return from_rules_action(action).model_dump(mode="json")

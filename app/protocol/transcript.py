"""A complete hand as seat 0's client sees it: every message it receives and sends, from its
``hello``.

    python -m app.protocol.transcript

Four greedy bots (the 托管 player) play one short 丽水 hand on a fixed seed; the output is
JSON lines, one message each, in order. docs/protocol.md quotes it and a test keeps the two
equal. What a table does between messages (timers, other seats' prompts) is not shown;
the deadlines are the full turn (15 s) and claim (8 s) timers of RULES.md section 1, and
the timeout action is pass in a claim window, the 托管 choice on a turn.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from pydantic import BaseModel

from app.protocol.actions import from_rules_action
from app.protocol.encode import ready_hints
from app.protocol.events import seat_payload
from app.protocol.messages import (
    ActionMessage,
    EventMessage,
    HelloMessage,
    PromptMessage,
    SeatedMessage,
    SeatInfo,
    TableStateMessage,
)
from app.rules.bots import GreedyBot, TimeoutBot
from app.rules.context import TableContext
from app.rules.deadend import dead_end_claims
from app.rules.events import HandEnded
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.hints import ready_discards
from app.rules.variants import get_ruleset

# a short hand: seat 0 chows, then wins on a discard. A seed is 32 bytes (a server draws
# them from `secrets`); this one is the number 80 in 32 bytes, so that the doc's hand is
# the one it always showed
SEED = (80).to_bytes(32, "big")
TOKEN = "<access token>"  # what /auth/login answered: a JWT
TABLE_ID = "T1"
HAND_ID = "T1-1"
SEAT = 0
STAKE = 10  # silver per point
TURN_MS = 15_000
CLAIM_MS = 8_000
READY_MS = 15_000  # the house ready timer (RULES.md 1, Timers), counted down between hands
PLAYERS = (("Ann", 5200), ("Bo", 13800), ("Chen", 700), ("Dee", 26000))
TITLES = ((0, "菜鸟"), (6000, "生手"), (12000, "赌客"), (24000, "赌棍"))


def _title(balance: int) -> str:
    return [name for floor, name in TITLES if balance >= floor][-1]


def _table_state(
    dealer: int, hand_id: str | None, net: tuple[int, ...] = (0, 0, 0, 0), stake: int = 0
) -> TableStateMessage:
    seats = [
        SeatInfo(seat=s, name=name, title=_title(silver + net[s] * stake),
                 balance=silver + net[s] * stake, connected=True,
                 ready=hand_id is not None,  # between hands: nobody has said ready yet
                 autoplay=False)
        for s, (name, silver) in enumerate(PLAYERS)
    ]
    return TableStateMessage(table_id=TABLE_ID, variant="lishui", dealer=dealer,
                             hand_id=hand_id, seats=seats,
                             next_hand_ms=READY_MS if hand_id is None else None)


def _silver(ended: HandEnded) -> tuple[int, ...]:
    """What the ledger moves for `ended` at `STAKE`: net x stake plus the house's silver,
    every balance of `PLAYERS` being enough to pay in full (no balance floor)."""
    silver = tuple(n * STAKE + h for n, h in zip(ended.net, ended.house_silver, strict=True))
    assert all(PLAYERS[s][1] + silver[s] >= 0 for s in range(4)), "the floor would apply"
    return silver


def transcript(seed: int | bytes = SEED) -> list[str]:
    """The messages of seat 0's client for one 丽水 hand on `seed`, as JSON lines."""
    ruleset = get_ruleset("lishui")
    ctx = TableContext(dealer=0)
    state, events = new_hand(ruleset, seed, ctx)
    bot = GreedyBot()
    lines: list[BaseModel] = [
        HelloMessage(v=2, token=TOKEN),
        SeatedMessage(table_id=TABLE_ID, seat=SEAT, variant="lishui", stake=STAKE),
        _table_state(ctx.dealer, HAND_ID),
    ]
    seq = 0
    while True:
        for event in events:
            seq += 1
            if isinstance(event, HandEnded):  # the table shows it once stored, with the silver
                event = replace(event, silver=_silver(event))
            lines.append(EventMessage(table_id=TABLE_ID, hand_id=HAND_ID, seq=seq,
                                      event=seat_payload(event, SEAT)))
        if state.phase == "ended":
            break
        pending = pending_seats(state)
        if SEAT in pending:
            legal = legal_actions(state, SEAT)
            lines.append(
                PromptMessage(
                    table_id=TABLE_ID,
                    hand_id=HAND_ID,
                    seq=seq,
                    legal_actions=[from_rules_action(a) for a in legal],
                    deadline_ms=TURN_MS if state.phase == "turn" else CLAIM_MS,
                    timeout_action=from_rules_action(TimeoutBot().choose(state, SEAT, legal)),
                    ready=ready_hints(
                        ready_discards(state, SEAT) if state.phase == "turn" else ()
                    ),
                    dead_ends=[from_rules_action(a) for a in dead_end_claims(state, SEAT)],
                )
            )
        seat = pending[0]
        action = bot.choose(state, seat, legal_actions(state, seat))
        if seat == SEAT:
            lines.append(ActionMessage(table_id=TABLE_ID, seq=seq,
                                       action=from_rules_action(action)))
        state, events = step(state, action)
    assert state.settlement is not None
    net = state.settlement.net()
    lines.append(_table_state(ruleset.next_context(state).dealer, None, net, STAKE))
    return [m.model_dump_json() for m in lines]


def main() -> int:
    sys.stdout.write("".join(line + "\n" for line in transcript()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

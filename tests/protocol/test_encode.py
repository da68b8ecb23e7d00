"""The text the server writes for events and prompts straight from the core's values is the
text their pydantic models write: for every event of real hands of every variant, as each
seat receives it, and for every prompt those hands had (their readiness hints included)."""

from __future__ import annotations

import importlib
import json

import pytest

from app.protocol import EventMessage, PromptMessage, event_payload, from_rules_action
from app.protocol.actions import PassAction
from app.protocol.encode import action_dict, event_text, prompt_text
from app.protocol.messages import ReadyHint, WaitHint
from app.protocol.tiles import to_code
from app.rules import actions as rules
from app.rules.actions import Escape
from app.rules.bots import GreedyBot
from app.rules.deadend import dead_end_claims
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.hints import ready_discards
from app.rules.selfplay import HandRun
from app.rules.variants import VARIANTS
from tests.protocol.test_messages import sample_hands

TABLE = "t-0_a"


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def variant_hands(request: pytest.FixtureRequest) -> list[HandRun]:
    return sample_hands(request.param, seeds=(1, 2, 3, 4), escaper=1)


def test_every_event_as_every_seat_gets_it_is_the_models_text(
    variant_hands: list[HandRun],
) -> None:
    kinds = set()
    for number, run in enumerate(variant_hands):
        hand_id = f"{TABLE}-{number + 1}"
        for seq, event in enumerate(run.events, start=1):
            for seat in (0, 1, 2, 3, None):
                copy = event.for_seat(seat)
                model = EventMessage(
                    table_id=TABLE, hand_id=hand_id, seq=seq, event=event_payload(copy)
                )
                encoded = event_text(TABLE, hand_id, seq, copy)
                assert encoded.type == "event"
                assert encoded.text == model.model_dump_json(), (event, seat)
            kinds.add(event.kind)
    assert {"dealt", "drew", "discarded", "hand_ended"} <= kinds


def test_every_prompt_of_real_hands_is_the_models_text(variant_hands: list[HandRun]) -> None:
    bot = GreedyBot()
    readied = 0
    for run in variant_hands[:4]:
        ruleset, seed, ctx = run.state.ruleset, run.state.seed, run.state.ctx
        state, _ = new_hand(ruleset, seed, ctx)
        for step_no, action in enumerate(run.actions):
            if isinstance(action, Escape):
                break
            for seat in pending_seats(state):
                legal = [a for a in legal_actions(state, seat) if not isinstance(a, Escape)]
                passes = any(isinstance(a, rules.Pass) for a in legal)
                timeout = None if passes else bot.choose(state, seat, legal)
                ready = ready_discards(state, seat) if state.phase == "turn" else ()
                readied += bool(ready)
                dead = dead_end_claims(state, seat)
                model = PromptMessage(
                    table_id=TABLE, hand_id=f"{TABLE}-1", seq=step_no,
                    legal_actions=[from_rules_action(a) for a in legal],
                    deadline_ms=14_999,
                    timeout_action=PassAction() if timeout is None
                    else from_rules_action(timeout),
                    ready=[ReadyHint(discard=to_code(r.tile), waits=[
                        WaitHint(tile=to_code(w.tile), unseen=w.unseen) for w in r.waits
                    ]) for r in ready],
                    dead_ends=[from_rules_action(a) for a in dead],
                )
                encoded = prompt_text(TABLE, f"{TABLE}-1", step_no, legal, 14_999, timeout,
                                      ready, dead)
                assert encoded.type == "prompt"
                assert encoded.text == model.model_dump_json()
            state, _ = step(state, action)
    assert readied  # some turns of these hands had a discard that made the hand ready


ACTIONS: list[rules.Action] = [
    rules.Discard(0, 4), rules.Chow(1, 10), rules.Pung(2), rules.ExposedKong(3),
    rules.ConcealedKong(0, 27), rules.AddedKong(1, 33), rules.Hu(2), rules.Pass(3),
    rules.Decide(0, "buy"), rules.Special(1, "rob_gold", 5),
]


@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: type(a).__name__)
def test_every_action_kind_is_written_as_its_model(action: rules.Action) -> None:
    assert json.dumps(action_dict(action), separators=(",", ":")) == (
        from_rules_action(action).model_dump_json()
    )


def test_an_escape_has_no_wire_action() -> None:
    with pytest.raises(ValueError):
        action_dict(Escape(0))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_hand_ended_with_score_sheets_is_the_models_text(variant: str) -> None:
    """The worked example of each variant (docs/rules.md) ends on a win: its `hand_ended`,
    score sheets included, is written as the model writes it, for every seat."""
    module = importlib.import_module(f"app.rules.examples.{variant}")
    _, _, events = module.example()
    ended = events[-1]
    assert ended.kind == "hand_ended" and ended.scores  # type: ignore[attr-defined]
    for seat in (0, 1, 2, 3, None):
        copy = ended.for_seat(seat)
        model = EventMessage(table_id=TABLE, hand_id=f"{TABLE}-1", seq=9, event=event_payload(copy))
        assert event_text(TABLE, f"{TABLE}-1", 9, copy).text == model.model_dump_json()
    sheet = json.loads(model.model_dump_json())["event"]["scores"][0]
    assert sheet["items"] and sheet["payments"] and sheet["groups"]

"""A variant's house rules (app/rules/variants/options.py): one spec per option, checked
input, and the rules core playing any options within the bounds, every minimum and every
maximum included."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import typing
from typing import Literal

import pytest

from app.rules import selfplay
from app.rules.actions import Discard, Escape
from app.rules.context import TableContext
from app.rules.events import HandEnded
from app.rules.hand import legal_actions, new_hand, step
from app.rules.variants import VARIANTS
from app.rules.variants.base import Ruleset
from app.rules.variants.options import (
    OptionError,
    OptionSpec,
    changed_options,
    option_specs,
    options_json,
    parse_options,
    ruleset_with,
)
from app.rules.wall import roll_dice

NAMES = sorted(VARIANTS)
WIN_REASONS = {"win", "deal_in", "covers", "robbing_kong", "catch_dealer"}


def fields(variant: str) -> list[dataclasses.Field[object]]:
    return list(dataclasses.fields(VARIANTS[variant].options))


# --------------------------------------------------------------------------- the specs


@pytest.mark.parametrize("variant", NAMES)
def test_every_option_has_exactly_one_spec_in_field_order(variant: str) -> None:
    assert [s.name for s in option_specs(variant)] == [f.name for f in fields(variant)]


@pytest.mark.parametrize("variant", NAMES)
def test_kinds_nulls_and_choices_are_the_dataclass_annotations(variant: str) -> None:
    hints = typing.get_type_hints(type(VARIANTS[variant].options))
    for spec in option_specs(variant):
        hint = hints[spec.name]
        if typing.get_origin(hint) is Literal:
            assert (spec.kind, spec.choices) == ("choice", typing.get_args(hint)), spec
        elif hint is bool:
            assert spec.kind == "bool", spec
        else:
            assert spec.kind == "int" and hint in (int, int | None), spec
        assert spec.nullable == (type(None) in typing.get_args(hint)), spec


@pytest.mark.parametrize("variant", NAMES)
def test_every_option_reads_in_english_with_chinese_only_as_a_gloss(variant: str) -> None:
    """A room's house rules in English name each thing in English; a Chinese word stays only
    in parentheses after its English name ("Followed (被跟)"), as the client's English does
    (tests/browser/english.py)."""
    for spec in option_specs(variant):
        unglossed = re.sub(r"([A-Za-z][^()]*?)\s*\([\u3400-\u9fff·/\s]+\)", r"\1", spec.en)
        assert not re.search(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]", unglossed), spec.en


@pytest.mark.parametrize("variant", NAMES)
def test_defaults_are_the_dataclass_defaults_and_lie_within_the_bounds(variant: str) -> None:
    defaults = options_json(VARIANTS[variant].options)
    for spec in option_specs(variant):
        assert spec.default == defaults[spec.name], spec
        assert spec.zh and spec.en and spec.rules.startswith("RULES.md "), spec
        if spec.kind == "int":
            assert spec.minimum is not None and spec.maximum is not None, spec
            assert spec.minimum <= spec.maximum
            if spec.default is None:
                assert spec.nullable, spec
            else:
                assert type(spec.default) is int, spec
                assert spec.minimum <= spec.default <= spec.maximum, spec
        else:
            assert spec.minimum is None and spec.maximum is None and not spec.nullable, spec
        if spec.kind == "bool":
            assert type(spec.default) is bool and spec.choices == ()
        if spec.kind == "choice":
            assert spec.default in spec.choices


def test_the_specs_say_what_each_rule_means_with_its_chinese_term() -> None:
    lishui = {s.name: s for s in option_specs("lishui")}
    assert "统包" in lishui["tongbao"].zh and "统包" in lishui["tongbao"].en
    assert "被跟" in lishui["follow_penalty"].zh
    assert lishui["escape_multiple"].rules == "RULES.md 2"
    wenzhou = {s.name: s for s in option_specs("wenzhou")}
    assert "买底" in wenzhou["buy_in"].zh and "顶底" in wenzhou["buy_in"].en
    fuzhou = {s.name: s for s in option_specs("fuzhou")}
    assert fuzhou["rob_gold_non_dealer_puts_out"].choices == ("drawn", "any")
    assert fuzhou["loss_cap_multiple"].nullable
    assert fuzhou["rob_gold_three_golds"].rules == "RULES.md 5, a choice where it is silent"
    # the house's silver may be lowered by a room, never raised
    huzhou = {s.name: s for s in option_specs("huzhou")}
    assert huzhou["dealt_four_wilds_silver"].maximum == huzhou["dealt_four_wilds_silver"].default


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        option_specs("beijing")
    with pytest.raises(ValueError, match="unknown variant"):
        ruleset_with("beijing", {"base": 1})


# --------------------------------------------------------------------------- parsing


def bad_values(spec: OptionSpec) -> list[object]:
    """Every kind of value the spec must refuse."""
    if spec.kind == "bool":
        return [1, 0, "true", None, 1.0]
    if spec.kind == "choice":
        return ["nope", 1, None, True, spec.choices[0].upper()]
    assert spec.minimum is not None and spec.maximum is not None
    out: list[object] = [True, False, str(spec.minimum), float(spec.minimum), [spec.minimum],
                         spec.minimum - 1, spec.maximum + 1]
    if not spec.nullable:
        out.append(None)
    return out


@pytest.mark.parametrize("variant", NAMES)
def test_parse_options_refuses_each_kind_of_bad_input_naming_the_option(variant: str) -> None:
    for spec in option_specs(variant):
        for value in bad_values(spec):
            with pytest.raises(OptionError) as refused:
                parse_options(variant, {spec.name: value})
            assert refused.value.name == spec.name, (spec.name, value)
            assert refused.value.message and spec.name in str(refused.value)
    with pytest.raises(OptionError) as refused:
        parse_options(variant, {"no_such_option": 1})
    assert refused.value.name == "no_such_option"
    assert isinstance(refused.value, ValueError)


def test_a_value_at_a_bound_none_for_a_cap_and_a_choice_are_taken() -> None:
    fuzhou = parse_options("fuzhou", {"loss_cap_multiple": None, "reserve_tiles": 30,
                                      "rob_gold_non_dealer_puts_out": "any", "base": 1})
    assert options_json(fuzhou) == options_json(VARIANTS["fuzhou"].options) | {
        "loss_cap_multiple": None, "reserve_tiles": 30, "rob_gold_non_dealer_puts_out": "any"}
    assert parse_options("lishui", {}) == VARIANTS["lishui"].options


def random_values(variant: str, rng: random.Random, nulls: bool) -> dict[str, object]:
    """Every option drawn within its bounds (None for a cap when `nulls`)."""
    out: dict[str, object] = {}
    for spec in option_specs(variant):
        if spec.kind == "bool":
            out[spec.name] = rng.random() < 0.5
        elif spec.kind == "choice":
            out[spec.name] = rng.choice(spec.choices)
        elif spec.nullable and nulls:
            out[spec.name] = None
        else:
            assert spec.minimum is not None and spec.maximum is not None
            out[spec.name] = rng.randint(spec.minimum, spec.maximum)
    return out


def extreme_values(variant: str, end: str, on: bool = False) -> dict[str, object]:
    """Every int at its minimum (`end` "min") or maximum, every bool `on` or off, the last
    choice if `on` else the first."""
    out: dict[str, object] = {}
    for spec in option_specs(variant):
        if spec.kind == "bool":
            out[spec.name] = on
        elif spec.kind == "choice":
            out[spec.name] = spec.choices[-1 if on else 0]
        else:
            out[spec.name] = spec.minimum if end == "min" else spec.maximum
    return out


@pytest.mark.parametrize("variant", NAMES)
def test_options_json_and_back_give_the_same_options(variant: str) -> None:
    rng = random.Random(variant)
    for values in [{}, extreme_values(variant, "min"), extreme_values(variant, "max", on=True),
                   *(random_values(variant, rng, i % 2 == 0) for i in range(4))]:
        options = parse_options(variant, values)
        stored = json.loads(json.dumps(options_json(options)))
        assert parse_options(variant, stored) == options
        assert stored == options_json(options)
        assert set(stored) == {f.name for f in fields(variant)}


def test_changed_options_are_only_those_that_differ_from_the_defaults() -> None:
    assert changed_options("lishui", VARIANTS["lishui"].options) == {}
    options = parse_options("lishui", {"follow_penalty": False, "base_first": 5, "base_max": 9})
    assert changed_options("lishui", options) == {"follow_penalty": False, "base_first": 5}
    capless = parse_options("shanghai", {"cap_la": None})
    assert changed_options("shanghai", capless) == {"cap_la": None}
    with pytest.raises(ValueError):
        changed_options("wenzhou", options)  # 丽水's options are not 温州's


# --------------------------------------------------------------------------- rulesets


def test_no_options_give_the_default_ruleset() -> None:
    for variant in NAMES:
        assert ruleset_with(variant, None) is VARIANTS[variant]
        assert ruleset_with(variant, {}) is VARIANTS[variant]


def test_the_ruleset_plays_its_options_and_recomputes_what_follows_from_them() -> None:
    lishui = ruleset_with("lishui", {"wild_discard_penalized": False, "base_first": 5})
    assert type(lishui) is type(VARIANTS["lishui"]) and lishui.name == "lishui"
    assert lishui.options == parse_options("lishui", {"wild_discard_penalized": False,
                                                      "base_first": 5})
    assert lishui.wild_discard == "forbidden" and VARIANTS["lishui"].wild_discard == "allowed"
    assert ruleset_with("lishui", {"base_first": 5}).wild_discard == "allowed"
    wenzhou = ruleset_with("wenzhou", {"tail_reserve": 8, "honours_first": False})
    assert (wenzhou.tail_reserve, wenzhou.restricts_discards) == (8, False)
    assert ruleset_with("huzhou", {"wild_discard_allowed": False}).wild_discard == "forbidden"
    assert ruleset_with("fuzhou", {"gold_discard_allowed": False}).wild_discard == "forbidden"
    assert ruleset_with("huzhou", {"first_dealer": 2}).first_dealer((3, 4)) == 2
    assert VARIANTS["huzhou"].first_dealer((3, 4)) == 0


def test_a_forbidden_wild_is_never_offered_as_a_discard_while_another_is_held() -> None:
    for ruleset in (ruleset_with("lishui", {"wild_discard_penalized": False}),
                    ruleset_with("huzhou", {"wild_discard_allowed": False})):
        offered = False
        for seed in range(40):
            state, _ = new_hand(ruleset, seed, TableContext(dealer=0))
            wild = state.wild.wild
            if state.phase != "turn" or wild is None or not state.concealed[0][wild]:
                continue
            discards = {a.tile for a in legal_actions(state, 0) if isinstance(a, Discard)}
            assert wild not in discards and discards
            offered = True
        assert offered


# --------------------------------------------------------------------------- self-play


def play(ruleset: Ruleset, hands: int, seed: int, bots: str) -> None:
    """`hands` hands at one table, every invariant of self-play checked (every tile kept,
    whole positive transfers, the replay gives the same events); each hand's points sum to
    zero, its score sheets' payments are positive and are its transfers; and an escape at
    the start of the same hand settles zero-sum in positive shares."""
    master = random.Random(seed)
    ctx = TableContext(dealer=ruleset.first_dealer(roll_dice(master)))
    factory = selfplay.bot_factory(bots)
    for _ in range(hands):
        hand_seed = master.getrandbits(63)
        run = selfplay.play_hand(ruleset, hand_seed, ctx, factory, check=True)
        state = run.state
        assert state.settlement is not None and sum(state.settlement.net()) == 0
        if state.outcome == "win":
            (ended,) = [e for e in run.events if isinstance(e, HandEnded)]
            explained = [(p.payer, s.seat, p.points, p.reason)
                         for s in ended.scores for p in s.payments]
            paid = [(t.payer, t.payee, t.points, t.reason)
                    for t in state.settlement.transfers if t.reason in WIN_REASONS]
            assert explained == paid
            assert all(points > 0 for _, _, points, _ in explained)
        escaped, _ = new_hand(ruleset, hand_seed, ctx)
        if escaped.phase != "ended":  # not won at the deal
            escaped, _ = step(escaped, Escape(hand_seed % 4))
            assert escaped.outcome == "escape" and escaped.settlement is not None
            selfplay.check_settlement(ruleset, hand_seed, escaped.settlement)
            assert sum(escaped.settlement.net()) == 0
        ctx = ruleset.next_context(state)


OPTION_SETS = ["min", "min_on", "max", "max_on", "random0", "random1", "random2", "random3"]


@pytest.mark.parametrize("which", OPTION_SETS)
@pytest.mark.parametrize("variant", NAMES)
def test_the_core_plays_options_drawn_within_the_bounds(variant: str, which: str) -> None:
    if which.startswith("random"):
        i = int(which[-1])
        values = random_values(variant, random.Random(f"{variant}{i}"), nulls=i % 2 == 0)
    else:
        values = extreme_values(variant, which[:3], on=which.endswith("_on"))
    ruleset = ruleset_with(variant, values)
    assert options_json(ruleset.options) == values
    play(ruleset, 30, seed=OPTION_SETS.index(which), bots="greedy")
    play(ruleset, 10, seed=3, bots="random")  # also 买底 / 顶底, and odd claims

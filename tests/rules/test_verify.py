"""Verifying a hand (app/rules/verify.py): the documented procedure gives the core's wall and
dice for every seed, every seat's transcript of real hands of every variant verifies, and
one changed tile, a wrong commitment or another seed fails it; `python -m app.rules.verify`
says so and exits 0 / 1."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from app.protocol.events import event_payload, seat_payload
from app.protocol.transcript import transcript
from app.rules import verify
from app.rules.actions import Action
from app.rules.bots import GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.scenario import arrange
from app.rules.tiles import parse_one, tile_code
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.wall import commitment, hand_rng, roll_dice, seed_bytes, shuffled

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
Payload = dict[str, Any]


def _seeds(n: int, salt: int) -> list[bytes]:
    """Seeds as a server makes them (32 bytes), and some with leading zero bytes, which
    make a shorter int (fewer key words for the Mersenne Twister)."""
    rng = random.Random(salt)
    seeds = [rng.randbytes(32) for _ in range(n)]
    return seeds + [bytes(4) + rng.randbytes(28), bytes(31) + b"\x07", bytes(32), b"\x01"]


def _play(variant: str, seed: bytes, dealer: int = 0, greedy: bool = True) -> list[Event]:
    """One hand of bots (the greedy bot, or a random one that claims and kongs more)."""
    state, events = new_hand(get_ruleset(variant), seed, TableContext(dealer=dealer))
    rng = random.Random(seed)
    bots = [GreedyBot() if greedy else RandomBot(rng) for _ in range(4)]
    while state.phase != "ended":
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        action: Action = bots[seat].choose(state, seat, legal_actions(state, seat))
        state, more = step(state, action)
        events += more
    return events


def _as_seen(events: list[Event], seat: int | None) -> list[Payload]:
    """The payloads `seat` received (None: unredacted, as an administrator's replay)."""
    if seat is None:
        return [event_payload(e).model_dump(mode="json") for e in events]
    return [seat_payload(e, seat).model_dump(mode="json") for e in events]


# --- the procedure is the core's -------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_documented_procedure_gives_the_cores_wall_and_dice(variant: str) -> None:
    ruleset = get_ruleset(variant)
    assert verify.tile_set(variant) == ruleset.tile_set()
    for seed in _seeds(30, salt=len(variant)):
        rng = hand_rng(seed)
        core = (roll_dice(rng), shuffled(ruleset.tile_set(), rng), roll_dice(rng))
        made = verify.shuffle_of(seed, variant)
        assert (made.dice, made.wall, made.wild_dice) == core
        state, events = new_hand(ruleset, seed, TableContext())
        assert events[0].dice == made.dice  # type: ignore[attr-defined]
        assert state.wild_dice == made.wild_dice


def test_a_seed_is_bytes_and_an_int_is_its_8_byte_form() -> None:
    assert seed_bytes(80) == bytes(7) + b"P" and seed_bytes(b"\x00P") == b"\x00P"
    assert seed_bytes(2**70) == (2**70).to_bytes(9, "big")
    for bad in (-1, b""):
        with pytest.raises(ValueError):
            seed_bytes(bad)
    # the same number in more bytes seeds the same RNG, but commits to other bytes
    same = [verify.shuffle_of(s, "lishui") for s in (seed_bytes(80), (80).to_bytes(32, "big"))]
    assert same[0] == same[1]
    assert commitment(seed_bytes(80)) != commitment((80).to_bytes(32, "big"))
    assert commitment(b"abc") == hashlib.sha256(b"abc").hexdigest() == verify.commitment_of(b"abc")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_layouts_are_the_variants(variant: str) -> None:
    """The sizes and the indicator rule the procedure documents are the rules core's."""
    ruleset = get_ruleset(variant)
    layout = verify.LAYOUTS[variant]
    assert layout.hand_size == ruleset.hand_size
    assert layout.with_flowers == ruleset.with_flowers
    if ruleset.flower_kinds:
        assert layout.flower_kinds == ruleset.flower_kinds
    for dice in ((a, b) for a in range(1, 7) for b in range(1, 7)):
        slot = ruleset.indicator_slot(dice)
        assert slot == {
            "none": None,
            "tail_dice_sum": ("tail", sum(dice)),
            "tail_low_die_x2": ("tail", 2 * min(dice)),
            "front": ("front", 1),
            "tail_past_flowers": ("tail", 1),
        }[layout.indicator]


def test_the_deal_positions_are_the_cores() -> None:
    from app.rules.wall import Wall, deal

    for size in (13, 16):
        for dealer in range(4):
            hands, _ = deal(Wall.of(tuple(range(144))), dealer, size)
            assert verify.dealt_positions(dealer, size) == hands


# --- real hands verify -----------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_seats_transcript_of_real_hands_verifies(variant: str) -> None:
    for i, seed in enumerate(_seeds(8, salt=99 + len(variant))):
        events = _play(variant, seed, dealer=i % 4, greedy=i % 2 == 0)
        for seat in (0, 1, 2, 3, None):
            verdict = verify.check_hand(_as_seen(events, seat))
            assert verdict.ok, (variant, seed.hex(), seat, verdict)
            assert verdict.dealt == (verify.LAYOUTS[variant].hand_size * 4 + 1
                                     if seat is None else
                                     verify.LAYOUTS[variant].hand_size + (seat == i % 4))


def test_the_documented_hand_verifies() -> None:
    block = DOC.read_text(encoding="utf-8").split("```jsonl\n", 1)[1].split("```", 1)[0]
    verdicts = verify.check_transcript(verify.parse_transcript(block))
    assert [v.status for v in verdicts] == ["verified"]
    assert verdicts[0].hand_id == "T1-1" and verdicts[0].dealt == 14


# --- what fails ------------------------------------------------------------------------


def _hand_with_draws(variant: str = "lishui") -> tuple[bytes, list[Payload]]:
    """Seat 0's transcript of a hand won before the wall ran out, in which it draws from the
    front and from the tail."""
    for n in range(500):
        seed = hashlib.sha256(f"{variant}{n}".encode()).digest()
        seen = _as_seen(_play(variant, seed, greedy=False), 0)
        draws = [e for e in seen if e["kind"] == "drew" and e["tile"] is not None]
        if (len(draws) > 3 and any(d["from_tail"] for d in draws)
                and seen[-1]["outcome"] == "win"):
            return seed, seen
    raise AssertionError("no such hand")


def _other(code: str) -> str:
    return tile_code((parse_one(code) + 1) % 34)


def _taken(seen: list[Payload], size: int = 136, hand_size: int = 13) -> set[int]:
    """The wall positions a 丽水 hand took out: the deal, the front draws, the wild's
    indicator (the (d1 + d2)-th from the tail) and the tail draws, which skip it."""
    left = list(range(size))
    turned = next(e for e in seen if e["kind"] == "wild_turned")
    indicator = left.pop(size - sum(turned["dice"]))
    fronts = sum(1 for e in seen if e["kind"] == "drew" and not e["from_tail"])
    tails = sum(1 for e in seen if e["kind"] == "drew" and e["from_tail"])
    dealt = 4 * hand_size + 1
    return {*left[:dealt + fronts], indicator, *left[len(left) - tails:]}


def test_one_changed_tile_of_the_wall_fails_the_check() -> None:
    """The seat's transcript against the seed's wall with one tile changed: it fails when
    the tile is one that left the wall (any seat's deal or draw, the wild's indicator: the
    whole hand is rebuilt, so another seat's hidden tiles count too) and only then."""
    seed, seen = _hand_with_draws()
    made = verify.shuffle_of(seed, "lishui")
    assert verify.check_hand(seen, shuffle=made).ok

    def changed(position: int) -> verify.Verdict:
        wall = list(made.wall)
        wall[position] = (wall[position] + 1) % 34
        return verify.check_hand(
            seen, shuffle=verify.Shuffle(made.dice, tuple(wall), made.wild_dice))

    dealt = verify.dealt_positions(seen[0]["dealer"], 13)[0]
    verdict = changed(dealt[3])
    assert verdict.status == "failed" and "seat 0's dealt tiles" in verdict.message, verdict
    assert verdict.event == 2 + [e["seat"] for e in seen if e["kind"] == "dealt"].index(0)
    verdicts = [changed(p) for p in range(len(made.wall))]
    failed = {p for p, v in enumerate(verdicts) if not v.ok}
    assert all(v.status == "failed" for v in verdicts if not v.ok)
    assert failed == _taken(seen) and len(failed) < len(made.wall)
    assert any("draw" in v.message and "from the tail" in v.message for v in verdicts)
    assert any("draw" in v.message and "from the front" in v.message for v in verdicts)
    assert any("indicator" in v.message for v in verdicts if not v.ok)
    # another seat's tiles, which this transcript never shows, are checked all the same
    hidden = verify.dealt_positions(seen[0]["dealer"], 13)[2]
    assert all(p in failed for p in hidden)


@pytest.mark.parametrize("kind", ["dealt", "drew_front", "drew_tail", "wild_turned"])
def test_one_changed_tile_of_the_transcript_fails_the_check(kind: str) -> None:
    _, seen = _hand_with_draws()
    doctored = copy.deepcopy(seen)
    if kind == "dealt":
        event = next(e for e in doctored if e["kind"] == "dealt" and e["tiles"])
        event["tiles"][0] = _other(event["tiles"][0])
    elif kind == "wild_turned":
        event = next(e for e in doctored if e["kind"] == "wild_turned")
        event["indicator"] = _other(event["indicator"])
    else:
        tail = kind == "drew_tail"
        event = next(e for e in doctored if e["kind"] == "drew" and e["tile"]
                     and e["from_tail"] == tail)
        event["tile"] = _other(event["tile"])
    verdict = verify.check_hand(doctored)
    assert verdict.status == "failed", verdict
    assert not verify.check_hand(doctored).ok


def test_a_wrong_commitment_or_another_seed_fails() -> None:
    _, seen = _hand_with_draws()
    wrong = copy.deepcopy(seen)
    wrong[0]["commitment"] = hashlib.sha256(b"something else").hexdigest()
    verdict = verify.check_hand(wrong)
    assert verdict.status == "failed" and "commitment" in verdict.message
    # another seed whose commitment the server would have published instead: the
    # commitment check catches the swap even though the new seed's hash is consistent
    other = copy.deepcopy(seen)
    other[-1]["seed"] = bytes(32).hex()
    assert verify.check_hand(other).status == "failed"
    # the right commitment for another seed: the deal is not that seed's
    swapped = copy.deepcopy(other)
    swapped[0]["commitment"] = commitment(bytes(32))
    verdict = verify.check_hand(swapped)
    assert verdict.status == "failed" and "commitment" not in verdict.message
    for bad in (None, "zz", "0"):
        broken = copy.deepcopy(seen)
        broken[-1]["seed"] = bad
        assert verify.check_hand(broken).status == "failed"


def test_other_dice_fail() -> None:
    _, seen = _hand_with_draws()
    doctored = copy.deepcopy(seen)
    doctored[0]["dice"] = [doctored[0]["dice"][0] % 6 + 1, doctored[0]["dice"][1]]
    verdict = verify.check_hand(doctored)
    assert verdict.status == "failed" and "dice" in verdict.message
    wild = copy.deepcopy(seen)
    turned = next(e for e in wild if e["kind"] == "wild_turned")
    turned["dice"] = [turned["dice"][0] % 6 + 1, turned["dice"][1]]
    assert verify.check_hand(wild).status == "failed"


@pytest.mark.parametrize("where", ["dice", "wild_dice", "melds", "flowers"])
def test_a_number_where_a_list_belongs_is_a_mismatch_not_a_crash(where: str) -> None:
    _, seen = _hand_with_draws()
    doctored = copy.deepcopy(seen)
    if where == "dice":
        doctored[0]["dice"] = 5
    elif where == "wild_dice":
        next(e for e in doctored if e["kind"] == "wild_turned")["dice"] = 7
    else:
        doctored[-1][where][1] = 1
    verdict = verify.check_hand(doctored)
    assert verdict.status == "failed", verdict


def test_a_test_mode_hand_an_unfinished_one_and_one_joined_midway_are_not_verified() -> None:
    ruleset = get_ruleset("lishui")
    preset = arrange(ruleset, dealer=0, hands=["566778899m11s667z", "13579m2468s3344z",
                                                "123456789p111z5m", "234567s234m222z5m"],
                     indicator="9s")
    _, events = new_hand(ruleset, b"\x01" * 32, TableContext(), preset)
    assert events[0].commitment is None  # type: ignore[attr-defined]
    verdict = verify.check_hand(_as_seen(events, 0))
    assert verdict.status == "test_mode" and not verdict.ok
    _, seen = _hand_with_draws()
    assert verify.check_hand(seen[:-1]).status == "incomplete"
    assert verify.check_hand(seen[5:]).status == "incomplete"
    assert verify.check_hand([]).status == "incomplete"


def test_the_seed_is_revealed_only_by_hand_ended_and_matches_the_commitment() -> None:
    seed = random.Random(5).randbytes(32)
    events = _play("fuzhou", seed)
    text = [json.dumps(p) for p in _as_seen(events, 0)]
    assert all(seed.hex() not in line for line in text[:-1])
    assert json.loads(text[-1])["seed"] == seed.hex()
    assert json.loads(text[0])["commitment"] == hashlib.sha256(seed).hexdigest()


# --- the command -----------------------------------------------------------------------


def _run(args: list[str], monkeypatch: pytest.MonkeyPatch, stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    monkeypatch.setattr("sys.stdout", out)
    return verify.main(args), out.getvalue()


def test_the_command_says_ok_or_the_first_mismatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = transcript()
    path = tmp_path / "hand.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out = _run([str(path)], monkeypatch)
    assert code == 0 and out.startswith("OK hand T1-1:"), out

    code, out = _run([], monkeypatch, stdin="\n".join(lines))
    assert code == 0 and out.startswith("OK")

    changed = [re.sub(r'"tiles":\["2m"', '"tiles":["3m"', line) for line in lines]
    assert changed != lines
    code, out = _run(["-"], monkeypatch, stdin="\n".join(changed))
    assert code == 1 and re.match(r"MISMATCH hand T1-1: event 2 \(seq \d+\), dealt: seat 0's "
                                  r"dealt tiles: the seed deals 2m ", out), out

    code, out = _run(["-"], monkeypatch, stdin="")
    assert code == 1 and "no hand" in out
    code, _ = _run([str(tmp_path / "missing.jsonl")], monkeypatch)
    assert code == 1


def test_the_command_reads_a_json_array_and_a_replays_answer(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = [json.loads(line) for line in transcript()]
    code, out = _run([], monkeypatch, stdin=json.dumps(messages))
    assert code == 0, out
    events = [m["event"] for m in messages if m["type"] == "event"]
    replay = {"hand_id": "T1-1", "variant": "lishui", "events": events}
    code, out = _run([], monkeypatch, stdin=json.dumps(replay))
    assert code == 0 and out.startswith("OK hand T1-1"), out
    # two hands back to back, as bare payloads: each is checked
    other = _as_seen(_play("huzhou", b"\x02" * 32), 2)
    verdicts = verify.check_transcript([*events, *other])
    assert [v.status for v in verdicts] == ["verified", "verified"]


def test_the_documented_test_vector_is_the_procedures() -> None:
    """docs/protocol.md, "Verifying a hand", gives a seed with its commitment, key, first
    outputs, dice and walls for other implementations: they are what the code computes."""
    doc = " ".join(DOC.read_text(encoding="utf-8").split())
    seed = hashlib.sha256(b"zjmahjong").digest()
    n = int.from_bytes(seed, "big")
    rng = random.Random(n)
    key = ", ".join(f"0x{(n >> (32 * k)) & 0xFFFFFFFF:08x}" for k in range(8))
    lishui, fuzhou = verify.shuffle_of(seed, "lishui"), verify.shuffle_of(seed, "fuzhou")
    facts = [
        f"the seed `{seed.hex()}` has the commitment `{hashlib.sha256(seed).hexdigest()}`",
        f"the key `[{key}]`",
        "first three 32-bit outputs are " + ", ".join(str(rng.getrandbits(32)) for _ in range(2))
        + f", {rng.getrandbits(32)}",
        f"In 丽水 it rolls {lishui.dice[0]} and {lishui.dice[1]}",
        "wall begins `" + " ".join(tile_code(t) for t in lishui.wall[:16]) + "` and ends `"
        + " ".join(tile_code(t) for t in lishui.wall[-4:]) + "`",
        f"the wild's dice are {lishui.wild_dice[0]} and {lishui.wild_dice[1]}. In 福州",
        f"it also rolls {fuzhou.dice[0]} and {fuzhou.dice[1]}, the wall begins `"
        + " ".join(tile_code(t) for t in fuzhou.wall[:16]) + "`",
        f"the wild's dice are {fuzhou.wild_dice[0]} and {fuzhou.wild_dice[1]}. (The",
    ]
    for fact in facts:
        assert fact in doc, fact

"""The client kit's verifier (clients/js/src/verify.js) gives the Python verifier's verdict
(app/rules/verify.py) on the same transcripts: the status, the failing event's place and
seq, the sentence, and the tiles compared. Self-play and bot hands of every variant, from
every seat's view and an administrator's, untouched and tampered the ways issue 36 names (a
changed discard, a changed own draw, another seat's revealed hand, a claim with tiles not
held, a removed event, swapped discards), randomly changed fields (wrong types included),
whole transcripts of messages with copies resent after a reconnect, and a hand cut short
checked against a known wall.

Runs tests/kit/verify_agrees.mjs under node when `TEST_NODE` names it (tests/nodejs.py;
.ci/run sets it), skips otherwise: the README's test command needs only Python."""

from __future__ import annotations

import copy
import json
import random
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from app.rules import verify
from app.rules.tiles import parse_one, tile_code
from app.rules.variants import VARIANTS
from tests.nodejs import node_environment, node_path
from tests.rules.test_verify_play import VIEWS, Played, _hands

Payload = dict[str, Any]
DRIVER = Path(__file__).with_name("verify_agrees.mjs")
HANDS_PER_VARIANT = 10
FIELD_CHANGES = 6  # random field changes per transcript


def _javascript(cases: list[Payload]) -> list[Any]:
    """Each case's verdict(s) from the kit: {events, shuffle?} by checkHand, {messages} by
    checkTranscript."""
    node = node_path()
    done = subprocess.run(
        [str(node), str(DRIVER)], input=json.dumps(cases), env=node_environment(node),
        capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def _fields(verdict: verify.Verdict) -> Payload:
    return {"status": verdict.status, "message": verdict.message, "event": verdict.event,
            "seq": verdict.seq, "dealt": verdict.dealt, "draws": verdict.draws,
            "handId": verdict.hand_id}


def _python(case: Payload) -> Any:
    if "messages" in case:
        return [_fields(v) for v in verify.check_transcript(case["messages"])]
    shuffle = case.get("shuffle")
    made = None if shuffle is None else verify.Shuffle(
        tuple(shuffle["dice"]), tuple(shuffle["wall"]), tuple(shuffle["wildDice"]))
    return _fields(verify.check_hand(case["events"], shuffle=made))


def _kept(verdict: Payload) -> Payload:
    return {k: verdict[k] for k in ("status", "message", "event", "seq", "dealt", "draws",
                                    "handId")}


# --- the tamperings --------------------------------------------------------------------


def _other(code: str) -> str:
    return tile_code((parse_one(code) + 1) % 34)


def _changed_discard(seen: list[Payload], view: int | None) -> list[Payload] | None:
    """Another seat's discard changed to the next kind."""
    at = [i for i, e in enumerate(seen) if e["kind"] == "discarded" and e["seat"] != view]
    if not at:
        return None
    out = copy.deepcopy(seen)
    out[at[len(at) // 2]]["tile"] = _other(out[at[len(at) // 2]]["tile"])
    return out


def _changed_draw(seen: list[Payload], view: int | None) -> list[Payload] | None:
    """The view's own last shown draw changed."""
    at = [i for i, e in enumerate(seen) if e["kind"] == "drew" and e["tile"]]
    if not at:
        return None
    out = copy.deepcopy(seen)
    out[at[-1]]["tile"] = _other(out[at[-1]]["tile"])
    return out


def _changed_revealed_hand(seen: list[Payload], view: int | None) -> list[Payload] | None:
    """Another seat's hand as hand_ended reveals it."""
    out = copy.deepcopy(seen)
    shown = out[-1]["hands"][((view or 0) + 2) % 4]
    if shown:
        shown[0] = _other(shown[0])
    else:
        shown.append("1m")
    return out


def _moved_claim(seen: list[Payload], view: int | None) -> list[Payload] | None:
    """A 吃/碰/明杠 made by a seat that did not make it (which does not hold its tiles, or
    then plays out of turn)."""
    at = next((i for i, e in enumerate(seen)
               if e["kind"] == "melded" and e["meld"] in ("chow", "pung", "exposed_kong")), None)
    if at is None:
        return None
    out = copy.deepcopy(seen)
    claim = out[at]
    claim["seat"] = next(s for s in range(4) if s not in (claim["seat"], claim["from_seat"]))
    return out


def _removed_event(seen: list[Payload], view: int | None) -> list[Payload] | None:
    """One event that moves a tile or the turn taken out."""
    at = [i for i in range(1, len(seen) - 1)
          if seen[i]["kind"] not in ("decided", "penalized")]
    if not at:
        return None
    i = at[(len(seen) * 7 + (view or 5)) % len(at)]
    return seen[:i] + seen[i + 1:]


def _swapped_discards(seen: list[Payload], view: int | None) -> list[Payload] | None:
    """Two seats' discards of different tiles, one after the other, swapped in place."""
    at = [i for i, e in enumerate(seen) if e["kind"] == "discarded"]
    pairs = [(a, b) for a, b in pairwise(at)
             if seen[a]["seat"] != seen[b]["seat"] and seen[a]["tile"] != seen[b]["tile"]]
    if not pairs:
        return None
    a, b = pairs[len(pairs) // 2]
    out = copy.deepcopy(seen)
    out[a], out[b] = out[b], out[a]
    return out


Tamper = Callable[[list[Payload], int | None], list[Payload] | None]
TAMPERINGS: list[Tamper] = [_changed_discard, _changed_draw, _changed_revealed_hand,
                            _moved_claim, _removed_event, _swapped_discards]

ODD: list[object] = [None, True, False, 0, 1, 3, 4, -1, "1m", "5z", "8f", "x", "", [], ["1m"], {"a": 1},
       "it's", 'say "so"', "1 m", [1, 2]]  # fmt: skip


def _field_changed(seen: list[Payload], rng: random.Random) -> list[Payload]:
    """One field of one event set to another value: a near one (a seat, a tile) or an odd
    one (null, a boolean, a list, a string with quotes, a field gone)."""
    out = copy.deepcopy(seen)
    event = out[rng.randrange(len(out))]
    key = rng.choice(sorted(event))
    value = event[key]
    if isinstance(value, list) and value and rng.random() < 0.5:
        i = rng.randrange(len(value))
        value[i] = rng.choice(["1m", "5z", "3p", "1f", *ODD[:8]])
    elif isinstance(value, str) and rng.random() < 0.6:
        event[key] = rng.choice(["1m", "2m", "5z", "3p", "1f", "9s", "6p"])
    elif type(value) is int and rng.random() < 0.6:
        event[key] = value + rng.choice((-1, 1, 2))
    elif rng.random() < 0.1:
        del event[key]
    else:
        event[key] = rng.choice(ODD)
    return out


# --- the cases -------------------------------------------------------------------------


def _played() -> Iterator[Played]:
    for variant in sorted(VARIANTS):
        yield from _hands(variant, HANDS_PER_VARIANT, salt="agree")


def _hand_cases() -> tuple[list[Payload], list[bool]]:
    """Every hand from every view, untouched, tampered each way and with fields changed;
    without its end or its start, and as a test-mode hand; and whether each case must fail
    (the tamperings)."""
    cases: list[Payload] = []
    must_fail: list[bool] = []
    rng = random.Random("js-agrees")
    for played in _played():
        whole = played.seen(None)
        test_mode = copy.deepcopy(whole)
        test_mode[0]["commitment"] = None
        cases += [{"events": whole[:-1]}, {"events": whole[1:]}, {"events": test_mode}]
        must_fail += [False] * 3
        for view in VIEWS:
            seen = played.seen(view)
            cases.append({"events": seen})
            must_fail.append(False)
            for tamper in TAMPERINGS:
                changed = tamper(seen, view)
                if changed is not None:
                    cases.append({"events": changed})
                    must_fail.append(True)
            for _ in range(FIELD_CHANGES):
                cases.append({"events": _field_changed(seen, rng)})
                must_fail.append(False)
    return cases, must_fail


def test_the_kit_gives_pythons_verdict_on_every_variants_hands_and_tamperings() -> None:
    cases, must_fail = _hand_cases()
    expected = [_python(c) for c in cases]
    got = [_kept(v) for v in _javascript(cases)]
    differ = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not differ, f"{len(differ)} of {len(cases)} differ, first: {differ[:3]}"
    statuses = Counter(e["status"] for e in expected)
    assert statuses["verified"] >= len(VARIANTS) * HANDS_PER_VARIANT * len(VIEWS)
    assert statuses["incomplete"] >= 2 * len(VARIANTS) * HANDS_PER_VARIANT
    assert statuses["test_mode"] >= len(VARIANTS) * HANDS_PER_VARIANT
    assert [e["status"] for e, fail in zip(expected, must_fail, strict=True) if fail] == \
        ["failed"] * sum(must_fail)
    # the failures are spread over the hand and over the checks, not all at the first event
    failed_at = {e["event"] for e in expected if e["status"] == "failed"}
    assert len(failed_at) > 50


def test_the_kit_reads_transcripts_of_messages_as_the_command_does() -> None:
    """Whole transcripts of event messages (seq, hand id), with copies resent after a
    reconnect, a snapshot of a hand joined midway, and a replay's answer; untouched, and
    with a discard's seat changed: the same hands, verdicts and seqs."""
    cases: list[Payload] = []
    for n, played in enumerate(_hands("huzhou", 4, salt="agree-messages")):
        seen = played.seen(n % 4)
        messages: list[Payload] = [
            {"type": "event", "table_id": "T", "hand_id": f"H{n}", "seq": 10 + i,
             "event": e} for i, e in enumerate(seen)]
        resent = messages[:20] + messages[12:]
        cases.append({"messages": resent})
        bad = copy.deepcopy(resent)
        at = next(i for i, m in enumerate(bad) if m["event"]["kind"] == "discarded")
        bad[at]["event"]["seat"] = (bad[at]["event"]["seat"] + 1) % 4
        cases.append({"messages": [{"type": "snapshot", "hand_id": "J"}, *bad]})
        cases.append({"messages": [{"hand_id": f"R{n}", "events": played.seen(None)}]})
    expected = [_python(c) for c in cases]
    got = [[_kept(v) for v in verdicts] for verdicts in _javascript(cases)]
    assert got == expected
    statuses = [v["status"] for verdicts in expected for v in verdicts]
    assert statuses.count("failed") == 4 and statuses.count("incomplete") == 4
    assert all(v["seq"] is not None for verdicts in expected for v in verdicts
               if v["status"] == "failed")


def test_the_kit_follows_a_hand_cut_short_over_a_known_wall() -> None:
    """With the wall given (a test's; no seed is revealed before the end), a hand cut short
    is checked as far as it goes: incomplete while it fits, failed at a changed discard."""
    cases: list[Payload] = []
    for played in _hands("lishui", 4, salt="agree-cut"):
        seen = played.seen(0)
        made = verify.shuffle_of(bytes.fromhex(seen[-1]["seed"]), "lishui")
        shuffle = {"dice": list(made.dice), "wall": list(made.wall),
                   "wildDice": list(made.wild_dice)}
        half = seen[: len(seen) // 2]
        cases.append({"events": half, "shuffle": shuffle})
        changed = _changed_discard(half, 0)
        if changed is not None:
            cases.append({"events": changed, "shuffle": shuffle})
    expected = [_python(c) for c in cases]
    assert [_kept(v) for v in _javascript(cases)] == expected
    assert {e["status"] for e in expected} == {"incomplete", "failed"}


@pytest.fixture(autouse=True)
def _needs_node() -> None:
    node_path()  # skips with the reason before any hand is played

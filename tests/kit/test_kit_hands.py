"""The hands the client kit's own tests verify (clients/js/test/hands.jsonl): bots' hands of
every variant as one seat received them, event messages one per line (each hand's id names
its variant, its number and the seat), chosen so that together they hold every event kind
the verifier follows, every kind of set and every way a hand ends. `npm test` runs without
Python, so they are checked in; this test holds them to the server: every payload is one the
current protocol sends, and the Python verifier verifies every hand.

    .venv/bin/python -m tests.kit.test_kit_hands     # writes the file again

(after a change to the event payloads or the bots; the kit's tests then run on the new
hands). The kit's tests tamper with these hands; tests/kit/test_verify_agrees.py compares the
two verifiers on many more."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.protocol.events import EVENT_PAYLOAD
from app.rules import verify
from app.rules.variants import VARIANTS
from app.rules.verify_play import FOLLOWED
from tests.rules.test_verify_play import Played, _hands

HANDS = Path(__file__).resolve().parents[2] / "clients" / "js" / "test" / "hands.jsonl"
SEARCHED = 40  # bots' hands looked at per variant
MELDS = {"chow", "pung", "exposed_kong", "concealed_kong", "added_kong"}
OUTCOMES = {"win", "draw", "escape"}


def _kinds(played: Played) -> set[str]:
    """What a hand holds that the kit's tests should meet: its event kinds, its sets' kinds
    and its outcome."""
    out: set[str] = set()
    for e in played.seen(None):
        out.add(e["kind"])
        if e["kind"] == "melded":
            out.add(e["meld"])
        if e["kind"] == "hand_ended":
            out.add(e["outcome"])
    return out


def _view(played: Played, n: int) -> int:
    """A seat that did not declare a 暗杠 when the hand has one (its tiles are then hidden
    from the view until hand_ended, the case to follow), else seat n mod 4."""
    kongs = {e["seat"] for e in played.seen(None) if e.get("meld") == "concealed_kong"}
    return next(s for s in ((n + k) % 4 for k in range(4)) if s not in kongs or len(kongs) == 4)


def chosen() -> list[tuple[str, int, int, Played]]:
    """One hand of each variant, the one that holds the most (the shorter on a tie), then
    more (greedily, any variant) while the bots' hands searched hold something they do not:
    (variant, hand number, seat, hand)."""
    found = [(variant, n, played, _kinds(played), len(played.events))
             for variant in sorted(VARIANTS)
             for n, played in enumerate(_hands(variant, SEARCHED, salt="kit"))]
    wanted = set().union(*(kinds for *_, kinds, _ in found))
    picked = [max((f for f in found if f[0] == variant), key=lambda f: (len(f[3]), -f[4]))
              for variant in sorted(VARIANTS)]
    wanted -= set().union(*(f[3] for f in picked))
    while wanted:
        best = max(found, key=lambda f: (len(f[3] & wanted), -f[4]))
        wanted -= best[3]
        picked.append(best)
    return [(variant, n, _view(played, n), played) for variant, n, played, _, _ in picked]


def lines() -> list[str]:
    out = []
    for variant, n, seat, played in chosen():
        for seq, event in enumerate(played.seen(seat), start=1):
            out.append(json.dumps({"type": "event", "table_id": "kit",
                                   "hand_id": f"{variant}-{n}-seat{seat}", "seq": seq,
                                   "event": event}, ensure_ascii=False, separators=(",", ":")))
    return out


def _read() -> list[dict[str, Any]]:
    return [json.loads(line) for line in HANDS.read_text("utf-8").splitlines() if line]


def test_the_kits_hands_are_payloads_the_server_sends_and_verify() -> None:
    messages = _read()
    for message in messages:
        EVENT_PAYLOAD.validate_python(message["event"])
    verdicts = verify.check_transcript(messages)
    assert [(v.hand_id, v.status) for v in verdicts] == [(v.hand_id, "verified") for v in verdicts]
    assert {str(v.hand_id).split("-")[0] for v in verdicts} == set(VARIANTS)


def test_the_kits_hands_hold_every_event_set_and_ending() -> None:
    held: set[str] = set()
    for message in _read():
        event = message["event"]
        held |= {event["kind"], event.get("meld"), event.get("outcome")} - {None}
    assert FOLLOWED | MELDS | OUTCOMES <= held
    # another seat's 暗杠, which the view follows from hand_ended's sets
    assert any(m["event"].get("meld") == "concealed_kong" and m["event"]["tiles"] is None
               for m in _read())


if __name__ == "__main__":
    HANDS.write_text("\n".join(lines()) + "\n", encoding="utf-8")
    print(f"wrote {HANDS}")

"""Verifying a hand: recompute its wall and dice from the seed it revealed, check the seed
against the commitment published before the deal, and rebuild the whole hand from that wall:
every seat's deal and draws, then each recorded event in order, down to the hands
`hand_ended` reveals (docs/protocol.md, "Verifying a hand", states the procedure for other
implementations). The client kit's clients/js/src/verify.js, which the browser client
imports, is its twin in JavaScript: the same whole-hand check, the same verdicts and the same
sentences, held equal by tests/kit/test_verify_agrees.py.

    python -m app.rules.verify transcript.jsonl     # or: ... < transcript.jsonl

The input is one seat's messages as the server sent them, one JSON object per line (the
shape of docs/protocol.md's "A complete hand"), a JSON array of them, or the answer of
`GET /hands/{id}/replay`. Every hand in it is checked; the command prints one line per
hand, ``OK`` or the first mismatch (which event, its seq, which seat, what the wall made
instead), and exits 0 when every hand verified, 1 otherwise.

This module makes the wall (the seed, the commitment, the shuffle) and reads transcripts;
`app.rules.verify_play` replays the hand over the wall, `app.rules.verify_tiles` keeps
the count of its tiles. The procedure is written out from
CPython's documented `random.Random(int)` and `getrandbits` alone, apart from the rules
core's own shuffle (`app.rules.wall`), so that a test comparing the two checks the
document, and the functions are pure (no I/O): `main` alone reads and prints. Nothing here
imports more than the standard library and `app.rules.tiles`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.rules.verify_play import HandReplay
from app.rules.verify_tiles import (
    LAYOUTS,
    Layout,
    Mismatch,
    Unfollowable,
    dealt_positions,
    listed,
)

__all__ = [
    "LAYOUTS", "HandEvents", "Layout", "Shuffle", "Status", "Verdict", "check_hand",
    "check_transcript", "commitment_of", "dealt_positions", "hands_of", "main",
    "parse_transcript", "read_hands", "shuffle_of", "tile_set",
]

Dice = tuple[int, int]
Status = Literal["verified", "failed", "test_mode", "incomplete"]


# --- from the seed to the wall and the dice --------------------------------------------


def commitment_of(seed: bytes) -> str:
    """The commitment to a seed: its SHA-256, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def tile_set(variant: str) -> list[int]:
    """The tile set in its canonical order, before the shuffle: each of the 34 kinds 1m-9m,
    1p-9p, 1s-9s, 1z-7z four times in a row (1m 1m 1m 1m 2m ...), then the 8 flowers 1f-8f
    once each in the variants with flowers. (Kinds are ints 0-41 in that order.)"""
    tiles = [kind for kind in range(34) for _ in range(4)]
    if LAYOUTS[_layout_name(variant)].with_flowers:
        tiles += range(34, 42)
    return tiles


def _below(getrandbits: Callable[[int], int], n: int) -> int:
    # k = n.bit_length() bits, drawn again while they make n or more
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


@dataclass(frozen=True, slots=True)
class Shuffle:
    """What a seed makes: the first roll (`hand_started.dice`), the wall in order (index 0
    is drawn first; the last tile is the tail), and the second roll (the wild's dice)."""

    dice: Dice
    wall: tuple[int, ...]
    wild_dice: Dice


def shuffle_of(seed: bytes, variant: str) -> Shuffle:
    """The procedure: ``rng = random.Random(int.from_bytes(seed, "big"))``, then with
    ``below(n)`` as above: two dice ``1 + below(6)``; the canonical tile set shuffled by
    Fisher-Yates from the last place down (``for i = len-1 .. 1: j = below(i + 1); swap
    i, j``); two more dice."""
    rng = random.Random(int.from_bytes(seed, "big"))
    bits = rng.getrandbits
    dice = (1 + _below(bits, 6), 1 + _below(bits, 6))
    wall = tile_set(variant)
    for i in range(len(wall) - 1, 0, -1):
        j = _below(bits, i + 1)
        wall[i], wall[j] = wall[j], wall[i]
    wild_dice = (1 + _below(bits, 6), 1 + _below(bits, 6))
    return Shuffle(dice, tuple(wall), wild_dice)


# --- checking a seat's transcript ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """The check of one hand: `status` (verified, failed, test_mode: dealt from a prepared
    wall, incomplete: the transcript cannot show it), a sentence, and what was compared."""

    status: Status
    message: str
    hand_id: str | None = None
    dealt: int = 0  # dealt tiles shown in the transcript and compared
    draws: int = 0  # drawn tiles shown in the transcript and compared
    event: int | None = None  # where it failed: the event's place in the hand (1: hand_started)
    seq: int | None = None  # and its seq, where the transcript has one

    @property
    def ok(self) -> bool:
        return self.status == "verified"


def check_hand(
    events: Sequence[Mapping[str, Any]],
    *,
    hand_id: str | None = None,
    shuffle: Shuffle | None = None,
    seqs: Sequence[int | None] | None = None,
) -> Verdict:
    """Check one hand from the event payloads a seat received (``event`` of each `event`
    message, in order: `hand_started` first, `hand_ended` last): the seed against the
    commitment, the dice, then the whole hand replayed over the seed's wall
    (`verify_play.HandReplay`): every deal, draw, flower, wild, discard, claim, kong and win,
    and the hands `hand_ended` reveals. `shuffle` replaces the seed's wall (a test's doctored
    wall; the commitment is still checked on the seed), and with it a hand that has not
    ended is checked as far as it goes. `seqs`: each event's `seq`, for the messages."""
    if not events or events[0].get("kind") != "hand_started":
        return Verdict("incomplete", "the transcript does not start with the hand's hand_started "
                       "(resumed from a snapshot?): its deal cannot be checked", hand_id)
    started = events[0]
    promised = started.get("commitment")
    if promised is None:
        return Verdict("test_mode", "dealt from a prepared wall (test mode): no seed made it, "
                       "nothing to verify", hand_id)
    end = next((i for i, e in enumerate(events) if e.get("kind") == "hand_ended"), None)
    if end is None and shuffle is None:
        return Verdict("incomplete", "the hand has not ended: its seed is not revealed yet",
                       hand_id)
    at = 0 if end is None else end
    try:
        if end is not None:
            seed = _revealed_seed(events[end], promised)
            shuffle = shuffle or shuffle_of(seed, str(_layout_name(started.get("variant"))))
        assert shuffle is not None
        at = 0
        layout = _check_start(started, shuffle)
        replay = HandReplay(layout, shuffle.wall, shuffle.wild_dice, started["dealer"],
                            None if end is None else events[end])
        for at in range(1, len(events)):
            if end is not None and at > end:
                raise Mismatch("an event after hand_ended")
            replay.feed(events[at])
    except Mismatch as wrong:
        return _failed(str(wrong), events, at, seqs, hand_id)
    except Unfollowable as lost:
        return Verdict("incomplete", f"{lost}: checked as far as {_where(events, at, seqs)}",
                       hand_id, replay.compared_dealt, replay.compared_draws, at + 1)
    if end is None:
        return Verdict("incomplete", f"the hand has not ended: its {len(events)} events fit the "
                       "wall as far as they go", hand_id, replay.compared_dealt,
                       replay.compared_draws)
    return Verdict(
        "verified",
        f"the seed matches the commitment, and the whole hand follows from its wall: the dice, "
        f"the deal, {len(events) - 2} events and every revealed hand ({replay.compared_dealt} "
        f"dealt tiles and {replay.compared_draws} draws shown here compared)",
        hand_id, replay.compared_dealt, replay.compared_draws)


def _revealed_seed(ended: Mapping[str, Any], promised: object) -> bytes:
    seed_hex = ended.get("seed")
    if not isinstance(seed_hex, str):
        raise Mismatch("hand_ended reveals no seed, though hand_started committed to one")
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise Mismatch(f"the revealed seed is not hex: {seed_hex!r}") from None
    if commitment_of(seed) != promised:
        raise Mismatch(f"the seed does not match the commitment: sha256(seed) = "
                       f"{commitment_of(seed)}, hand_started promised {promised}")
    return seed


def _layout_name(variant: object) -> str:
    if not isinstance(variant, str) or variant not in LAYOUTS:
        raise Mismatch(f"unknown variant {variant!r}")
    return variant


def _check_start(started: Mapping[str, Any], made: Shuffle) -> Layout:
    """`hand_started` against the seed: the variant, the dice, the wall's size, a dealer."""
    layout = LAYOUTS[_layout_name(started.get("variant"))]
    if listed(started.get("dice")) != list(made.dice):
        raise Mismatch(f"the dice: the seed rolls {list(made.dice)}, hand_started shows "
                       f"{started.get('dice')}")
    if started.get("wall_size") != len(made.wall):
        raise Mismatch(f"the wall has {len(made.wall)} tiles, hand_started says "
                       f"{started.get('wall_size')}")
    if started.get("dealer") not in (0, 1, 2, 3):
        raise Mismatch(f"hand_started names no dealer: {started.get('dealer')!r}")
    return layout


def _where(events: Sequence[Mapping[str, Any]], at: int, seqs: Sequence[int | None] | None) -> str:
    """Event `at` named for a reader: its place in the hand (1 = hand_started), its seq when
    the transcript has one, and its kind."""
    seq = seqs[at] if seqs is not None and at < len(seqs) else None
    kind = events[at].get("kind") if at < len(events) else None
    return f"event {at + 1}" + ("" if seq is None else f" (seq {seq})") + f", {kind}"


def _failed(
    message: str,
    events: Sequence[Mapping[str, Any]],
    at: int,
    seqs: Sequence[int | None] | None,
    hand_id: str | None,
) -> Verdict:
    seq = seqs[at] if seqs is not None and at < len(seqs) else None
    return Verdict("failed", f"{_where(events, at, seqs)}: {message}", hand_id, event=at + 1,
                   seq=seq)

# --- reading transcripts ---------------------------------------------------------------


@dataclass(slots=True)
class HandEvents:
    """One hand's event payloads in order, with each one's `seq` (None: a bare payload)."""

    hand_id: str | None
    events: list[Mapping[str, Any]] = field(default_factory=list)
    seqs: list[int | None] = field(default_factory=list)


def read_hands(messages: Iterable[Mapping[str, Any]]) -> list[HandEvents]:
    """The events of each hand in `messages`, in order, by hand id: server messages
    (``event`` messages; others are skipped), bare event payloads (a replay's `events`), or
    a replay answer (an object with `hand_id` and `events`). An event message whose `seq`
    is not above the last one of its hand is a copy resent after a reconnect and is
    dropped, as a client drops it (docs/protocol.md, "resume")."""
    hands: list[HandEvents] = []
    by_id: dict[str | None, HandEvents] = {}
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        if isinstance(message.get("events"), list):  # GET /hands/{id}/replay
            hands += read_hands({"type": "event", "hand_id": message.get("hand_id"), "event": e}
                                for e in message["events"])
            continue
        seq = None
        if message.get("type") == "event" and isinstance(message.get("event"), Mapping):
            hand_id, payload = message.get("hand_id"), message["event"]
            seq = message.get("seq") if type(message.get("seq")) is int else None
        elif message.get("type") == "snapshot":
            hand_id, payload = message.get("hand_id"), None  # a hand joined midway
        elif "kind" in message:
            hand_id, payload = None, message
        else:
            continue
        if payload is not None and payload.get("kind") == "hand_started" and hand_id is None:
            by_id.pop(None, None)  # bare payloads: each hand_started starts a hand
        hand = by_id.get(hand_id)
        if hand is None:
            hand = by_id[hand_id] = HandEvents(hand_id)
            hands.append(hand)
        if payload is None:
            continue
        last = next((s for s in reversed(hand.seqs) if s is not None), None)
        if seq is not None and last is not None and seq <= last:
            continue  # a duplicate
        hand.events.append(payload)
        hand.seqs.append(seq)
    return hands


def hands_of(
    messages: Iterable[Mapping[str, Any]],
) -> list[tuple[str | None, list[Mapping[str, Any]]]]:
    """`read_hands` as (hand id, event payloads) pairs."""
    return [(hand.hand_id, hand.events) for hand in read_hands(messages)]


def check_transcript(messages: Iterable[Mapping[str, Any]]) -> list[Verdict]:
    """`check_hand` for every hand of a transcript."""
    return [check_hand(hand.events, hand_id=hand.hand_id, seqs=hand.seqs)
            for hand in read_hands(messages)]


def parse_transcript(text: str) -> list[Any]:
    """JSON lines, a JSON array of messages, or one JSON object (a replay's answer)."""
    stripped = text.strip()
    if not stripped:
        return []
    try:
        whole = json.loads(stripped)
    except json.JSONDecodeError:
        return [json.loads(line) for line in stripped.splitlines() if line.strip()]
    return whole if isinstance(whole, list) else [whole]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.rules.verify",
        description="Check hands against their seeds: the commitment, the dice, and the whole "
        "hand rebuilt from the wall: every deal, draw, discard, claim, kong, win and revealed "
        "hand (docs/protocol.md, 'Verifying a hand').",
    )
    parser.add_argument("transcript", nargs="?", default="-",
                        help="a seat's messages as JSON lines (or a JSON array, or a replay's "
                        "answer); - or nothing: standard input")
    args = parser.parse_args(argv)
    try:
        if args.transcript == "-":
            text = sys.stdin.read()
        else:
            with open(args.transcript, encoding="utf-8") as f:
                text = f.read()
        messages = parse_transcript(text)
    except (OSError, ValueError) as err:
        print(f"cannot read the transcript: {err}", file=sys.stderr)
        return 1
    verdicts = check_transcript(messages)
    if not verdicts:
        print("no hand in the transcript")
        return 1
    for v in verdicts:
        label = "OK" if v.ok else {"failed": "MISMATCH", "test_mode": "NOT VERIFIABLE",
                                   "incomplete": "INCOMPLETE"}.get(v.status, v.status.upper())
        print(f"{label} hand {v.hand_id or '?'}: {v.message}")
    return 0 if all(v.ok for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Verifying a hand: recompute its wall and dice from the seed it revealed, and check them
against the commitment published before the deal and against what a seat was dealt and
drew (docs/protocol.md, "Verifying a hand", states the procedure for other
implementations; the browser runs the same check in app/web/static/js/verify.js).

    python -m app.rules.verify transcript.jsonl     # or: ... < transcript.jsonl

The input is one seat's messages as the server sent them, one JSON object per line (the
shape of docs/protocol.md's "A complete hand"), a JSON array of them, or the answer of
`GET /hands/{id}/replay`. Every hand in it is checked; the command prints one line per
hand, ``OK`` or the first mismatch, and exits 0 when every hand verified, 1 otherwise.

The procedure is written out here from CPython's documented `random.Random(int)` and
`getrandbits` alone, apart from the rules core's own shuffle (`app.rules.wall`), so that a
test comparing the two checks the document, and the functions are pure (no I/O): `main`
alone reads and prints. Nothing here imports more than the standard library and
`app.rules.tiles`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.rules.tiles import TileError, parse_one, tile_code

Dice = tuple[int, int]
Status = Literal["verified", "failed", "test_mode", "incomplete"]
IndicatorRule = Literal["none", "tail_dice_sum", "tail_low_die_x2", "front", "tail_past_flowers"]


@dataclass(frozen=True, slots=True)
class Layout:
    """What the procedure needs to know of a variant (the variants' defaults; a test keeps
    these equal to the rules core's)."""

    hand_size: int  # tiles dealt to each seat; the dealer gets one more
    with_flowers: bool  # 144 tiles: the 8 flowers after the 136
    indicator: IndicatorRule  # where the wild's indicator is turned (`check_hand`)
    flower_kinds: frozenset[int] = frozenset()  # kinds laid out (补花) and skipped by 开金


HONOURS_AND_FLOWERS = frozenset(range(27, 42))
LAYOUTS: dict[str, Layout] = {
    "lishui": Layout(13, False, "tail_dice_sum"),
    "wenzhou": Layout(16, False, "tail_low_die_x2"),
    "huzhou": Layout(13, False, "front"),
    "fuzhou": Layout(16, True, "tail_past_flowers", HONOURS_AND_FLOWERS),
    "shanghai": Layout(13, True, "none", frozenset(range(34, 42))),
}


# --- from the seed to the wall and the dice --------------------------------------------


def commitment_of(seed: bytes) -> str:
    """The commitment to a seed: its SHA-256, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def tile_set(variant: str) -> list[int]:
    """The tile set in its canonical order, before the shuffle: each of the 34 kinds 1m-9m,
    1p-9p, 1s-9s, 1z-7z four times in a row (1m 1m 1m 1m 2m ...), then the 8 flowers 1f-8f
    once each in the variants with flowers. (Kinds are ints 0-41 in that order.)"""
    tiles = [kind for kind in range(34) for _ in range(4)]
    if _layout(variant).with_flowers:
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


def dealt_positions(dealer: int, hand_size: int) -> list[list[int]]:
    """Per seat, the wall indexes it is dealt from the front: rounds of four tiles to each
    seat from the dealer in turn order (dealer, dealer + 1, ... mod 4) while four more fit
    in `hand_size`, then rounds of one, then one more tile to the dealer."""
    hands: list[list[int]] = [[] for _ in range(4)]
    pos = held = 0
    while held < hand_size:
        take = 4 if hand_size - held >= 4 else 1
        for i in range(4):
            seat = (dealer + i) % 4
            hands[seat] += range(pos, pos + take)
            pos += take
        held += take
    hands[dealer].append(pos)
    return hands


# --- checking a seat's transcript ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """The check of one hand: `status` (verified, failed, test_mode: dealt from a prepared
    wall, incomplete: the transcript cannot show it), a sentence, and what was compared."""

    status: Status
    message: str
    hand_id: str | None = None
    dealt: int = 0  # dealt tiles compared
    draws: int = 0  # drawn tiles compared

    @property
    def ok(self) -> bool:
        return self.status == "verified"


class _Mismatch(Exception):
    pass


def _tile(code: object, what: str) -> int:
    try:
        if not isinstance(code, str):
            raise TileError(repr(code))
        return parse_one(code)
    except TileError:
        raise _Mismatch(f"{what} is not a tile: {code!r}") from None


def _codes(tiles: Iterable[int]) -> list[str]:
    return [tile_code(t) for t in tiles]


def _sorted_codes(tiles: Iterable[int]) -> str:
    return " ".join(_codes(sorted(tiles)))


def check_hand(
    events: Sequence[Mapping[str, Any]],
    *,
    hand_id: str | None = None,
    shuffle: Shuffle | None = None,
) -> Verdict:
    """Check one hand from the event payloads a seat received (``event`` of each `event`
    message, in order: `hand_started` first, `hand_ended` last). Every tile the transcript
    shows is compared with the wall the revealed seed makes: the seat's own dealt tiles and
    draws (and any other seat's, in an unredacted replay), the wild's indicator and its
    dice, the flowers turned with 福州's 金; and the first roll. `shuffle` replaces the
    seed's wall (a test's doctored wall); the commitment is still checked on the seed."""
    if not events or events[0].get("kind") != "hand_started":
        return Verdict("incomplete", "the transcript does not start with the hand's hand_started "
                       "(resumed from a snapshot?): its deal cannot be checked", hand_id)
    started = events[0]
    promised = started.get("commitment")
    if promised is None:
        return Verdict("test_mode", "dealt from a prepared wall (test mode): no seed made it, "
                       "nothing to verify", hand_id)
    ended = next((e for e in events if e.get("kind") == "hand_ended"), None)
    if ended is None:
        return Verdict("incomplete", "the hand has not ended: its seed is not revealed yet",
                       hand_id)
    seed_hex = ended.get("seed")
    try:
        if not isinstance(seed_hex, str):
            raise _Mismatch("hand_ended reveals no seed, though hand_started committed to one")
        try:
            seed = bytes.fromhex(seed_hex)
        except ValueError:
            raise _Mismatch(f"the revealed seed is not hex: {seed_hex!r}") from None
        if commitment_of(seed) != promised:
            raise _Mismatch(f"the seed does not match the commitment: sha256(seed) = "
                            f"{commitment_of(seed)}, hand_started promised {promised}")
        dealt, draws, indicator = _replay(events, seed, shuffle)
    except _Mismatch as wrong:
        return Verdict("failed", str(wrong), hand_id)
    shown = f"the dice, {dealt} dealt tiles, {draws} draws" + (
        " and the wild's indicator" if indicator else "")
    return Verdict("verified", f"the seed matches the commitment, and {shown} are the seed's",
                   hand_id, dealt, draws)


def _layout(variant: object) -> Layout:
    if not isinstance(variant, str) or variant not in LAYOUTS:
        raise _Mismatch(f"unknown variant {variant!r}")
    return LAYOUTS[variant]


def _replay(
    events: Sequence[Mapping[str, Any]], seed: bytes, shuffle: Shuffle | None
) -> tuple[int, int, bool]:
    """Follow the hand's draws through the wall; the number of dealt and drawn tiles
    compared, and whether a wild's indicator was. Raises `_Mismatch` at the first
    difference."""
    started = events[0]
    variant = started.get("variant")
    layout = _layout(variant)
    made = shuffle or shuffle_of(seed, str(variant))
    if list(started.get("dice") or ()) != list(made.dice):
        raise _Mismatch(f"the dice: the seed rolls {list(made.dice)}, hand_started shows "
                        f"{started.get('dice')}")
    if started.get("wall_size") != len(made.wall):
        raise _Mismatch(f"the wall has {len(made.wall)} tiles, hand_started says "
                        f"{started.get('wall_size')}")
    wall = list(made.wall)  # what is left: wall[head:]; the tail is its end
    head = 0
    dealer = started.get("dealer")
    if dealer not in (0, 1, 2, 3):
        raise _Mismatch(f"hand_started names no dealer: {dealer!r}")
    hands: list[list[int]] | None = None
    unreplaced: list[tuple[object, int]] = []  # (seat, flower) laid out, not replaced yet
    draws: list[int] = [0, 0, 0, 0]
    compared_dealt = compared_draws = 0
    indicator_checked = False
    for event in events[1:]:
        kind = event.get("kind")
        if kind == "dealt":
            if hands is None:
                hands = [[wall[i] for i in where]
                         for where in dealt_positions(dealer, layout.hand_size)]
                head = 4 * layout.hand_size + 1
            seat = event.get("seat")
            if seat not in (0, 1, 2, 3):
                raise _Mismatch(f"a dealt event names no seat: {seat!r}")
            want = hands[seat]
            if event.get("count") != len(want):
                raise _Mismatch(f"seat {seat} is dealt {len(want)} tiles, the transcript says "
                                f"{event.get('count')}")
            tiles = event.get("tiles")
            if tiles is not None:
                shown = [_tile(c, f"seat {seat}'s dealt tile") for c in tiles]
                if sorted(shown) != sorted(want):
                    raise _Mismatch(f"seat {seat}'s dealt tiles: the seed deals "
                                    f"{_sorted_codes(want)}, the transcript has "
                                    f"{_sorted_codes(shown)}")
                compared_dealt += len(shown)
        elif kind == "drew":
            seat = event.get("seat")
            if hands is None:
                raise _Mismatch("a draw before the deal")
            if head >= len(wall):
                raise _Mismatch(f"seat {seat} draws from an empty wall")
            from_tail = bool(event.get("from_tail"))
            if from_tail:
                tile = wall.pop()
                if unreplaced and unreplaced[-1][0] == seat:
                    unreplaced.pop()
            else:
                tile = wall[head]
                head += 1
            if seat in (0, 1, 2, 3):
                draws[seat] += 1
            code = event.get("tile")
            if code is not None:
                got = _tile(code, f"seat {seat}'s draw")
                if got != tile:
                    where = "the tail" if from_tail else "the front"
                    raise _Mismatch(
                        f"seat {seat}'s draw {draws[seat] if seat in (0, 1, 2, 3) else '?'} "
                        f"from {where}: the seed gives {tile_code(tile)}, the transcript "
                        f"has {code}")
                compared_draws += 1
        elif kind == "flowered":
            unreplaced.append((event.get("seat"), _tile(event.get("tile"), "a flower")))
        elif kind == "wild_turned":
            if hands is None:
                raise _Mismatch("the wild is turned before the deal")
            indicator, turned = _indicator(layout, wall, head, made.wild_dice, event)
            if layout.indicator == "front":
                head += 1
            if turned is not None:
                shown = [t for _, t in unreplaced]
                if shown != turned or any(s != dealer for s, _ in unreplaced):
                    raise _Mismatch(f"the flowers turned before the wild: the seed turns "
                                    f"{' '.join(_codes(turned)) or 'none'} for the dealer, the "
                                    f"transcript shows {' '.join(_codes(shown)) or 'none'}")
                unreplaced.clear()
            got = _tile(event.get("indicator"), "the wild's indicator")
            if got != indicator:
                raise _Mismatch(f"the wild's indicator: the seed turns {tile_code(indicator)}, "
                                f"the transcript has {tile_code(got)}")
            indicator_checked = True
    return compared_dealt, compared_draws, indicator_checked


def _indicator(
    layout: Layout, wall: list[int], head: int, wild_dice: Dice, event: Mapping[str, Any]
) -> tuple[int, list[int] | None]:
    """Take the wild's indicator out of `wall` as the variant turns it; with it, the flowers
    turned on the way (福州), else None."""
    rule = layout.indicator
    if rule in ("tail_dice_sum", "tail_low_die_x2"):
        if list(event.get("dice") or ()) != list(wild_dice):
            raise _Mismatch(f"the wild's dice: the seed rolls {list(wild_dice)}, the "
                            f"transcript shows {event.get('dice')}")
        n = sum(wild_dice) if rule == "tail_dice_sum" else 2 * min(wild_dice)
        index = len(wall) - n
        if index < head:
            raise _Mismatch("the wild's indicator lies outside the wall")
        return wall.pop(index), None
    if rule == "front":
        return wall[head], None
    if rule == "tail_past_flowers":
        turned: list[int] = []
        while len(wall) > head:
            tile = wall.pop()
            if tile not in layout.flower_kinds:
                return tile, turned
            turned.append(tile)
        raise _Mismatch("no tile left to turn for the wild")
    raise _Mismatch("this variant turns no wild")


# --- reading transcripts ---------------------------------------------------------------


def hands_of(messages: Iterable[Mapping[str, Any]]) -> list[tuple[str | None, list[Mapping[str, Any]]]]:
    """The event payloads of each hand in `messages`, in order, by hand id: server
    messages (``event`` messages; others are skipped), bare event payloads (a replay's
    `events`), or a replay answer (an object with `hand_id` and `events`)."""
    hands: list[tuple[str | None, list[Mapping[str, Any]]]] = []
    by_id: dict[str | None, list[Mapping[str, Any]]] = {}
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        if isinstance(message.get("events"), list):  # GET /hands/{id}/replay
            hands += hands_of({"type": "event", "hand_id": message.get("hand_id"), "event": e}
                              for e in message["events"])
            continue
        if message.get("type") == "event" and isinstance(message.get("event"), Mapping):
            hand_id, payload = message.get("hand_id"), message["event"]
        elif message.get("type") == "snapshot":
            hand_id, payload = message.get("hand_id"), None  # a hand joined midway
        elif "kind" in message:
            hand_id, payload = None, message
        else:
            continue
        if payload is not None and payload.get("kind") == "hand_started" and hand_id is None:
            by_id.pop(None, None)  # bare payloads: each hand_started starts a hand
        events = by_id.get(hand_id)
        if events is None:
            events = by_id[hand_id] = []
            hands.append((hand_id, events))
        if payload is not None:
            events.append(payload)
    return hands


def check_transcript(messages: Iterable[Mapping[str, Any]]) -> list[Verdict]:
    """`check_hand` for every hand of a transcript."""
    return [check_hand(events, hand_id=hand_id) for hand_id, events in hands_of(messages)]


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
        description="Check hands against their seeds: the commitment, the dice and the seat's "
        "dealt and drawn tiles (docs/protocol.md, 'Verifying a hand').",
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

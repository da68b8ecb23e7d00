"""The whole hand rebuilt from its seed (app/rules/verify_play.py and verify_tiles.py,
through `app.rules.verify.check_hand`): real hands of every variant verify from every seat's view;
the rebuilt tiles are the rules core's at every step of many self-play hands; and a record
with a changed discard, draw, claim or revealed hand, a removed event or two discards
swapped fails, at the event that no longer fits, saying what the wall made instead."""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from app.protocol.events import event_payload, seat_payload
from app.rules import verify
from app.rules.actions import Action, AddedKong, Discard, Escape, Hu, Pass, Pung
from app.rules.bots import GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.events import Event, Won
from app.rules.hand import full_census, legal_actions, new_hand, pending_seats, step, tile_census
from app.rules.scenario import arrange
from app.rules.state import HandState
from app.rules.tiles import parse, parse_one, tile_code
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.verify_play import FOLLOWED, HandReplay
from app.rules.verify_tiles import LAYOUTS, wild_of
from app.rules.wall import Wall

Payload = dict[str, Any]
VIEWS = (0, 1, 2, 3, None)  # each seat's transcript, and an administrator's replay


@dataclass
class Played:
    variant: str
    events: list[Event]
    states: list[tuple[int, HandState]]  # after each step: the events so far, the state

    def seen(self, seat: int | None) -> list[Payload]:
        """The payloads `seat` received (None: unredacted)."""
        if seat is None:
            return [event_payload(e).model_dump(mode="json") for e in self.events]
        return [seat_payload(e, seat).model_dump(mode="json") for e in self.events]


def _play(variant: str, n: int, salt: str = "") -> Played:
    """Hand `n` of `variant` by bots: greedy ones, or random ones that claim, kong and rob
    the 金 more; one hand in seven ends with a seat leaving (逃跑) at a random step."""
    seed = random.Random(f"{variant}/{salt}/{n}").randbytes(32)
    rng = random.Random(seed)
    state, events = new_hand(get_ruleset(variant), seed, TableContext(dealer=n % 4))
    bots = [GreedyBot() if n % 3 == 0 else RandomBot(rng) for _ in range(4)]
    escape_at = rng.randrange(120) if n % 7 == 3 else -1
    states = [(len(events), state)]
    while state.phase != "ended":
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        action: Action = bots[seat].choose(state, seat, legal_actions(state, seat))
        if len(states) == escape_at:
            action = Escape(rng.randrange(4))
        state, more = step(state, action)  # a new state each step: the earlier ones are kept
        events += more
        states.append((len(events), state))
    return Played(variant, events, states)


def _hands(variant: str, count: int, salt: str = "") -> Iterator[Played]:
    return (_play(variant, n, salt) for n in range(count))


# --- real hands verify -----------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_real_hands_of_every_variant_verify_from_every_view(variant: str) -> None:
    """Every seat's transcript and the unredacted replay of bots' hands verify, and the
    hands sampled hold what the replay must follow: claims, kongs of each kind, wins, drawn
    hands, escapes; 福州 and 上海 their flowers (补花), 福州 its 金 and 抢金."""
    seen_kinds: Counter[str] = Counter()
    for played in _hands(variant, 36):
        for seat in VIEWS:
            verdict = verify.check_hand(played.seen(seat))
            assert verdict.ok, (variant, seat, verdict)
        for event in played.seen(None):
            seen_kinds[event["kind"]] += 1
            if event["kind"] == "melded":
                seen_kinds[event["meld"]] += 1
            if event["kind"] == "hand_ended":
                seen_kinds[event["outcome"]] += 1
    wanted = ["pung", "exposed_kong", "won", "win", "draw", "escape"]
    if variant != "fuzhou":  # rare there (the honours are flowers): the others show it
        wanted.append("concealed_kong")
    wanted += {"lishui": ["chow", "wild_turned"], "wenzhou": ["chow", "decided"],
               "huzhou": ["chow", "wild_turned"], "fuzhou": ["chow", "flowered", "wild_turned",
                                                              "gold_robbed"],
               "shanghai": ["chow", "flowered"]}[variant]
    assert [k for k in wanted if not seen_kinds[k]] == []


def test_added_kongs_verify() -> None:
    found = 0
    for played in _hands("huzhou", 40, salt="added"):
        if any(e.kind == "melded" and e.meld == "added_kong"  # type: ignore[attr-defined]
               for e in played.events):
            found += 1
            for seat in VIEWS:
                assert verify.check_hand(played.seen(seat)).ok, seat
    assert found


# 上海 scenarios (tests/rules/test_shanghai.py tells them): quiet hands, far from winning
QA = "12358m1369p2478s"
QB = "23469m2478p1358s"
QC = "14679m1358p2368s"
SEED = b"a scenario"  # stands for the prepared wall's seed in the doctored transcripts


class Scenario:
    """A 上海 hand dealt from a prepared wall, played by a script, and its transcripts made
    checkable: the commitment and the seed are a stand-in seed's, and the check is given
    the prepared wall instead of that seed's (`check_hand(shuffle=...)`)."""

    def __init__(self, hands: list[str], draws: str, replacements: str = "") -> None:
        ruleset = get_ruleset("shanghai")
        used = [t for text in [*hands, draws, replacements] for t in parse(text)]
        rest = Counter(ruleset.tile_set())
        rest.subtract(used)
        plain = sorted(t for t in rest.elements() if t < 34)
        flowers = sorted(t for t in rest.elements() if t >= 34)
        filler = plain[: len(plain) // 2] + flowers + plain[len(plain) // 2:]
        self.preset = arrange(ruleset, dealer=0, hands=hands, draws=parse(draws) + filler,
                              replacements=replacements, dice=(2, 3))
        self.state, self.events = new_hand(ruleset, 0, TableContext(), self.preset)

    def play(self, *actions: Action) -> Scenario:
        for action in actions:
            self.state, more = step(self.state, action)
            self.events += more
        return self

    def idle(self, turns: int) -> Scenario:
        """The seat in turn throws what it drew, nobody claims, `turns` times."""
        for _ in range(turns):
            assert self.state.drawn is not None
            self.play(Discard(self.state.turn, self.state.drawn))
            while self.state.phase == "claim":
                self.play(Pass(pending_seats(self.state)[0]))
        return self

    def verdicts(self) -> list[verify.Verdict]:
        shuffle = verify.Shuffle(self.preset.dice, self.preset.wall, self.preset.wild_dice)
        out = []
        for seat in VIEWS:
            seen = Played("shanghai", self.events, []).seen(seat)
            seen[0]["commitment"] = verify.commitment_of(SEED)
            seen[-1]["seed"] = SEED.hex()
            out.append(verify.check_hand(seen, shuffle=shuffle))
        return out


def test_several_winners_on_one_discard_verify() -> None:
    """一炮多响: seats 1 and 3 both win the dealer's 8p; the tile goes into the nearer
    winner's hand, and both revealed hands show it."""
    hand = Scenario([QA + "7z", "123456789p55p67p", QB, "67p111z222z333z44z"], "5z6z7z8p")
    hand.play(Discard(0, parse_one("7z"))).idle(3).play(Discard(0, parse_one("8p")))
    hand.play(Hu(3), Hu(1))
    assert [w.seat for w in hand.state.wins] == [1, 3]
    assert [v.status for v in hand.verdicts()] == ["verified"] * 5
    seen = Played("shanghai", hand.events, []).seen(2)
    # each winner's hand shows the discarded 8p (seat 1 held one already)
    assert (seen[-1]["hands"][1].count("8p"), seen[-1]["hands"][3].count("8p")) == (2, 1)


def _robbing() -> Scenario:
    """Seat 2 pungs the dealer's 5s and later draws the fourth 5s; seat 3 waits on it."""
    hand = Scenario([QA + "5s", QC, "55s23469m2478p1z2z", "34s555z666z777z1f2f"],
                    "3z4z3z5s", replacements="1z1z")
    hand.play(Discard(0, parse_one("5s")), Pass(3), Pung(2), Discard(2, parse_one("2z")))
    return hand.idle(3)


def test_a_robbed_kong_and_an_escape_while_it_may_be_robbed_verify() -> None:
    """抢杠: the added 5s goes from seat 2's hand to seat 3's. A seat leaving while the 加杠
    may still be robbed: the kong was never made, and the 5s is back in seat 2's hand at
    the end (every tile accounted for)."""
    robbed = _robbing().play(AddedKong(2, parse_one("5s")), Hu(3))
    assert robbed.state.wins[0].robbed_kong
    assert [v.status for v in robbed.verdicts()] == ["verified"] * 5
    left = _robbing().play(AddedKong(2, parse_one("5s")))
    assert left.state.phase == "rob"
    left.play(Escape(1))
    assert tile_census(left.state) == full_census(left.state.ruleset)
    assert left.state.concealed[2][parse_one("5s")] == 1
    assert [v.status for v in left.verdicts()] == ["verified"] * 5
    # the robbed tile shown as another tile, in seat 0's copy of the win
    doctored = _robbing().play(AddedKong(2, parse_one("5s")), Hu(3))
    won = doctored.events[-2]
    assert isinstance(won, Won)
    doctored.events[-2] = dataclasses.replace(won, tile=parse_one("6s"))
    verdict = doctored.verdicts()[0]
    assert verdict.status == "failed" and "seat 3's win" in verdict.message, verdict


# --- the rebuilt hand is the core's ------------------------------------------------------


def _core(state: HandState) -> dict[str, Any]:
    """What the replay rebuilds, read from the rules core's state. A 加杠 still open to
    robbing has taken its tile from the hand with no event to show it yet: it is counted
    back in the declarer's hand, where the transcript still has it."""
    hands = [counts[:] for counts in state.concealed]
    if state.phase == "rob" and state.window is not None:
        hands[state.window.discarder][state.window.tile] += 1
    return {
        "hands": hands,
        "melds": [[(m.kind, tuple(sorted(m.tiles)), m.claimed, m.from_seat) for m in melds]
                  for melds in state.melds],
        "flowers": [list(f) for f in state.flowers],
        "river": [[r.seat, r.tile, r.claimed] for r in state.river],
        "wall": list(state.wall.remaining_tiles()),
        "to_play": state.turn if state.phase == "turn" else None,
        "wild": state.wild.wild,
    }


def _rebuilt(replay: HandReplay, state: HandState) -> dict[str, Any]:
    tiles = replay.tiles
    return {
        "hands": tiles.hands,
        "melds": [[m.key() for m in melds] for melds in tiles.melds],
        "flowers": tiles.flowers,
        "river": tiles.river,
        "wall": tiles.wall[tiles.head:],
        "to_play": replay.to_play if state.phase == "turn" else None,
        "wild": tiles.wild,
    }


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_rebuilt_hand_is_the_cores_at_every_step(variant: str) -> None:
    """Self-play hands replayed from each view, step by step: after every step the rebuilt
    hands, sets, flowers, river, wall still to draw, seat to play and wild are the rules
    core's own (another seat's hidden draws and 暗杠 included)."""
    steps = 0
    for played in _hands(variant, 30, salt="cross"):
        for seat in VIEWS:
            seen = played.seen(seat)
            made = verify.shuffle_of(bytes.fromhex(seen[-1]["seed"]), variant)
            replay = HandReplay(LAYOUTS[variant], made.wall, made.wild_dice, seen[0]["dealer"],
                                seen[-1])
            fed = 1
            for upto, state in played.states:
                for event in seen[fed:upto]:
                    replay.feed(event)
                fed = upto
                assert _rebuilt(replay, state) == _core(state), (seat, upto)
                steps += 1
    assert steps > 1000


def test_the_layouts_wild_rules_are_the_variants() -> None:
    """The kind each indicator makes wild, and its substitute, are what the variants'
    `setup_wild` makes of it."""
    for variant, layout in LAYOUTS.items():
        ruleset = get_ruleset(variant)
        for indicator in range(27 if variant == "fuzhou" else 34):
            slot = ruleset.indicator_slot((3, 4))
            if slot is None:
                assert wild_of(layout.wild, indicator) == (None, None)
                continue
            tiles = [t for t in ruleset.tile_set() if t != indicator]
            where, n = slot
            tiles.insert(len(tiles) + 1 - n if where == "tail" else 0, indicator)
            wall = Wall.of(tuple(tiles))
            setup, _ = ruleset.setup_wild(wall, (3, 4), 0)
            assert (setup.wild, setup.substitute) == wild_of(layout.wild, indicator), variant
        assert layout.final_round == bool(ruleset.final_round)


# --- what fails, and where -------------------------------------------------------------


def _transcript(variant: str, want: str, seat: int = 0) -> tuple[Played, list[Payload]]:
    """A hand of `variant` with an event of kind `want` (a meld kind for melded), and
    `seat`'s transcript of it."""
    for played in _hands(variant, 200, salt="tamper"):
        seen = played.seen(seat)
        if any(e["kind"] == want or e.get("meld") == want for e in seen):
            return played, seen
    raise AssertionError(f"no {variant} hand with {want}")


def _state_before(played: Played, index: int) -> HandState:
    """The core's state just before the step that made event `index`."""
    return max((s for upto, s in played.states if upto <= index), key=lambda s: s.steps)


def _failed_at(seen: list[Payload], index: int) -> str:
    verdict = verify.check_hand(seen)
    assert verdict.status == "failed", verdict
    assert verdict.event == index + 1, verdict
    assert verdict.message.startswith(f"event {index + 1}, {seen[index]['kind']}: "), verdict
    return verdict.message


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_changed_discard_fails_at_it(variant: str) -> None:
    """A discard changed to a tile the seat does not hold at that moment (another seat's,
    whose hand this transcript never shows)."""
    played, seen = _transcript(variant, "discarded")
    index = [i for i, e in enumerate(seen) if e["kind"] == "discarded" and e["seat"] != 0][2]
    seat = seen[index]["seat"]
    held = _state_before(played, index).concealed[seat]
    other = next(t for t in range(34) if not held[t])
    seen[index]["tile"] = tile_code(other)
    message = _failed_at(seen, index)
    assert f"seat {seat} discards {tile_code(other)}, which it does not hold (it holds " in message


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_changed_own_draw_fails_at_it(variant: str) -> None:
    _, seen = _transcript(variant, "drew")
    index = [i for i, e in enumerate(seen) if e["kind"] == "drew" and e["tile"]][-1]
    was = seen[index]["tile"]
    seen[index]["tile"] = tile_code((parse_one(was) + 1) % 34)
    message = _failed_at(seen, index)
    assert f"the seed gives {was}, the transcript has {seen[index]['tile']}" in message


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_another_seats_changed_revealed_hand_fails(variant: str) -> None:
    """Seat 0's transcript with seat 2's revealed hand in hand_ended changed: the wall and
    the events say what it was, though seat 0 never saw it before the end."""
    _, seen = _transcript(variant, "hand_ended")
    ended = seen[-1]
    shown = ended["hands"][2]
    if shown:
        shown[0] = tile_code((parse_one(shown[0]) + 1) % 34)
    else:
        shown.append("1m")
    message = _failed_at(seen, len(seen) - 1)
    assert "seat 2's revealed hand: the wall and the events leave it " in message
    # and a winner's hand as its won event shows it
    _, seen = _transcript(variant, "won")
    index = next(i for i, e in enumerate(seen) if e["kind"] == "won")
    seen[index]["hand"] = seen[index]["hand"][1:]
    assert "'s win's hand: the wall and the events leave it" in _failed_at(seen, index)


def test_a_claim_with_tiles_the_claimer_does_not_hold_fails() -> None:
    """A 碰 moved to another seat that does not hold the pair; a 吃 of a run the claimer
    does not hold; a claim of a tile that is not the last discard."""
    played, seen = _transcript("lishui", "pung", seat=1)
    index = next(i for i, e in enumerate(seen) if e.get("meld") == "pung")
    pung = seen[index]
    tile = parse_one(pung["claimed"])
    held = _state_before(played, index).concealed
    other = next(s for s in range(4) if s not in (pung["seat"], pung["from_seat"])
                 and held[s][tile] < 2)
    moved = copy.deepcopy(seen)
    moved[index]["seat"] = other
    message = _failed_at(moved, index)
    assert f"seat {other}'s pung needs {pung['claimed']} {pung['claimed']} from the hand, " \
           f"but seat {other} holds " in message

    wrong = copy.deepcopy(seen)
    last = next(e for e in reversed(seen[:index]) if e["kind"] == "discarded")
    instead = tile_code((tile + 1) % 27)
    wrong[index].update(claimed=instead, tiles=[instead] * 3)
    message = _failed_at(wrong, index)
    assert f"claims {instead} from seat {pung['from_seat']}, but the last discard is seat " \
           f"{last['seat']}'s {last['tile']}" in message

    played, seen = _transcript("lishui", "chow")
    for index, chow in ((i, e) for i, e in enumerate(seen) if e.get("meld") == "chow"):
        claimed = parse_one(chow["claimed"])
        if claimed >= 27:  # 白板 playing as a suited face
            continue
        hand = _state_before(played, index).concealed[chow["seat"]]
        wild = next(e for e in seen if e["kind"] == "wild_turned")
        plays = {parse_one(wild["indicator"]), 31}
        suit = claimed // 9 * 9
        for low in range(max(claimed - 2, suit), min(claimed, suit + 6) + 1):
            run = [t for t in (low, low + 1, low + 2) if t != claimed]
            if len(run) == 2 and not plays & {*run} and not all(hand[t] for t in run):
                changed = copy.deepcopy(seen)
                changed[index]["tiles"] = [tile_code(t) for t in sorted([*run, claimed])]
                message = _failed_at(changed, index)
                assert f"seat {chow['seat']}'s chow needs " in message
                assert f"but seat {chow['seat']} holds " in message
                return
    raise AssertionError("no chow to change")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_any_removed_event_that_moves_a_tile_or_the_turn_fails(variant: str) -> None:
    """Each event but the first and the last (without which the hand is incomplete, not
    verifiable) removed in turn from seat 1's transcript: the hand fails, at the removed
    event's place or later. Only `decided` and `penalized` move no tile and pass no turn
    (they concern the score, which this check does not recompute)."""
    removed: Counter[str] = Counter()
    for played in _hands(variant, 4, salt="remove"):
        seen = played.seen(1)
        for index in range(1, len(seen) - 1):
            kind = seen[index]["kind"]
            if kind in ("decided", "penalized"):
                continue
            verdict = verify.check_hand(seen[:index] + seen[index + 1:])
            assert verdict.status == "failed", (index, kind, verdict)
            assert verdict.event is not None and verdict.event >= index + 1
            removed[kind] += 1
    assert {"dealt", "drew", "discarded"} <= set(removed)
    assert verify.check_hand(seen[1:]).status == "incomplete"
    assert verify.check_hand(seen[:-1]).status == "incomplete"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_two_discards_swapped_fail(variant: str) -> None:
    """Two seats' discards swapped in place (each seat then moves out of turn), or their
    tiles swapped (each seat then discards what the wall did not give it)."""
    _, seen = _transcript(variant, "discarded")
    discards = [i for i, e in enumerate(seen) if e["kind"] == "discarded"]
    pairs = [(a, b) for a, b in pairwise(discards)
             if seen[a]["seat"] != seen[b]["seat"] and seen[a]["tile"] != seen[b]["tile"]]
    for a, b in pairs[:6]:
        moved = copy.deepcopy(seen)
        moved[a], moved[b] = moved[b], moved[a]
        message = _failed_at(moved, a)
        assert f"seat {seen[b]['seat']} discards {seen[b]['tile']} out of turn, while " in message
        tiles = copy.deepcopy(seen)
        tiles[a]["tile"], tiles[b]["tile"] = seen[b]["tile"], seen[a]["tile"]
        verdict = verify.check_hand(tiles)
        assert verdict.status == "failed" and verdict.event is not None, verdict
        assert verdict.event >= a + 1


def test_a_transcript_that_ends_mid_hand_is_checked_as_far_as_it_goes() -> None:
    """With the wall known (a test's, as no seed is revealed before the end), a hand cut
    short is incomplete when what there is fits, and failed at a changed discard."""
    played, seen = _transcript("lishui", "hand_ended")
    made = verify.shuffle_of(bytes.fromhex(seen[-1]["seed"]), "lishui")
    half = seen[: len(seen) // 2]
    verdict = verify.check_hand(half, shuffle=made)
    assert verdict.status == "incomplete" and "fit the wall as far as they go" in verdict.message
    assert verify.check_hand(half).status == "incomplete"  # no seed: nothing to follow
    index = max(i for i, e in enumerate(half) if e["kind"] == "discarded")
    held = _state_before(played, index).concealed[half[index]["seat"]]
    half[index]["tile"] = tile_code(next(t for t in range(34) if not held[t]))
    verdict = verify.check_hand(half, shuffle=made)
    assert verdict.status == "failed" and verdict.event == index + 1, verdict


def test_the_command_names_the_seq_and_drops_resent_copies() -> None:
    """Event messages carry their seq into the mismatch; a copy of an event resent after a
    reconnect (a seq already seen) is dropped, as a client drops it."""
    _, seen = _transcript("huzhou", "hand_ended")
    messages: list[Payload] = [
        {"type": "event", "table_id": "T", "hand_id": "H", "seq": 10 + i, "event": e}
        for i, e in enumerate(seen)]
    resent = messages[:20] + messages[12:]
    assert [v.status for v in verify.check_transcript(resent)] == ["verified"]
    index = next(i for i, e in enumerate(seen) if e["kind"] == "discarded")
    bad = copy.deepcopy(resent)
    bad[index]["event"]["seat"] = (seen[index]["seat"] + 1) % 4
    [verdict] = verify.check_transcript(bad)
    assert verdict.status == "failed" and verdict.seq == 10 + index
    assert verdict.message.startswith(f"event {index + 1} (seq {10 + index}), discarded: ")


def test_the_documented_procedure_names_every_event_the_replay_follows() -> None:
    """docs/protocol.md, "Verifying a hand", step 8 has an entry for each event kind the
    replay follows (an implementation in another language ports it from there)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text("utf-8")
    procedure = doc.split("## Verifying a hand", 1)[1].split("\n## ", 1)[0]
    steps = procedure.split("8. Each event:", 1)[1].split("\n9. ", 1)[0]
    entries = {line.split("`")[1] for line in steps.splitlines() if line.startswith("   - `")}
    assert entries == FOLLOWED
    assert "`hand_ended`" in procedure.split("\n9. ", 1)[1]

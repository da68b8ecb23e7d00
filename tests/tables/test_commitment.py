"""The table publishes a commitment to each hand's seed and reveals the seed only once the
hand is over and stored: what each seat is sent, on resumes and snapshots too. The seed
comes from `secrets`."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

import pytest

from app.protocol.events import seat_payload
from app.rules.events import Event, HandEnded, HandStarted
from app.rules.variants import get_ruleset
from app.rules.verify import check_hand
from app.tables import actor as actor_module
from app.tables.actor import random_seed
from app.tables.messages import EventOut, Resume, SnapshotOut, Tick
from app.tables.settlement.record import HandRecordData, Paid
from tests.tables.test_actor import TWO_WAIT_ON_5M, Harness

LISHUI = get_ruleset("lishui")


def _text(item: Any) -> str:
    """Everything an outbound item holds, as text (to look for the seed in it)."""
    if isinstance(item, EventOut):
        return repr(item.event) + json.dumps(item.event.to_dict(), default=str)
    return json.dumps(dataclasses.asdict(item), default=str)


def test_the_seed_is_32_bytes_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = {random_seed() for _ in range(20)}
    assert len(seeds) == 20 and all(len(s) == 32 for s in seeds)
    monkeypatch.setattr(actor_module.secrets, "token_bytes", lambda n: b"\x07" * n)
    assert random_seed() == b"\x07" * 32


async def test_each_seat_gets_the_commitment_first_and_the_seed_only_at_the_end() -> None:
    harness = Harness()
    harness.table._cycle.seed_source = random_seed  # the production seed source
    await harness.deal()
    # a resume from a seq the table never sent: a snapshot, which carries the commitment
    snapshot = [i for _, i in await harness.handle(Resume(2, 10**6)) if isinstance(i, SnapshotOut)]
    await harness.play_out()

    record = harness.records[0]
    seed = record.seed
    assert len(seed) == 32  # the production seed source
    promised = hashlib.sha256(seed).hexdigest()
    assert snapshot and snapshot[0].view["commitment"] == promised
    assert snapshot[0].view["seed"] is None
    out = harness.out
    for seat in range(4):
        events = [i.event for s, i in out if s == seat and isinstance(i, EventOut)]
        assert isinstance(events[0], HandStarted) and events[0].commitment == promised
        assert isinstance(events[-1], HandEnded) and events[-1].seed == seed.hex()
        before_end = [_text(i) for s, i in out if s == seat][:-1]
        assert before_end and not any(seed.hex() in t for t in before_end)
        payloads = [seat_payload(e, seat).model_dump(mode="json") for e in events]
        assert check_hand(payloads).ok
    # after the end a snapshot shows the seed too
    late = [i for _, i in await harness.handle(Resume(1, 10**6)) if isinstance(i, SnapshotOut)]
    assert late[0].view["seed"] == seed.hex() and late[0].view["commitment"] == promised


async def test_a_result_not_stored_yet_reveals_no_seed() -> None:
    """While the hand's result waits to be stored (here: another process stores it), a
    snapshot shows neither the result nor the seed, and no hand_ended is sent."""
    h = Harness(seed=77)

    async def not_here(record: HandRecordData) -> Paid | None:
        h.records.append(record)
        return None

    h.table._cycle.on_hand_end = not_here  # type: ignore[assignment]
    await h.deal()
    await h.play_out()
    assert h.records and h.table.hand is None
    seed_hex = h.records[0].seed.hex()
    assert not [i for _, i in h.out if isinstance(i, EventOut) and isinstance(i.event, HandEnded)]
    sent = [i for _, i in await h.handle(Resume(0, 10**6))]
    snapshot = next(i for i in sent if isinstance(i, SnapshotOut))
    assert snapshot.view["seed"] is None and snapshot.view["net"] is None
    assert snapshot.view["commitment"] == hashlib.sha256(h.records[0].seed).hexdigest()
    assert not any(seed_hex in _text(i) for _, i in h.out)


async def test_a_test_mode_hand_commits_to_nothing_and_reveals_nothing() -> None:
    h = Harness(scenario=TWO_WAIT_ON_5M)
    await h.deal()
    first: Event = next(i.event for s, i in h.out if s == 0 and isinstance(i, EventOut))
    assert isinstance(first, HandStarted) and first.commitment is None
    snapshot = next(i for _, i in await h.handle(Resume(0, 10**6)) if isinstance(i, SnapshotOut))
    assert snapshot.view["commitment"] is None
    await h.play_out()
    ended = [i.event for _, i in h.out if isinstance(i, EventOut) and isinstance(i.event, HandEnded)]
    assert ended and all(e.seed is None for e in ended)
    payloads = [seat_payload(i.event, 0).model_dump(mode="json")
                for s, i in h.out if s == 0 and isinstance(i, EventOut)]
    assert check_hand(payloads).status == "test_mode"
    # the next hand is dealt from a seed again
    await h.next_hand()
    started = [i.event for s, i in h.out if s == 0 and isinstance(i, EventOut)
               and isinstance(i.event, HandStarted)]
    assert started[-1].commitment is not None  # type: ignore[attr-defined]


async def test_the_first_dealer_comes_from_the_hands_own_first_roll() -> None:
    h = Harness(seed=12345)
    await h.handle(Tick())
    started = next(i.event for s, i in h.out if isinstance(i, EventOut))
    assert isinstance(started, HandStarted)
    assert started.dealer == LISHUI.first_dealer(started.dice)


def test_a_journal_header_written_before_seeds_were_bytes_still_replays_its_hand() -> None:
    """A node's journal (Redis) may hold a hand dealt by an older node, its seed an int: it
    is read as the int's 8 bytes, which seed the same RNG."""
    from app.cluster.journal import ContextData, HandHeader

    old = HandHeader.model_validate_json(
        '{"hand_id": "t-3", "hands": 3, "seed": 123456789, "ctx": {"dealer": 1}, '
        '"preset": null, "first_seq": 40}')
    assert old.seed_bytes() == (123456789).to_bytes(8, "big")
    new = HandHeader(hand_id="t-4", hands=4, seed=random_seed().hex(), ctx=ContextData(),
                     preset=None, first_seq=90)
    assert len(HandHeader.model_validate_json(new.model_dump_json()).seed_bytes()) == 32

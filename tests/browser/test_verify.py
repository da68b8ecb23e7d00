"""The browser's verifier (the client kit's clients/js/src/verify.js, served at /static/kit/)
agrees with Python's (app/rules/verify.py): the same SHA-256, the same Mersenne Twister
seeding from the seed's bytes, the same dice and wall for many seeds of every variant, and
the same verdict on real hands' transcripts and on doctored ones (tests/kit/ compares the
whole-hand replay at length under node). At a table the settlement shows the mark: verified
after a hand with bots (a phone and a desktop, Chinese and English), failed when the seed a
server reveals is not the one it committed to or another seat's discard was changed, not
verifiable at a test-mode table.

Screenshots under tests/browser/screenshots/verify-*.png."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute

from app.protocol.events import seat_payload
from app.rules import verify
from app.rules.bots import GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.tiles import parse_one, tile_code
from app.rules.variants import VARIANTS, get_ruleset
from tests.browser.conftest import Server
from tests.browser.test_table import OPEN_TABLE
from tests.browser.ui import (
    PROMPTED,
    TABLE_SOCKET,
    first_decision,
    register,
    to_english,
    unfold,
)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SEEDS_PER_VARIANT = 40
HANDS_PER_VARIANT = 6


def _seeds(variant: str) -> list[bytes]:
    rng = random.Random(variant)
    return [rng.randbytes(32) for _ in range(SEEDS_PER_VARIANT)] + [
        bytes(32), b"\x00", b"\x01", bytes(4) + rng.randbytes(28), bytes(5) + rng.randbytes(27),
        rng.randbytes(8), rng.randbytes(3), rng.randbytes(64), b"\xff" * 32,
    ]


def _transcript(variant: str, seed: bytes, greedy: bool) -> list[dict[str, Any]]:
    state, events = new_hand(get_ruleset(variant), seed, TableContext(dealer=seed[0] % 4))
    bot = GreedyBot() if greedy else RandomBot(random.Random(seed))
    while state.phase != "ended":
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        state, more = step(state, bot.choose(state, seat, legal_actions(state, seat)))
        events += more
    return [seat_payload(e, 0).model_dump(mode="json") for e in events]


def _doctored(seen: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The transcript with one thing changed each: a dealt tile, a drawn tile, the
    commitment, the seed (another seed's, with that seed's commitment), the dice."""
    out = []

    def other(code: str) -> str:
        return tile_code((parse_one(code) + 1) % 34)

    dealt = copy.deepcopy(seen)
    event = next(e for e in dealt if e["kind"] == "dealt" and e["tiles"])
    event["tiles"][0] = other(event["tiles"][0])
    out.append(dealt)
    drawn = copy.deepcopy(seen)
    own = [e for e in drawn if e["kind"] == "drew" and e["tile"]]
    if own:
        own[-1]["tile"] = other(own[-1]["tile"])
        out.append(drawn)
    promised = copy.deepcopy(seen)
    promised[0]["commitment"] = hashlib.sha256(b"another").hexdigest()
    out.append(promised)
    swapped = copy.deepcopy(seen)
    swapped[-1]["seed"] = ("ab" * 32)
    swapped[0]["commitment"] = hashlib.sha256(bytes.fromhex("ab" * 32)).hexdigest()
    out.append(swapped)
    dice = copy.deepcopy(seen)
    dice[0]["dice"] = [dice[0]["dice"][0] % 6 + 1, dice[0]["dice"][1]]
    out.append(dice)
    return out


AGREE = """async (cases) => {
  const v = await import("/static/kit/verify.js");
  return cases.map((c) => {
    const seed = v.fromHex(c.seed);
    const made = v.shuffleOf(seed, c.variant);
    return {
      hash: v.sha256Hex(seed), dice: made.dice, wall: made.wall.map(v.codeOf),
      wild_dice: made.wildDice, key: v.seedKey(seed),
      verdicts: c.transcripts.map((t) => v.checkHand(t).status),
    };
  });
}"""


def test_the_javascript_verifier_agrees_with_python_on_every_variant(client_page: Page) -> None:
    cases = []
    expected = []
    for variant in sorted(VARIANTS):
        for i, seed in enumerate(_seeds(variant)):
            transcripts: list[list[dict[str, Any]]] = []
            if i < HANDS_PER_VARIANT:
                seen = _transcript(variant, seed, greedy=i % 2 == 0)
                transcripts = [seen, *_doctored(seen)]
            made = verify.shuffle_of(seed, variant)
            n = int.from_bytes(seed, "big")
            key = [(n >> (32 * k)) & 0xFFFFFFFF for k in range(max(1, -(-n.bit_length() // 32)))]
            cases.append({"variant": variant, "seed": seed.hex(), "transcripts": transcripts})
            expected.append({
                "hash": hashlib.sha256(seed).hexdigest(), "dice": list(made.dice),
                "wall": [tile_code(t) for t in made.wall], "wild_dice": list(made.wild_dice),
                "key": key, "verdicts": [verify.check_hand(t).status for t in transcripts],
            })
    got = client_page.evaluate(AGREE, cases)
    wrong = [(c["variant"], c["seed"], field) for c, g, e in zip(cases, got, expected, strict=True)
             for field in e if g[field] != e[field]]
    assert wrong == []
    verdicts = [v for e in expected for v in e["verdicts"]]
    assert verdicts.count("verified") == len(VARIANTS) * HANDS_PER_VARIANT
    assert verdicts.count("failed") >= 4 * len(VARIANTS) * HANDS_PER_VARIANT


SHA = """(lengths) => import("/static/kit/verify.js").then((v) =>
  lengths.map((n) => v.sha256Hex(Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) % 256))))"""


def test_the_javascript_sha256_is_sha256_at_every_padding_boundary(client_page: Page) -> None:
    lengths = [*range(130), 1000, 4096]
    got = client_page.evaluate(SHA, lengths)
    assert got == [hashlib.sha256(bytes((i * 7 + n) % 256 for i in range(n))).hexdigest()
                   for n in lengths]


PROOF = """async ({events, view}) => {
  const { HandProof } = await import("/static/kit/verify.js");
  const whole = new HandProof();
  for (const e of events) whole.event(e);
  const joined = new HandProof();
  joined.snapshot(view);
  const ended = events[events.length - 1];
  joined.event(ended);
  const lied = new HandProof();
  lied.snapshot(view);
  const test = new HandProof();
  test.snapshot({ ...view, commitment: null });
  return [whole.verdict(ended), joined.verdict(ended),
          lied.verdict({ ...ended, seed: "00".repeat(32) }), test.verdict({ ...ended, seed: null })]
    .map((v) => [v.status, v.what, v.dealt]);
}"""


def test_the_table_pages_proof_of_a_hand_seen_whole_or_joined_midway(client_page: Page) -> None:
    events = _transcript("fuzhou", b"\x05" * 32, greedy=True)
    view = {"commitment": events[0]["commitment"]}
    got = client_page.evaluate(PROOF, {"events": events, "view": view})
    dealt = 17 if events[0]["dealer"] == 0 else 16
    assert got == [["verified", None, dealt], ["partial", None, 0],
                   ["failed", "commitment", 0], ["test_mode", None, 0]]


# --- the mark on the settlement ----------------------------------------------------------




def _settle_with_bots(page: Page, variant: str) -> None:
    """Open a table of `variant`, call the bots, hand the seat to 托管 and wait for the
    settlement."""
    page.evaluate(OPEN_TABLE, {"variant": variant, "stake": 1, "timers": {"ready": 120}})
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    first_decision(page)
    page.click("#autoplay")
    page.wait_for_selector("#settlement", timeout=60_000)


def _no_overflow(page: Page) -> bool:
    return bool(page.evaluate(
        "(() => { const b = document.querySelector('.settle-body');"
        " return b.scrollWidth <= b.clientWidth; })()"))


CASES = [
    ("phone-zh", PHONE, False, "fuzhou"),
    ("phone-en", PHONE, True, "lishui"),
    ("desktop-zh", DESKTOP, False, "huzhou"),
    ("desktop-en", DESKTOP, True, "wenzhou"),
]


@pytest.mark.parametrize(("name", "viewport", "english", "variant"), CASES, ids=[c[0] for c in CASES])
def test_a_settlement_shows_that_the_hand_verified(
    context_for: Callable[..., Page], server: Server, screenshots: Path,
    name: str, viewport: dict[str, int], english: bool, variant: str,
) -> None:
    page = context_for(viewport)
    register(page, server.base, f"vf_{name.replace('-', '_')}")
    if english:
        to_english(page)
    _settle_with_bots(page, variant)
    mark = page.wait_for_selector("#settle-verify")
    assert mark is not None and mark.get_attribute("data-status") == "verified"
    text = mark.inner_text()
    if english:
        assert "Verified" in text and "dealt tiles" in text and "draws" in text
    else:
        assert "已验证" in text and "起手牌" in text and "摸牌" in text
    # the seed and its commitment, for a check elsewhere: they agree
    page.click("#settle-verify summary")
    codes = [c.inner_text() for c in page.query_selector_all("#settle-verify code")]
    assert len(codes) == 2 and hashlib.sha256(bytes.fromhex(codes[1])).hexdigest() == codes[0]
    assert "python -m app.rules.verify" in page.inner_text("#settle-verify")
    assert _no_overflow(page)
    page.wait_for_selector("#settle-balance[data-balance]:not([data-balance=''])")
    # drawn again with the balance: what the player opened stays open
    assert page.get_attribute("#settle-verify details", "open") is not None
    page.screenshot(path=str(screenshots / f"verify-{name}.png"))


def _rewrite_events(page: Page, rewrite: Callable[[dict[str, Any]], bool]) -> None:
    """The table's socket through a proxy that hands each event payload on its way to the
    page to `rewrite`, which may change it in place (True: changed), as a cheating server
    would send it."""

    def lying(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and '"type":"event"' in message:
                data = json.loads(message)
                if rewrite(data["event"]):
                    message = json.dumps(data)
            ws.send(message)

        upstream.on_message(to_page)

    page.route_web_socket(TABLE_SOCKET, lying)


def test_a_seed_that_is_not_the_committed_one_fails_the_mark(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    """A server that reveals another seed than the one it committed to (here: the test
    rewrites the socket's hand_started and hand_ended on their way to the page, as a
    cheating server would send them) is caught: the mark says failed, and why."""
    page = context_for(DESKTOP)
    other = "5a" * 32

    def reveal_another_seed(event: dict[str, Any]) -> bool:
        if event["kind"] == "hand_ended" and event["seed"]:
            event["seed"] = other
            return True
        return False

    _rewrite_events(page, reveal_another_seed)
    register(page, server.base, "vf_lied_to")
    to_english(page)
    _settle_with_bots(page, "lishui")
    mark = page.wait_for_selector("#settle-verify")
    assert mark is not None and mark.get_attribute("data-status") == "failed"
    assert mark.get_attribute("data-what") == "commitment"
    assert "Verification failed" in mark.inner_text()
    assert "does not match the commitment" in mark.inner_text()
    page.screenshot(path=str(screenshots / "verify-desktop-en-failed.png"))


def test_a_discard_changed_on_its_way_fails_the_mark(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    """The whole hand is checked, not only this seat's tiles: a server that tells the page
    another seat discarded a tile it did not (the test rewrites one discard on its way, as
    a cheating server would send it) is caught by the page's own check at the end."""
    page = context_for(DESKTOP)
    mine: list[int] = []
    changed: list[str] = []

    def change_a_discard(event: dict[str, Any]) -> bool:
        if event["kind"] == "dealt" and event["tiles"]:
            mine.append(event["seat"])
        elif event["kind"] == "discarded" and mine and event["seat"] != mine[0] and not changed:
            changed.append(event["tile"])
            event["tile"] = tile_code((parse_one(event["tile"]) + 1) % 27)
            return True
        return False

    _rewrite_events(page, change_a_discard)
    register(page, server.base, "vf_discard_changed")
    to_english(page)
    _settle_with_bots(page, "huzhou")
    mark = page.wait_for_selector("#settle-verify")
    assert changed
    assert mark is not None and mark.get_attribute("data-status") == "failed"
    assert mark.get_attribute("data-what") in ("play", "end")
    assert "Verification failed" in mark.inner_text()
    page.screenshot(path=str(screenshots / "verify-desktop-en-discard-changed.png"))


# 丽水 (tests/rules/test_hand.py): the dealer discards 5m, seats 2 and 3 both win on it
TWO_WAIT_ON_5M = {
    "variant": "lishui", "stake": 1, "dealer": 0,
    "hands": ["566778899m11s667z", "13579m2468s3344z", "123456789p111z5m", "234567s234m222z5m"],
    "indicator": "9s",
}


def test_a_test_mode_hand_is_marked_not_verifiable(
    context_for: Callable[..., Page], server: Server, screenshots: Path
) -> None:
    page = context_for(PHONE)
    register(page, server.base, "vf_tester")
    server.make_admin("vf_tester")
    with server.http() as http:
        created = http.post("/admin/tables/test", json=TWO_WAIT_ON_5M,
                            headers=server.token("vf_tester"))
        assert created.status_code in (200, 201), created.text
        table_id = str(created.json()["id"])
    unfold(page, "tables")  # folded under quick match on a phone
    page.click("#lobby-refresh")
    page.click(f'button.sit[data-table="{table_id}"]')
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    page.wait_for_selector(PROMPTED)
    page.click("#autoplay")
    mark = page.wait_for_selector("#settle-verify", timeout=60_000)
    assert mark is not None and mark.get_attribute("data-status") == "test_mode"
    assert "无法验证（测试模式）" in mark.inner_text() and "摆好的牌墙" in mark.inner_text()
    assert not page.query_selector("#settle-verify details")  # no seed, no commitment
    page.screenshot(path=str(screenshots / "verify-phone-zh-test-mode.png"))

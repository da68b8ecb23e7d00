"""The client's hand model (clients/js/src/model.js, served at /static/kit/), run in the
browser, agrees with the server: fed seat 0's events of self-played hands of every variant,
after every step that sent events it shows the same wall count, the same tile count per seat
and seat 0's own tiles as the server's view of that seat; a snapshot of the view rebuilds
the same."""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import Page

from app.protocol import seat_payload, view_model
from app.protocol.tiles import codes
from app.rules.bots import Bot, GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.views import seat_view

SEEDS = (5, 6, 7, 8)  # even: the greedy bot (wins, kongs); odd: random legal actions; 福州
# seeds 5-7 turn flowers up from the wall (开金)
SNAPSHOT_EVERY = 10  # steps between snapshots checked


def _hands() -> list[dict[str, Any]]:
    hands = []
    for variant in sorted(VARIANTS):
        ruleset = get_ruleset(variant)
        for seed in SEEDS:
            bot: Bot = GreedyBot() if seed % 2 == 0 else RandomBot(random.Random(seed))
            state, events = new_hand(ruleset, seed, TableContext())
            steps = []
            number = 0
            while True:
                view = seat_view(state, 0)
                own = view["seats"][0]["hand"]
                steps.append({
                    "events": [seat_payload(e, 0).model_dump(mode="json") for e in events],
                    "wall": view["wall_remaining"],
                    "counts": [s["hand_count"] for s in view["seats"]],
                    "hand": None if own is None else codes(own),
                    "view": view_model(view).model_dump(mode="json")
                    if number % SNAPSHOT_EVERY == 0 else None,
                })
                if state.phase == "ended":
                    break
                seat = pending_seats(state)[0]
                state, events = step(state, bot.choose(state, seat, legal_actions(state, seat)))
                number += 1
            hands.append({"variant": variant, "seed": seed, "steps": steps})
    return hands


CHECK = """async (hands) => {
  const { applyEvent, emptyHand, fromSnapshot } = await import("/static/kit/model.js");
  const { sortHand } = await import("/static/js/tiles.js");
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const sorted = (tiles) => [...(tiles || [])].sort();
  const wrong = [];
  for (const hand of hands) {
    const h = emptyHand();
    hand.steps.forEach((s, i) => {
      for (const e of s.events) applyEvent(h, e, "H");
      const where = `${hand.variant} seed ${hand.seed} step ${i}`;
      if (s.events.length && !h.ended) {
        const counts = h.seats.map((x) => x.count);
        if (h.wall !== s.wall) wrong.push(`${where}: wall ${h.wall} != ${s.wall}`);
        if (!same(counts, s.counts)) wrong.push(`${where}: counts ${counts} != ${s.counts}`);
        if (s.hand && !same(sorted(h.seats[0].hand), sorted(s.hand))) wrong.push(`${where}: hand`);
      }
      if (s.view && !h.ended) {
        const snap = fromSnapshot(s.view, "H");
        if (snap.wall !== s.wall || !same(snap.seats.map((x) => x.count), s.counts)) {
          wrong.push(`${where}: snapshot`);
        }
      }
      if (h.wild && h.seats[0].hand) {
        const order = sortHand(h.seats[0].hand, h.wild.wild);
        const wilds = order.filter((x) => x === h.wild.wild).length;
        if (order.slice(0, wilds).some((x) => x !== h.wild.wild)) {
          wrong.push(`${where}: wilds first`);
        }
      }
    });
    if (!h.ended) wrong.push(`${hand.variant} seed ${hand.seed}: no hand_ended`);
  }
  return wrong;
}"""


def test_the_client_model_follows_the_server_in_every_variant(client_page: Page) -> None:
    hands = _hands()
    assert len(hands) == len(VARIANTS) * len(SEEDS)
    assert client_page.evaluate(CHECK, hands) == []

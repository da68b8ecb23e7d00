"""The replay viewer's steps (the client kit's replay.js, over the one table model, model.js,
that live play uses too), run in the browser, agree with the server through self-played
hands of every variant: fed a player's events (seat 0's copy) the model shows the server's
wall count, tile count per seat and seat 0's tiles after every step; fed an administrator's
(every tile) it shows every seat's tiles; the deal is one step and every later event one
more, a draw shown in its own step only (another seat's hidden); the last step is the
settlement."""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import Page

from app.protocol import event_payload, seat_payload
from app.protocol.tiles import codes
from app.rules.bots import Bot, GreedyBot, RandomBot
from app.rules.context import TableContext
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.variants import VARIANTS, get_ruleset
from app.rules.views import seat_view

SEEDS = (5, 6, 7)  # even: the greedy bot (wins, kongs); odd: random legal actions; 福州 开金


def _hands() -> list[dict[str, Any]]:
    hands = []
    for variant in sorted(VARIANTS):
        ruleset = get_ruleset(variant)
        for seed in SEEDS:
            bot: Bot = GreedyBot() if seed % 2 == 0 else RandomBot(random.Random(seed))
            state, events = new_hand(ruleset, seed, TableContext())
            steps = []
            while True:
                views = [seat_view(state, s) for s in range(4)]
                steps.append({
                    "player": [seat_payload(e, 0).model_dump(mode="json") for e in events],
                    "admin": [event_payload(e).model_dump(mode="json") for e in events],
                    "wall": views[0]["wall_remaining"],
                    "counts": [s["hand_count"] for s in views[0]["seats"]],
                    "hands": [codes(v["seats"][s]["hand"]) for s, v in enumerate(views)],
                })
                if state.phase == "ended":
                    break
                seat = pending_seats(state)[0]
                state, events = step(state, bot.choose(state, seat, legal_actions(state, seat)))
            hands.append({"variant": variant, "seed": seed, "steps": steps})
    return hands


CHECK = """async (hands) => {
  const { buildSteps } = await import("/static/kit/replay.js");
  const { applyEvent: apply, emptyHand: emptyState } = await import("/static/kit/model.js");
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const sorted = (tiles) => [...(tiles || [])].sort();
  const wrong = [];
  for (const hand of hands) {
    const player = emptyState();
    const admin = emptyState();
    hand.steps.forEach((s, i) => {
      for (const e of s.player) apply(player, e);
      for (const e of s.admin) apply(admin, e);
      const where = `${hand.variant} seed ${hand.seed} step ${i}`;
      if (!s.player.length || player.ended) return;
      const counts = player.seats.map((x) => x.count);
      if (player.wall !== s.wall) wrong.push(`${where}: wall ${player.wall} != ${s.wall}`);
      if (!same(counts, s.counts)) wrong.push(`${where}: counts ${counts} != ${s.counts}`);
      if (!same(sorted(player.seats[0].hand), sorted(s.hands[0]))) wrong.push(`${where}: own hand`);
      if (player.seats.slice(1).some((x) => x.hand !== null)) wrong.push(`${where}: a hidden hand shown`);
      admin.seats.forEach((x, seat) => {
        if (!same(sorted(x.hand), sorted(s.hands[seat]))) wrong.push(`${where}: admin hand ${seat}`);
      });
    });
    const events = hand.steps.flatMap((s) => s.player);
    const steps = buildSteps(events);
    const opening = events.findIndex((e) => e.kind !== "hand_started" && e.kind !== "dealt");
    if (steps.length !== events.length - opening + 1) wrong.push(`${hand.variant} seed ${hand.seed}: steps`);
    const last = steps[steps.length - 1].state;
    if (!last.ended || last.seats.some((x) => x.hand === null)) {
      wrong.push(`${hand.variant} seed ${hand.seed}: the last step is not the revealed settlement`);
    }
    if (steps[0].state.ended) wrong.push(`${hand.variant} seed ${hand.seed}: steps share their state`);
    steps.slice(1).forEach((step, i) => {
      const e = step.events[0];
      const drawn = e.kind !== "drew" ? null : e.seat === 0 ? e.tile : "hidden";
      if (step.drawn !== drawn || step.actor !== (e.seat ?? null)) {
        wrong.push(`${hand.variant} seed ${hand.seed} step ${i + 1}: drawn ${step.drawn}, actor ${step.actor}`);
      }
    });
  }
  return wrong;
}"""


def test_the_replay_model_follows_the_server_in_every_variant(client_page: Page) -> None:
    hands = _hands()
    assert len(hands) == len(VARIANTS) * len(SEEDS)
    assert client_page.evaluate(CHECK, hands) == []

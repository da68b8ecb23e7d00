"""A player's turn prompt says which discards leave the hand ready (听) and what each then
waits on, with the copies not yet seen; claim prompts say nothing; a resume says it again."""

from __future__ import annotations

from app.rules.actions import Discard
from app.rules.hints import ReadyDiscard, Wait
from app.rules.tiles import parse_one
from app.tables.messages import PromptOut, Resume
from tests.tables.test_actor import TWO_WAIT_ON_5M, Harness


async def test_the_turn_prompt_marks_the_discards_that_make_the_hand_ready() -> None:
    h = Harness(scenario=TWO_WAIT_ON_5M)
    await h.deal()
    five_m, red = parse_one("5m"), parse_one("7z")
    # 566778899m 11s 667z: throwing 5m waits on 中, throwing 中 waits on 5m; one copy of
    # each is in the dealer's own hand, so three are unseen
    assert h.prompt(0).ready == (
        ReadyDiscard(five_m, (Wait(red, 3),)),
        ReadyDiscard(red, (Wait(five_m, 3),)),
    )
    resent = [i for s, i in await h.handle(Resume(0, 0)) if s == 0 and isinstance(i, PromptOut)]
    assert resent and resent[-1].ready == h.prompt(0).ready

    await h.act(0, Discard(0, five_m))
    claims = [h.prompt(seat) for seat in h.pending()]
    assert claims and all(p.ready == () for p in claims)  # a claim window: no hint

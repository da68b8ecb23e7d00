"""Building a hand's replay (回放): the stored record re-run by the rules core
(`app.rules.hand`), as the JSON of what the viewer may see. This is the expensive part of
`GET /hands/{id}/replay` (app/api/replay.py) and the part that never changes: a stored
hand is never rewritten, so the same (hand, viewer, views) always builds the same bytes,
which `app.api.replay_cache` keeps.

`build` runs in a worker process (app/api/replay_cache.py): it takes a `StoredHand` (the
record's text columns, which pickle cheaply) and returns `Built`, the answer's `events`
and `steps` already serialized. This module imports the rules core and the protocol's
models only: nothing of the web stack or the database, so a worker starts light.

Who sees what is decided here, per viewer (information hiding holds after the hand too):
`viewer` None is an administrator's view (every event unredacted, every seat's concealed
tiles in each step); a seat number is that seat's view (`seat_payload(event, seat)`,
`seat_view(state, seat)`). Whether the caller may see it is the route's business.

A step is what one action showed: the events it caused and the view after them. An action
that showed nothing yet (a 过 in a claim window, which the window's result shows) belongs
to the next step, so a step never tells who could have claimed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter

from app.protocol import (
    EventPayload,
    SeatView,
    WireAction,
    event_payload,
    seat_payload,
    to_rules_action,
    view_model,
)
from app.protocol.tiles import to_tile
from app.rules.actions import Action, Escape
from app.rules.context import TableContext
from app.rules.events import Event
from app.rules.hand import new_hand, step
from app.rules.state import HandState, Preset
from app.rules.variants import get_ruleset
from app.rules.variants.base import Ruleset
from app.rules.views import revealed_view, seat_view

_WIRE_ACTION: TypeAdapter[WireAction] = TypeAdapter(WireAction)


class ReplayStep(BaseModel):
    """One step of the hand: the view after the events `events[previous upto:upto]`."""

    upto: int = Field(ge=1, description="how many of `events` this step has shown")
    view: SeatView = Field(description="the viewer's whole view after them (a snapshot's)")


# the answer's own field types (app/api/replay.py ReplayOut), so the bytes are the ones
# pydantic would write for the whole answer
_EVENTS: TypeAdapter[list[EventPayload]] = TypeAdapter(list[EventPayload])
_STEPS: TypeAdapter[list[ReplayStep]] = TypeAdapter(list[ReplayStep])


@dataclass(frozen=True, slots=True)
class StoredHand:
    """What a replay is built from: a `HandRecord`'s columns as stored (JSON text)."""

    variant: str
    seed: str  # hex
    ctx: str
    actions: str
    preset: str | None = None
    options: str | None = None


@dataclass(frozen=True, slots=True)
class Built:
    """A replay's immutable part as JSON: `events` (a list of event payloads) and, when
    views were asked for, `steps` (a list of `ReplayStep`)."""

    events: bytes
    steps: bytes | None

    @property
    def size(self) -> int:
        """The bytes it holds (what the cache counts against its bound)."""
        return len(self.events) + len(self.steps or b"")


class Recorded:
    """A stored hand as the rules core replays it."""

    def __init__(self, hand: StoredHand) -> None:
        stored: dict[str, Any] = json.loads(hand.ctx)
        self.ruleset: Ruleset = get_ruleset(hand.variant)
        if hand.options is not None:  # a private room's house rules
            chosen = type(self.ruleset.options)(**json.loads(hand.options))
            self.ruleset = replace(self.ruleset, options=chosen)
        self.seed = bytes.fromhex(hand.seed)
        self.ctx = TableContext(
            dealer=stored["dealer"],
            streak=stored["streak"],
            seat_points=tuple(stored["seat_points"]),  # type: ignore[arg-type]
            draw_bonus=stored["draw_bonus"],
        )
        self.preset: Preset | None = None
        if hand.preset is not None:
            wall = json.loads(hand.preset)
            self.preset = Preset(
                tuple(to_tile(code) for code in wall["wall"]),
                tuple(wall["dice"]),  # type: ignore[arg-type]
                tuple(wall["wild_dice"]),  # type: ignore[arg-type]
            )
        self.actions: list[Action] = [
            Escape(a["seat"]) if a["action"]["type"] == "escape"
            else to_rules_action(_WIRE_ACTION.validate_python(a["action"]), a["seat"])
            for a in json.loads(hand.actions)
        ]

    def play(
        self, viewer: int | None, views: bool
    ) -> tuple[list[Event], list[ReplayStep] | None]:
        """Every event of the hand, unredacted, and with `views` the hand step by step as
        `viewer` saw it (None: every seat's tiles). One pass, each action applied in place:
        a step's view is taken before the next action changes the state."""
        state, events = new_hand(self.ruleset, self.seed, self.ctx, self.preset)
        steps = [ReplayStep(upto=len(events), view=_view(state, viewer))] if views else None
        for action in self.actions:
            state, more = step(state, action, in_place=True)
            if not more:
                continue  # nothing shown yet: part of the next step
            events += more
            if steps is not None:
                steps.append(ReplayStep(upto=len(events), view=_view(state, viewer)))
        return events, steps


def _view(state: HandState, viewer: int | None) -> SeatView:
    # an administrator: every seat's tiles, as `/admin/tables?reveal=true` shows them
    return view_model(revealed_view(state) if viewer is None else seat_view(state, viewer))


def payloads(events: list[Event], viewer: int | None) -> list[EventPayload]:
    """The events as `viewer` may see them (None: unredacted)."""
    return [event_payload(e) if viewer is None else seat_payload(e, viewer) for e in events]


def build(hand: StoredHand, viewer: int | None, views: bool) -> Built:
    """The replay's events (and with `views` its steps) as `viewer` saw the hand, as JSON."""
    events, steps = Recorded(hand).play(viewer, views)
    return Built(
        events=_EVENTS.dump_json(payloads(events, viewer)),
        steps=None if steps is None else _STEPS.dump_json(steps),
    )


def warm_up() -> None:
    """Import everything a build needs (a worker's initializer: its first build is not
    the one that pays for the imports)."""

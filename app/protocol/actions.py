"""A seat's action on the wire, and its conversion to and from the core's actions.

The wire form names no seat: the server knows who sent it. Tiles are codes. The escape
(逃跑) is not an action on the wire: a client sends ``leave`` (see `messages.LeaveMessage`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import Field

from app.protocol.base import ClientModel
from app.protocol.tiles import TileCode, to_code, to_tile
from app.protocol.vocabulary import Decision, SpecialActionName
from app.rules import actions as rules


class DiscardAction(ClientModel):
    """出牌: discard `tile`."""

    type: Literal["discard"] = "discard"
    tile: TileCode
    """the tile to discard"""


class ChowAction(ClientModel):
    """吃: take the previous seat's discard into the run starting at `low` (as it plays)."""

    type: Literal["chow"] = "chow"
    low: TileCode
    """the lowest tile of the run as it plays (a 财神 standing in plays as the tile it
    replaces)"""


class PungAction(ClientModel):
    """碰: take the discard with a pair."""

    type: Literal["pung"] = "pung"


class ExposedKongAction(ClientModel):
    """明杠: take the discard with three alike."""

    type: Literal["exposed_kong"] = "exposed_kong"


class ConcealedKongAction(ClientModel):
    """暗杠: four alike from the hand, on one's own turn."""

    type: Literal["concealed_kong"] = "concealed_kong"
    tile: TileCode
    """the tile of which the hand holds four"""


class AddedKongAction(ClientModel):
    """加杠 (上杠): add `tile` to one's own 碰."""

    type: Literal["added_kong"] = "added_kong"
    tile: TileCode
    """the fourth tile, added to the 碰 of its kind"""


class HuAction(ClientModel):
    """胡: declare a win (自摸 on one's turn, or on the tile in a claim window)."""

    type: Literal["hu"] = "hu"


class PassAction(ClientModel):
    """过: decline every claim in the open window."""

    type: Literal["pass"] = "pass"


class DecideAction(ClientModel):
    """A decision before the deal (温州 买底 / 顶底: "buy", "counter", "decline")."""

    type: Literal["decide"] = "decide"
    choice: Decision
    """the decision"""


class SpecialAction(ClientModel):
    """A variant's own action by name (福州 抢金: "rob_gold" with the tile discarded)."""

    type: Literal["special"] = "special"
    name: SpecialActionName
    """the variant's action"""
    tile: TileCode
    """the tile the action concerns (抢金: the tile put out for the 金)"""


WireAction = Annotated[
    DiscardAction
    | ChowAction
    | PungAction
    | ExposedKongAction
    | ConcealedKongAction
    | AddedKongAction
    | HuAction
    | PassAction
    | DecideAction
    | SpecialAction,
    Field(discriminator="type"),
]


def to_rules_action(action: WireAction, seat: int) -> rules.Action:
    """The core action `seat` takes by sending `action`."""
    match action:
        case DiscardAction(tile=tile):
            return rules.Discard(seat, to_tile(tile))
        case ChowAction(low=low):
            return rules.Chow(seat, to_tile(low))
        case PungAction():
            return rules.Pung(seat)
        case ExposedKongAction():
            return rules.ExposedKong(seat)
        case ConcealedKongAction(tile=tile):
            return rules.ConcealedKong(seat, to_tile(tile))
        case AddedKongAction(tile=tile):
            return rules.AddedKong(seat, to_tile(tile))
        case HuAction():
            return rules.Hu(seat)
        case PassAction():
            return rules.Pass(seat)
        case DecideAction(choice=choice):
            return rules.Decide(seat, choice)
        case SpecialAction(name=name, tile=tile):
            return rules.Special(seat, name, to_tile(tile))
    raise TypeError(f"not a wire action: {action!r}")


def from_rules_action(action: rules.Action) -> WireAction:
    """The wire form of a core action (for prompts). An escape has none: it is a ``leave``."""
    match action:
        case rules.Discard(tile=tile):
            return DiscardAction(tile=to_code(tile))
        case rules.Chow(low=low):
            return ChowAction(low=to_code(low))
        case rules.Pung():
            return PungAction()
        case rules.ExposedKong():
            return ExposedKongAction()
        case rules.ConcealedKong(tile=tile):
            return ConcealedKongAction(tile=to_code(tile))
        case rules.AddedKong(tile=tile):
            return AddedKongAction(tile=to_code(tile))
        case rules.Hu():
            return HuAction()
        case rules.Pass():
            return PassAction()
        case rules.Decide(choice=choice):
            return DecideAction.model_validate({"choice": choice})
        case rules.Special(name=name, tile=tile):
            return SpecialAction.model_validate({"name": name, "tile": to_code(tile)})
    raise ValueError(f"{action!r} has no wire action (an escape is sent as a leave message)")


@lru_cache(maxsize=8192)
def logged_action(action: rules.Action) -> str:
    """One applied action as the journal and the hand records log it, as compact JSON:
    ``{"seat": n, "action": <wire action>}`` (an escape's action is ``{"type": "escape"}``).
    Cached: a hand logs about a hundred actions out of a few thousand possible ones, and
    building each one's wire model again was most of the cost of storing a hand."""
    body = ({"type": "escape"} if isinstance(action, rules.Escape)
            else from_rules_action(action).model_dump(mode="json"))
    return json.dumps({"seat": action.seat, "action": body}, separators=(",", ":"))

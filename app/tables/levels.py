"""The level of a table's house bots (issue 39): 新手 / 普通 / 高手 (beginner, standard,
expert), chosen per table (POST /tables), per private room (its owner) and per quick-match
level (the operator). The default, standard, is the greedy bot the house always played, so
nothing changes for anyone who does not choose. 托管 (the server playing a player's seat)
is `AutoplayBot` whatever the level (RULES.md 1): the level is the house bots' only."""

from __future__ import annotations

import random
from typing import Literal, cast

from app.rules.bots import BeginnerBot, Bot, GreedyBot
from app.rules.expert import ExpertBot

BotLevel = Literal["beginner", "standard", "expert"]
BOT_LEVELS: tuple[BotLevel, ...] = ("beginner", "standard", "expert")
DEFAULT_BOT_LEVEL: BotLevel = "standard"

# one player per level, shared by every table (the greedy and expert bots keep no state;
# the beginner's slips draw from one generator: server-side play, logged as actions)
_BOTS: dict[str, Bot] = {
    "beginner": BeginnerBot(random.Random()),
    "standard": GreedyBot(),
    "expert": ExpertBot(),
}


def bot_level(value: object) -> BotLevel:
    """A stored level (a table's config, a room's options, a quick-match level), read
    leniently: an unknown or missing one is the default."""
    return cast(BotLevel, value) if value in BOT_LEVELS else DEFAULT_BOT_LEVEL


def house_bot(level: str) -> Bot:
    """The bot that plays a house bot's seat at a table of `level`."""
    return _BOTS[bot_level(level)]

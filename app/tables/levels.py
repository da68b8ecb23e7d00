"""The level of a table's house bots (issue 39): 新手 / 普通 / 高手 (beginner, standard,
expert), chosen per table (POST /tables), per private room (its owner) and per quick-match
level (the operator). The default, standard, is the greedy bot the house always played, so
nothing changes for anyone who does not choose. 托管 (the server playing a player's seat)
is `AutoplayBot` whatever the table's level (RULES.md 1), unless the player chooses their own
托管 level (`AutoplayLevel`: standard = `AutoplayBot`, expert = `ExpertBot`); 新手 is not
offered for a player's own seat (nobody asks to be played badly)."""

from __future__ import annotations

import random
from typing import Literal, cast

from app.rules.bots import AutoplayBot, BeginnerBot, Bot, GreedyBot
from app.rules.expert import ExpertBot

BotLevel = Literal["beginner", "standard", "expert"]
BOT_LEVELS: tuple[BotLevel, ...] = ("beginner", "standard", "expert")
DEFAULT_BOT_LEVEL: BotLevel = "standard"
AutoplayLevel = Literal["standard", "expert"]
AUTOPLAY_LEVELS: tuple[AutoplayLevel, ...] = ("standard", "expert")
DEFAULT_AUTOPLAY_LEVEL: AutoplayLevel = "standard"

# one player per level, shared by every table (the greedy and expert bots keep no state;
# the beginner's slips draw from one generator: server-side play, logged as actions)
_BOTS: dict[str, Bot] = {
    "beginner": BeginnerBot(random.Random()),
    "standard": GreedyBot(),
    "expert": ExpertBot(),
}
# 托管 of a player's seat, by the level the player chose (standard: 胡, else no claim, else
# the greedy turn, RULES.md 1; expert: the 高手 house bot, claims included)
_AUTOPLAY: dict[str, Bot] = {"standard": AutoplayBot(), "expert": _BOTS["expert"]}


def bot_level(value: object) -> BotLevel:
    """A stored level (a table's config, a room's options, a quick-match level), read
    leniently: an unknown or missing one is the default."""
    return cast(BotLevel, value) if value in BOT_LEVELS else DEFAULT_BOT_LEVEL


def house_bot(level: str) -> Bot:
    """The bot that plays a house bot's seat at a table of `level`."""
    return _BOTS[bot_level(level)]


def autoplay_level(value: object) -> AutoplayLevel:
    """A player's stored 托管 level (a journalled seat), read leniently: an unknown or
    missing one is the default."""
    return cast(AutoplayLevel, value) if value in AUTOPLAY_LEVELS else DEFAULT_AUTOPLAY_LEVEL


def autoplay_bot(level: str) -> Bot:
    """The bot that plays a player's seat on 托管 at the level the player chose."""
    return _AUTOPLAY[autoplay_level(level)]

"""Tiles, notation and count vectors.

A tile kind is an int:

- 0-8   1m-9m  万 (characters)
- 9-17  1p-9p  筒 (dots)
- 18-26 1s-9s  条 (bamboo)
- 27-33 1z-7z  东 南 西 北 白 发 中 (winds, then dragons)
- 34-41 1f-8f  春 夏 秋 冬 梅 兰 竹 菊 (flowers)

Notation groups digits before their suit letter: ``"123m456p789s11z"``. A count vector is a
34-long sequence of ints indexed by kind (flowers are never part of a count vector).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import compress

Tile = int

NUM_KINDS = 34  # suited tiles and honours: what a count vector indexes
NUM_ALL_KINDS = 42  # with the eight flowers
SUITS = "mpsz"
SUIT_LETTERS = "mpszf"

EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
HONOURS = tuple(range(27, 34))
FLOWERS = tuple(range(34, 42))

_NUMERALS = "一二三四五六七八九"
_SUIT_NAMES = {"m": "万", "p": "筒", "s": "条"}
_HONOUR_NAMES = "东南西北白发中"
_FLOWER_NAMES = "春夏秋冬梅兰竹菊"

_GROUP = re.compile(r"(\d+)([mpszf])")


class TileError(ValueError):
    """A tile string or code that is not valid notation."""


def suit_of(tile: Tile) -> str:
    """The suit letter of a tile: m, p, s, z or f."""
    if 0 <= tile < 27:
        return "mps"[tile // 9]
    if 27 <= tile < 34:
        return "z"
    if 34 <= tile < 42:
        return "f"
    raise TileError(f"no tile kind {tile}")


def rank_of(tile: Tile) -> int:
    """1-9 for suited tiles, 1-7 for honours, 1-8 for flowers."""
    if 0 <= tile < 27:
        return tile % 9 + 1
    if 27 <= tile < 34:
        return tile - 26
    if 34 <= tile < 42:
        return tile - 33
    raise TileError(f"no tile kind {tile}")


def is_suited(tile: Tile) -> bool:
    return 0 <= tile < 27


def is_honour(tile: Tile) -> bool:
    """字牌: a wind or a dragon."""
    return 27 <= tile < 34


def is_flower(tile: Tile) -> bool:
    return 34 <= tile < 42


def make(rank: int, suit: str) -> Tile:
    """The tile of `rank` (1-based) in `suit`."""
    limits = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 8}
    if suit not in limits or not 1 <= rank <= limits[suit]:
        raise TileError(f"no tile {rank}{suit}")
    if suit == "z":
        return 26 + rank
    if suit == "f":
        return 33 + rank
    return "mps".index(suit) * 9 + rank - 1


def parse(text: str) -> list[Tile]:
    """Parse notation into a list of tiles, in written order: ``parse("12m5z") == [0, 1, 31]``."""
    compact = text.replace(" ", "")
    if not compact:
        return []
    if _GROUP.sub("", compact):
        raise TileError(f"not tile notation: {text!r}")
    tiles: list[Tile] = []
    for digits, suit in _GROUP.findall(compact):
        tiles.extend(make(int(d), suit) for d in digits)
    return tiles


def parse_one(text: str) -> Tile:
    tiles = parse(text)
    if len(tiles) != 1:
        raise TileError(f"expected one tile, got {text!r}")
    return tiles[0]


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Sorted notation: ``format_tiles([31, 0, 1]) == "12m5z"``."""
    ordered = sorted(tiles)
    out: list[str] = []
    for letter in SUIT_LETTERS:
        digits = "".join(str(rank_of(t)) for t in ordered if suit_of(t) == letter)
        if digits:
            out.append(digits + letter)
    return "".join(out)


def tile_code(tile: Tile) -> str:
    """One tile's notation: ``tile_code(0) == "1m"``."""
    if 0 <= tile < NUM_ALL_KINDS:
        return _CODES[tile]
    raise TileError(f"no tile kind {tile}")


# every view and event names its tiles by code: a lookup, not two calls and a format each
_CODES = tuple(f"{rank_of(t)}{suit_of(t)}" for t in range(NUM_ALL_KINDS))


def chinese_name(tile: Tile) -> str:
    """一万, 五筒, 九条, 东, 白, 春 ..."""
    suit = suit_of(tile)
    rank = rank_of(tile)
    if suit == "z":
        return _HONOUR_NAMES[rank - 1]
    if suit == "f":
        return _FLOWER_NAMES[rank - 1]
    return _NUMERALS[rank - 1] + _SUIT_NAMES[suit]


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    """The 34-long count vector of `tiles` (flowers are not allowed here)."""
    counts = [0] * NUM_KINDS
    for t in tiles:
        if not 0 <= t < NUM_KINDS:
            raise TileError(f"tile {t} has no place in a count vector")
        counts[t] += 1
    return counts


def tiles_of(counts: Sequence[int]) -> list[Tile]:
    """The sorted tiles of a count vector."""
    tiles: list[Tile] = []
    for t in compress(range(len(counts)), counts):
        tiles += [t] * counts[t]
    return tiles


def full_set(with_flowers: bool = False) -> list[Tile]:
    """Every physical tile of a set: 4 of each of the 34 kinds (136), plus 8 flowers (144)."""
    return list(_FULL_SETS[with_flowers])


_SUITED_AND_HONOURS = tuple(t for t in range(NUM_KINDS) for _ in range(4))
_FULL_SETS = {False: _SUITED_AND_HONOURS, True: _SUITED_AND_HONOURS + FLOWERS}

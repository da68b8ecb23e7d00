"""Tiles on the wire: notation codes, never the core's int kinds.

A tile is sent as its code: ``"5m"`` (万), ``"5p"`` (筒), ``"5s"`` (条), ``"1z"``-``"7z"``
(东 南 西 北 白 发 中), ``"1f"``-``"8f"`` (春 夏 秋 冬 梅 兰 竹 菊). Anything else is refused at the edge.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from app.rules.tiles import Tile, parse_one, tile_code

TILE_CODE_PATTERN = r"^[1-9][mps]$|^[1-7]z$|^[1-8]f$"

TileCode = Annotated[
    str,
    StringConstraints(pattern=TILE_CODE_PATTERN),
    Field(description="a tile: 1m-9m 万, 1p-9p 筒, 1s-9s 条, 1z-7z 东南西北白发中, 1f-8f 春夏秋冬梅兰竹菊"),
]
"""One tile in notation, e.g. "5m", "7z", "1f"."""


def to_code(tile: Tile) -> str:
    """The wire code of a core tile kind: ``to_code(0) == "1m"``."""
    return tile_code(tile)


def to_tile(code: str) -> Tile:
    """The core tile kind of a wire code: ``to_tile("1m") == 0``."""
    return parse_one(code)


def codes(tiles: list[Tile] | tuple[Tile, ...]) -> list[str]:
    return [tile_code(t) for t in tiles]

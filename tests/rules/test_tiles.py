"""Tile notation, count vectors and Chinese names (RULES.md: tile notation)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.tiles import (
    TileError,
    chinese_name,
    counts_of,
    format_tiles,
    full_set,
    parse,
    parse_one,
    tile_code,
    tiles_of,
)


def test_notation_parses_to_kind_indices() -> None:
    assert parse("123m456p789s11z") == [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27]
    assert parse("7z") == [33]
    assert parse("1f8f") == [34, 41]
    assert parse("") == []


def test_format_groups_sorted_by_suit() -> None:
    assert format_tiles(parse("11z9s1f321m")) == "123m9s11z1f"
    assert tile_code(33) == "7z"


@given(st.lists(st.integers(min_value=0, max_value=41), max_size=20))
def test_format_and_parse_round_trip(tiles: list[int]) -> None:
    assert parse(format_tiles(tiles)) == sorted(tiles)


@pytest.mark.parametrize("bad", ["0m", "8z", "9f", "12", "m", "1x", "1m2"])
def test_bad_notation_is_refused(bad: str) -> None:
    with pytest.raises(TileError):
        parse(bad)


def test_parse_one_wants_exactly_one_tile() -> None:
    assert parse_one("5z") == 31
    with pytest.raises(TileError):
        parse_one("55z")


def test_chinese_names() -> None:
    names = [chinese_name(t) for t in parse("19m5p7s1234567z18f")]
    assert names == ["一万", "九万", "五筒", "七条", "东", "南", "西", "北", "白", "发", "中", "春", "菊"]


def test_count_vectors_index_m_p_s_then_honours() -> None:
    counts = counts_of(parse("19m1p9s7z"))
    assert len(counts) == 34
    assert [i for i, c in enumerate(counts) if c] == [0, 8, 9, 26, 33]
    assert tiles_of(counts) == parse("19m1p9s7z")
    with pytest.raises(TileError):
        counts_of(parse("1f"))


def test_tile_sets() -> None:
    assert len(full_set()) == 136 and len(full_set(with_flowers=True)) == 144
    assert all(full_set().count(k) == 4 for k in range(34))

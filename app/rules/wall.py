"""The wall (牌墙): a seeded shuffle, dice, dealing, front draws and tail (海底) draws.

The wall is a uniform random permutation of the tile set drawn from an injected
`random.Random` (RULES.md 1: the dice do not move the break point). Normal draws take the
front; replacement draws after a 杠 or a flower take the tail. A variant may keep a number
of tail tiles for replacements only (温州 16, 福州 18+). A tile turned up to show the wild
is taken out of the wall: no draw takes it and it counts in no reserve.

A hand's seed is bytes (the server draws 32 from `secrets`); the RNG is
`random.Random(int.from_bytes(seed, "big"))`, and every random choice of a hand is made
with `getrandbits` alone, as written out below, so that the wall and the dice of a seed
are defined by this file and CPython's documented Mersenne Twister, not by how some
version of `random` implements `randint` or `shuffle` (docs/protocol.md, "Verifying a
hand", states the procedure for other implementations; `app.rules.verify` checks it).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import NamedTuple

from app.rules.tiles import Tile

Dice = tuple[int, int]

SEED_BYTES = 32  # what the server draws for each hand (`secrets.token_bytes`)
INT_SEED_BYTES = 8  # an int seed's byte form (tests, and hands stored before seeds were bytes)


def seed_bytes(seed: int | bytes) -> bytes:
    """A hand's seed as bytes. An int (tests, self-play, hands recorded when seeds were
    63-bit ints) becomes its big-endian form in 8 bytes (more if it needs them), so that
    `seed_int(seed_bytes(n)) == n` and the hand it makes is the one it always made."""
    if isinstance(seed, bytes):
        if not seed:
            raise ValueError("a seed has at least one byte")
        return seed
    if seed < 0:
        raise ValueError("a seed is a non-negative int or bytes")
    return seed.to_bytes(max(INT_SEED_BYTES, (seed.bit_length() + 7) // 8), "big")


def seed_int(seed: bytes) -> int:
    """The int that seeds the hand's RNG: the seed's bytes read big-endian."""
    return int.from_bytes(seed, "big")


def hand_rng(seed: bytes) -> random.Random:
    """The hand's RNG: CPython's Mersenne Twister seeded with `seed_int(seed)`."""
    return random.Random(seed_int(seed))


def commitment(seed: bytes) -> str:
    """What is published before the deal: the lowercase hex SHA-256 of the seed's bytes."""
    return hashlib.sha256(seed).hexdigest()


def below(getrandbits: Callable[[int], int], n: int) -> int:
    """A uniform int in [0, n), n >= 1: k = n.bit_length() bits from `getrandbits`, drawn
    again while they make n or more (CPython's `Random._randbelow`, written out)."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def roll_dice(rng: random.Random) -> Dice:
    """Two dice, each 1 + `below(6)`: the values `rng.randint(1, 6)` gives, twice."""
    getrandbits = rng.getrandbits
    return (1 + below(getrandbits, 6), 1 + below(getrandbits, 6))


def first_dealer(dice: Dice) -> int:
    """The table's first dealer: seat (sum - 1) mod 4 counted from seat 0."""
    return (sum(dice) - 1) % 4


def shuffled(tiles: list[Tile], rng: random.Random) -> tuple[Tile, ...]:
    """A uniform random permutation: Fisher-Yates from the last place down, each index drawn
    by rejection sampling on `rng.getrandbits` (the algorithm of `random.Random.shuffle`,
    written out: a seed's wall order is defined here, and no method is called per tile)."""
    order = list(tiles)
    getrandbits = rng.getrandbits
    for i in range(len(order) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


class Wall(NamedTuple):
    """An immutable wall with a front pointer and a tail pointer.

    `tiles[head:tail]` are the tiles still in the wall; `reserve` of them, at the tail end,
    can only be drawn as replacements. (A NamedTuple: one is made per draw.)
    """

    tiles: tuple[Tile, ...]
    head: int
    tail: int
    reserve: int = 0

    @classmethod
    def of(cls, tiles: tuple[Tile, ...]) -> Wall:
        """A full wall, nothing drawn yet."""
        return cls(tiles, 0, len(tiles), 0)

    @property
    def remaining(self) -> int:
        """Tiles still in the wall, reserve included."""
        return self.tail - self.head

    @property
    def live(self) -> int:
        """Tiles a normal (front) draw may still take."""
        live = self.tail - self.head - self.reserve
        return max(0, live)

    def remaining_tiles(self) -> tuple[Tile, ...]:
        return self.tiles[self.head : self.tail]

    def draw_front(self) -> tuple[Tile, Wall]:
        tiles, head, tail, reserve = self
        if tail - head - reserve <= 0:
            raise IndexError("no live tile left at the front of the wall")
        return tiles[head], _new_wall(Wall, (tiles, head + 1, tail, reserve))

    def draw_tail(self) -> tuple[Tile, Wall]:
        if self.remaining <= 0:
            raise IndexError("no tile left at the tail of the wall")
        return self.tiles[self.tail - 1], Wall(self.tiles, self.head, self.tail - 1, self.reserve)

    def take_from_tail(self, n: int) -> tuple[Tile, Wall]:
        """Remove the n-th tile counted from the tail (1 = the last tile): a wild indicator."""
        if not 1 <= n <= self.remaining:
            raise IndexError(f"no {n}-th tile from the tail")
        index = self.tail - n
        tiles = self.tiles[:index] + self.tiles[index + 1 :]
        return self.tiles[index], Wall(tiles, self.head, self.tail - 1, self.reserve)

    def with_reserve(self, reserve: int) -> Wall:
        return Wall(self.tiles, self.head, self.tail, reserve)


_new_wall = tuple.__new__  # Wall(...) without the keyword-handling constructor: one per draw


def deal(wall: Wall, dealer: int, hand_size: int) -> tuple[list[list[Tile]], Wall]:
    """Deal from the front, as at a real table (抓牌): rounds of four tiles from the dealer in
    turn order, then one tile each until every seat has `hand_size`, then one more for the
    dealer."""
    hands: list[list[Tile]] = [[] for _ in range(4)]
    order = [(dealer + i) % 4 for i in range(4)]
    tiles, pos = wall.tiles, wall.head
    if wall.live < 4 * hand_size + 1:
        raise IndexError("no live tile left at the front of the wall")
    held = 0  # every seat holds as many tiles after a round
    while held < hand_size:
        take = 4 if hand_size - held >= 4 else 1
        for seat in order:
            hands[seat] += tiles[pos : pos + take]
            pos += take
        held += take
    hands[dealer].append(tiles[pos])
    return hands, wall._replace(head=pos + 1)

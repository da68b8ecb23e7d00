"""The stable error codes a client may receive, and what each means.

A client branches on the code, never on the message text. The rules core's codes
(`app.rules.errors.IllegalAction`) go out unchanged.
"""

from __future__ import annotations

from typing import Annotated, Literal

from app.protocol.vocabulary import Meanings

_ErrorCode = Literal[
    "malformed", "too_large", "unknown_type", "validation_error",
    "unauthorized", "wrong_table", "stale", "not_in_hand", "in_hand", "no_hand", "paused",
    "hand_voided",
    "rate_limited", "kicked", "internal",
    "no_table", "seated_here", "spectators_full", "spectators_not_allowed", "wrong_room_code",
    "chat_limited",
    "hand_over", "not_your_turn", "bad_seat", "tile_not_in_hand", "wild_discard_forbidden",
    "discard_restricted", "not_offered", "already_answered", "cannot_win", "no_tiles_left",
    "unknown_action",
]  # fmt: skip
ERROR_MEANINGS: dict[str, str] = {
    # the edge: the message itself
    "malformed": "not UTF-8 JSON, or not a JSON object",
    "too_large": "more than 4096 bytes (the parser's code: on the table socket such a frame "
    "closes it with 1009 before it is read, so a client never receives it there)",
    "unknown_type": "a `type` this version does not know (also a second `hello`)",
    "validation_error": "a known type with a missing, extra or invalid field (the message "
    "names it)",
    # the table: who may send what, when
    "unauthorized": "not signed in, or the token expired",
    "wrong_table": "not seated at that table",
    "stale": "sent on an older state than the seat's pending decision (a late answer to a "
    "prompt that has passed): resume",
    "not_in_hand": "an action between hands",
    "in_hand": "a `ready` while a hand is in play or its result is being stored",
    "no_hand": "a `resume` while the table has never dealt",
    "paused": "an admin paused the table; actions wait for the resume",
    "hand_voided": "the hand was voided (dissolved, or failed twice inside the server); no "
    "silver moved",
    "rate_limited": "more than 20 messages a second: the frames beyond were dropped, not "
    "answered (at most one such error a second); send a dropped action again",
    "kicked": "an administrator removed the player from the table",
    "internal": "the server failed; the hand is restored from its action log",
    # watching (旁观) and quick chat (快捷语)
    "no_table": "no such table: it was closed, or never opened",
    "seated_here": "a `watch` of the table the player sits at: a seat sees its own table",
    "spectators_full": "the table has as many spectators as it takes (50 by default): try "
    "again later",
    "spectators_not_allowed": "the private room's owner does not allow spectators",
    "wrong_room_code": "a `watch` of a private room without its code, or with another one",
    "chat_limited": "more quick chat than a seat may send (by default 3 at once, then one every "
    "3 s): "
    "this one was not sent",
    # the rules core (IllegalAction codes)
    "hand_over": "the hand has ended",
    "not_your_turn": "it is another seat's turn, or the claim window has closed",
    "bad_seat": "no such seat",
    "tile_not_in_hand": "the tile is not in the seat's hand",
    "wild_discard_forbidden": "the variant forbids discarding the wild",
    "discard_restricted": "the variant's discard rule forbids this tile now (温州 honours first)",
    "not_offered": "the prompt did not offer this action",
    "already_answered": "the seat has already answered this claim window or decision",
    "cannot_win": "the hand is not complete with this tile",
    "no_tiles_left": "the wall has no tile left for a kong's replacement",
    "unknown_action": "an action the variant does not have",
}
ErrorCode = Annotated[_ErrorCode, Meanings(_ErrorCode, ERROR_MEANINGS)]

ERROR_CODES: frozenset[str] = frozenset(ERROR_MEANINGS)

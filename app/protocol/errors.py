"""The stable error codes a client may receive, and what each means.

A client branches on the code, never on the message text. The rules core's codes
(`app.rules.errors.IllegalAction`) go out unchanged.
"""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    # the edge: the message itself
    "malformed",  # not JSON, not a JSON object, or not UTF-8
    "too_large",  # longer than MAX_MESSAGE_BYTES
    "unknown_type",  # a message `type` this version does not know
    "validation_error",  # a known type with a missing, extra or invalid field
    # the table: who may send what, when
    "unauthorized",  # not signed in, or the token expired
    "wrong_table",  # the sender is not seated at that table
    "stale",  # the client's seq is behind: resume first
    "not_in_hand",  # an action between hands
    "no_hand",  # a resume while the table has no hand in play
    "paused",  # an admin paused the table: actions wait for resume
    "hand_voided",  # the hand was voided (dissolved, or failed twice): no silver moved
    "rate_limited",  # too many messages; slow down
    "kicked",  # an administrator removed the player from the table
    "internal",  # the server failed; the hand is restored from its action log
    # the rules core (IllegalAction codes)
    "hand_over",
    "not_your_turn",
    "bad_seat",
    "tile_not_in_hand",
    "wild_discard_forbidden",
    "discard_restricted",
    "not_offered",
    "already_answered",
    "cannot_win",
    "no_tiles_left",
    "unknown_action",
]

ERROR_CODES: frozenset[str] = frozenset(ErrorCode.__args__)  # type: ignore[attr-defined]

"""The one error the rules raise for a refused action, with a stable code."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the state does not allow. The state it was tried on is unchanged.

    Codes (stable, used on the wire): hand_over, not_your_turn, bad_seat, tile_not_in_hand,
    wild_discard_forbidden, discard_restricted, not_offered, already_answered, cannot_win,
    no_tiles_left, unknown_action.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

"""Public replays (公开回放): a player of a hand makes its replay readable by anyone with its
link, and private again.

- Only a player who sat in the hand may: anyone else, an administrator included, is
  refused `not_a_player` (403); an unknown or forged hand id is `not_found` (404).
- Only once the hand has ended and its result is stored: a hand still in play on this node
  (its id is the table's current hand, which its players know) is `hand_not_ended` (409);
  a voided hand is `hand_voided` (409): it has no result, and its seed was never revealed.
- What a public replay shows the server decides (app/api/replay.py): the ended hand with
  every seat's tiles, as its revealed seed lets anyone rebuild it; nothing of a hand in
  play, since only stored hands are replayed.
- Making it public twice, or private twice, changes nothing and answers the same.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy import delete

from app.api import errors
from app.api.deps import SessionDep
from app.api.errors import ApiError
from app.api.security import AUTH_ERRORS, CurrentAccount
from app.store.models import HandRecord, SharedHand
from app.tables.registry import TableRegistry

router = APIRouter(tags=["hands"])


class SharingIn(BaseModel):
    public: bool = Field(description="true: anyone with the link may read the replay; "
                         "false: only the hand's players again")


class SharingOut(BaseModel):
    hand_id: str
    public: bool
    path: str = Field(description="the replay's page in the browser client, to put after the "
                      "server's origin (`/#/replay/{hand_id}`)")
    api_path: str = Field(description="where the public replay is read without an account")


def _in_play(request: Request, hand_id: str) -> bool:
    """Whether `hand_id` is the current hand of a table of this node (a hand id is its
    table's id and the hand's number)."""
    registry: TableRegistry = request.app.state.tables
    live = registry.get(hand_id.rpartition("-")[0])
    return live is not None and live.table.hand_id == hand_id


@router.put(
    "/hands/{hand_id}/public",
    response_model=SharingOut,
    responses=errors.responses(
        "not_found", "not_a_player", "hand_not_ended", "hand_voided", "validation_error",
        *AUTH_ERRORS,
    ),
)
async def set_public(
    hand_id: str, body: SharingIn, account: CurrentAccount, session: SessionDep,
    request: Request,
) -> SharingOut:
    """Make the hand's replay public (`{"public": true}`) or private again (`false`). A
    player of the hand only, once it has ended and its result is stored."""
    async with session.begin():
        record = await session.get(HandRecord, hand_id)
        if record is None:
            if _in_play(request, hand_id):
                raise ApiError(
                    "hand_not_ended", "the hand is still in play; share it once it has ended"
                )
            raise ApiError("not_found", f"no hand {hand_id!r}")
        seats: list[int | None] = json.loads(record.seats)
        if account.id not in seats:
            raise ApiError("not_a_player", "only a player of the hand may share its replay")
        if record.voided:
            raise ApiError("hand_voided", "a voided hand has no replay to share")
        shared = await session.get(SharedHand, hand_id)
        if body.public and shared is None:
            session.add(SharedHand(hand_id=hand_id, account_id=account.id))
        elif not body.public and shared is not None:
            await session.execute(delete(SharedHand).where(SharedHand.hand_id == hand_id))
    return SharingOut(
        hand_id=hand_id, public=body.public, path=f"/#/replay/{hand_id}",
        api_path=f"/replays/{hand_id}",
    )

"""The response models several routers share: accounts, per-variant stats, the 湖州 level,
ledger pages and token pairs. Money (silver, 银两) is always a whole number; rates are
fractions between 0 and 1 rounded to 4 places; a time is RFC 3339 with its offset, in UTC
(`Utc`), whatever the database hands back.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

from app.protocol.vocabulary import LedgerReason

# A username's NFKC form has 3 to 32 letters, digits and _ (ASCII) and CJK ideographs (the
# unified block, extension A and extensions B and beyond). The name is kept as typed (at
# most 32 characters), so any form NFKC maps into these is welcome: fullwidth letters
# (ａｃｃ１＿ｘ, as a Chinese input method types them), compatibility ideographs (豈, U+F900).
# Every form and case of a name is one name (`accounts.username_key`), so none can pose as
# another account; on the NFKC form, where the pattern is checked, casefolding changes
# nothing but ASCII case.
USERNAME_CHARS = "A-Za-z0-9_\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f"
USERNAME_PATTERN = f"^[{USERNAME_CHARS}]{{3,32}}$"
USERNAME_RE = re.compile(USERNAME_PATTERN)
USERNAME_RULE = "3-32 letters, digits, _ or CJK characters (in NFKC)"


def as_utc(moment: datetime) -> datetime:
    """`moment` in UTC with its offset: SQLite hands back naive datetimes (stored in UTC),
    which would go out without the offset that RFC 3339's date-time requires."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


Utc = Annotated[datetime, AfterValidator(as_utc)]


def valid_username(username: str) -> str:
    """`username` as typed, when its NFKC form is a username (USERNAME_PATTERN)."""
    if not USERNAME_RE.fullmatch(unicodedata.normalize("NFKC", username)):
        raise ValueError(f"a username has {USERNAME_RULE}")
    return username


ACCOUNT_EXAMPLE: JsonDict = {
    "id": 7,
    "username": "阿明哥",
    "role": "player",
    "balance": 10000,
    "title": "生手",
    "banned": False,
    "created_at": "2026-11-29T12:00:00Z",
}
"""A new player's account in the API's examples."""


class AccountOut(BaseModel):
    """An account as its owner or an administrator sees it."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={"example": ACCOUNT_EXAMPLE},
    )

    id: int
    username: str
    role: str
    balance: int = Field(description="silver (银两), whole units")
    title: str = Field(description="the title by silver (the 丽水 ladder)")
    banned: bool
    created_at: Utc


class VariantStatsOut(BaseModel):
    """One account's record in one variant."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "points": 42,
                "hands": 120,
                "wins": 30,
                "self_draws": 12,
                "deal_ins": 18,
                "escapes": 1,
                "disconnects": 2,
                "win_rate": 0.25,
                "escape_rate": 0.0083,
            }
        }
    )

    points: int = Field(description="积分, never below 0")
    hands: int
    wins: int
    self_draws: int
    deal_ins: int
    escapes: int
    disconnects: int
    win_rate: float = Field(description="wins / hands (0 with no hands)")
    escape_rate: float = Field(description="逃跑率: escapes / hands (0 with no hands)")


class NextStepOut(BaseModel):
    """The next title (or level) up a ladder: its name, the silver (or points) it starts at,
    and where the one held now started."""

    model_config = ConfigDict(
        json_schema_extra={"example": {"title": "赌棍", "at": 24000, "since": 12000}}
    )

    title: str
    at: int = Field(description="the silver (or 湖州 points) the next title starts at")
    since: int = Field(description="the silver (or points) the title held now started at")


class LevelOut(BaseModel):
    """The 湖州 level (from 湖州 points) and the base score it plays at."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "title": "科长",
                "base": 4,
                "points": 42,
                "next": {"title": "助处", "at": 90, "since": 42},
            }
        }
    )

    title: str
    base: int
    points: int
    next: NextStepOut | None = Field(default=None, description="null at the top level (麻将王)")


class LedgerEntryOut(BaseModel):
    """One silver change."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={
            "example": {
                "id": 31,
                "delta": 10000,
                "balance_after": 10000,
                "reason": "signup_grant",
                "hand_id": None,
                "note": None,
                "created_at": "2026-11-29T12:00:00Z",
            }
        },
    )

    id: int = Field(description="the row's id; rows are numbered in the order they were written")
    delta: int = Field(description="silver in (+) or out (-)")
    balance_after: int = Field(description="the account's silver after this row")
    reason: LedgerReason = Field(description="why the silver moved")
    hand_id: str | None = Field(description="the hand a settlement or penalty row belongs to")
    note: str | None = Field(description="an operator's note (admin adjustments), or null")
    created_at: Utc = Field(description="when the row was written (UTC)")


class LedgerPage(BaseModel):
    """Ledger rows, newest first; pass `next_before` as `before` for the next page (null:
    no more rows)."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "entries": [
                    {
                        "id": 31,
                        "delta": 10000,
                        "balance_after": 10000,
                        "reason": "signup_grant",
                        "hand_id": None,
                        "note": None,
                        "created_at": "2026-11-29T12:00:00Z",
                    }
                ],
                "next_before": None,
            }
        }
    )

    entries: list[LedgerEntryOut]
    next_before: int | None


class TokenPairOut(BaseModel):
    """A fresh access token (short-lived) and refresh token (single use)."""

    model_config = ConfigDict(
        json_schema_extra={
            "example": {
                "access_token": "eyJhbGciOiJIUzI1NiIs...",
                "refresh_token": "eyJhbGciOiJIUzI1NiIs...",
                "token_type": "bearer",
                "expires_in": 900,
            }
        }
    )

    access_token: str
    refresh_token: str
    token_type: str = "bearer"
    expires_in: int = Field(description="seconds the access token lives")

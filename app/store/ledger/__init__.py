"""The silver ledger (银两): every change is an append-only row, and the account's balance
changes in the same transaction. A row's idempotency key is unique: posting the same change
twice is a no-op. Money is whole units, never a float.

- `posting.py`: the row-and-balance primitives (`apply`, `post`; locking the accounts,
  booking the rows, once per idempotency key) and the changes of one account (grants,
  adjustments);
- `settlement.py`: silver between accounts under the balance floor (hands, penalties, the
  house's bots);
- `transfers.py`: rows between accounts inside the caller's transaction (a tournament's
  fees, refunds and prizes);
- `queries.py`: reading an account's rows.

Callers use the names below (`ledger.settle_hand`, `ledger.LedgerError`, ...).
"""

from app.store.ledger.posting import (
    ADJUSTMENT_KEY_LENGTH,
    LedgerError,
    Posted,
    adjust,
    adjust_once,
    apply,
    grant_house_float,
    grant_signup,
    post,
)
from app.store.ledger.queries import ledger_page
from app.store.ledger.settlement import (
    Debts,
    HandToSettle,
    PenaltyReason,
    floor_payments,
    level_bots,
    pairwise_debts,
    penalize,
    settle_hand,
    settle_hands,
    share_out,
)
from app.store.ledger.transfers import Move, Transferred, transfer, writing

__all__ = [
    "ADJUSTMENT_KEY_LENGTH",
    "Debts",
    "HandToSettle",
    "LedgerError",
    "Move",
    "PenaltyReason",
    "Posted",
    "Transferred",
    "adjust",
    "adjust_once",
    "apply",
    "floor_payments",
    "grant_house_float",
    "grant_signup",
    "ledger_page",
    "level_bots",
    "pairwise_debts",
    "penalize",
    "post",
    "settle_hand",
    "settle_hands",
    "share_out",
    "transfer",
    "writing",
]

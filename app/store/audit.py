"""The audit log (操作日志): every administrator action is one row with who did it, the action,
the target account and the details as JSON text, written in the action's own transaction so
that an action and its row stand or fall together."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import AuditLog


async def record(
    session: AsyncSession,
    admin_id: int,
    action: str,
    target_account_id: int | None,
    details: dict[str, Any],
) -> AuditLog:
    row = AuditLog(
        admin_id=admin_id,
        action=action,
        target_account_id=target_account_id,
        detail=json.dumps(details, ensure_ascii=False, sort_keys=True),
    )
    session.add(row)
    await session.flush()
    return row

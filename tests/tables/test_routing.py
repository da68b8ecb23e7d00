"""Routing a client's message to its table (app/tables/routing.py): a table the account does
not sit at answers ``wrong_table`` naming the seq the message carried."""

from __future__ import annotations

from app.protocol import ActionMessage, ErrorMessage, LeaveMessage, ResumeMessage
from app.protocol.actions import PassAction
from app.store.db import Database
from app.tables.registry import TableRegistry
from app.tables.routing import route


async def test_a_message_for_another_table_is_refused_with_its_seq(db: Database) -> None:
    registry = TableRegistry(db.sessions)
    action = ActionMessage(table_id="T9", seq=41, action=PassAction())
    refused = route(action, registry, account_id=1)
    assert isinstance(refused, ErrorMessage)
    assert (refused.code, refused.ref_seq) == ("wrong_table", 41)
    resume = route(ResumeMessage(table_id="T9", last_seq=8), registry, account_id=1)
    assert isinstance(resume, ErrorMessage) and resume.ref_seq == 8
    leave = route(LeaveMessage(table_id="T9"), registry, account_id=1)
    assert isinstance(leave, ErrorMessage) and leave.ref_seq is None  # it carries none

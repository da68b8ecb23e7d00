"""`python -m app.admin create-admin USERNAME`: the first administrator."""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy import select

from app import admin as command
from app.settings import Settings
from app.store.db import Database
from app.store.models import Account, AuditLog, LedgerEntry


def _settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        jwt_secret="test-secret-" + "x" * 32,
        argon2_time_cost=1,
        argon2_memory_kib=1024,
        argon2_parallelism=1,
    )


def _state(database_url: str) -> tuple[list[tuple[str, str, int]], list[str], list[str]]:
    async def read() -> tuple[list[tuple[str, str, int]], list[str], list[str]]:
        db = Database.connect(database_url)
        try:
            async with db.sessions() as s:
                people = [
                    (a.username, a.role, a.balance)
                    for a in (await s.execute(select(Account).order_by(Account.id))).scalars()
                ]
                reasons = list((await s.execute(select(LedgerEntry.reason))).scalars())
                audit = [
                    f"{r.action} {json.loads(r.detail)['by']}"
                    for r in (await s.execute(select(AuditLog).order_by(AuditLog.id))).scalars()
                ]
            return people, reasons, audit
        finally:
            await db.close()

    return asyncio.run(read())


def test_create_admin_from_the_environment_then_promote(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(database_url)
    monkeypatch.setenv("ADMIN_PASSWORD", "a long admin password")
    assert command.main(["create-admin", "boss"], settings=settings) == 0
    assert "boss (id 1) created as an admin" in capsys.readouterr().out
    people, reasons, audit = _state(database_url)
    assert people == [("boss", "admin", 10000)] and reasons == ["signup_grant"]
    assert audit == ["create_admin create-admin command"]

    assert command.main(["create-admin", "boss"], settings=settings) == 0  # already one: no-op
    assert _state(database_url)[0] == [("boss", "admin", 10000)]


def test_promote_an_existing_player_and_log_in(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(database_url)
    monkeypatch.setenv("ADMIN_PASSWORD", "first password")
    assert command.main(["create-admin", "ann"], settings=settings) == 0

    # make ann a player again, then promote her: no new grant, password unchanged
    async def demote() -> None:
        db = Database.connect(database_url)
        async with db.sessions() as s, s.begin():
            (await s.execute(select(Account))).scalar_one().role = "player"
        await db.close()

    asyncio.run(demote())
    monkeypatch.setenv("ADMIN_PASSWORD", "ignored for an existing account")
    assert command.main(["create-admin", "ann"], settings=settings) == 0
    people, reasons, audit = _state(database_url)
    assert people == [("ann", "admin", 10000)] and reasons == ["signup_grant"]
    assert audit == ["create_admin create-admin command", "promote_admin create-admin command"]


def test_the_password_is_prompted_twice_without_the_variable(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _settings(database_url)
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    answers = iter(["typed password", "typed pasword"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    assert command.main(["create-admin", "boss"], settings=settings) == 2
    assert "differ" in capsys.readouterr().err
    answers = iter(["typed password", "typed password"])
    assert command.main(["create-admin", "boss"], settings=settings) == 0
    assert _state(database_url)[0] == [("boss", "admin", 10000)]


def test_bad_names_and_passwords_are_refused(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(database_url)
    monkeypatch.setenv("ADMIN_PASSWORD", "short")
    assert command.main(["create-admin", "boss"], settings=settings) == 2
    monkeypatch.setenv("ADMIN_PASSWORD", "long enough password")
    assert command.main(["create-admin", "no spaces"], settings=settings) == 2
    assert _state(database_url)[0] == []

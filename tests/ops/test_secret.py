"""No secret in the source is ever used to sign tokens: without JWT_SECRET one process makes a
random secret and keeps it beside its database (owner-only), so tokens survive a restart;
several nodes, or the container image, refuse to start without JWT_SECRET."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import jwt
import pytest

from app.main import create_app
from app.ops.secret import SecretError, secret_path
from app.settings import Settings
from app.store.db import Database
from tests.api.helpers import admin, app_client, assert_error, login, register

# the secret the server fell back to before, and any constant an attacker might try
CONSTANTS = ["dev-only-secret-change-me-dev-only-secret", "x" * 40, "secret" * 6]


def _forged(account_id: int, secret: str) -> dict[str, str]:
    now = int(time.time())
    token = jwt.encode({"sub": str(account_id), "role": "admin", "type": "access", "iat": now,
                        "exp": now + 600}, secret, algorithm="HS256")
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_without_jwt_secret_a_kept_random_secret_signs_and_survives_a_restart(
    database_url: str, db: Database
) -> None:
    settings = Settings(database_url=database_url)  # no JWT_SECRET
    async with app_client(settings) as http:
        boss_id, boss = await admin(http, db)
        for constant in CONSTANTS:  # an admin token forged with a constant: refused
            forged = await http.get("/admin/accounts", headers=_forged(boss_id, constant))
            assert_error(forged, 401, "unauthorized")
        assert (await http.get("/admin/accounts", headers=boss)).status_code == 200
        await register(http, "ann")
        tokens = await login(http, "ann")

    kept = secret_path(settings)
    assert kept == Path(f"{database_url.removeprefix('sqlite:///')}.jwt-secret")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert len(kept.read_text()) >= 32
    async with app_client(settings) as http:  # a restart: the same secret, the token still works
        me = await http.get("/me", headers={"Authorization": f"Bearer {tokens['access_token']}"})
        assert me.status_code == 200 and me.json()["username"] == "ann"


@pytest.mark.parametrize("backend", ["sqlite"])
def test_several_nodes_or_the_image_refuse_to_start_without_jwt_secret(
    database_url: str,
) -> None:
    with pytest.raises(SecretError, match="JWT_SECRET is not set: with REDIS_URL"):
        create_app(Settings(database_url=database_url, redis_url="redis://127.0.0.1:1/0"))
    with pytest.raises(SecretError, match="REQUIRE_JWT_SECRET"):
        create_app(Settings(database_url=database_url, require_jwt_secret=True))
    assert not secret_path(Settings(database_url=database_url)).exists()  # nothing was made


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_kept_secret_others_may_read_is_refused(database_url: str) -> None:
    settings = Settings(database_url=database_url)
    create_app(settings)
    kept = secret_path(settings)
    os.chmod(kept, 0o644)
    with pytest.raises(SecretError, match="chmod 600"):
        create_app(settings)


def test_a_short_jwt_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="jwt_secret"):
        Settings(jwt_secret="too-short")

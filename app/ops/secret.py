"""The secret that signs and checks tokens. No secret written in the source is ever used.

- `JWT_SECRET` set (at least 32 characters): that one.
- Unset, with several nodes (`REDIS_URL`) or where the operator asks for it
  (`REQUIRE_JWT_SECRET`, set by the container image): the server refuses to start and says
  why (every node must sign with the same secret, and a container's files do not last).
- Unset, one process: a random secret made on first start and kept in a file readable only
  by its owner (mode 0600), beside the SQLite database (`mahjong.db.jwt-secret`), or in
  the working directory for another database (`.jwt-secret`), or at `JWT_SECRET_FILE`. It
  is read again at every start, so tokens survive a restart.

`JWT_OLD_SECRETS` (settings.jwt_old_secrets) are secrets that check tokens but never sign
one: a rotation (docs/operating.md, "Rotating the signing key"). Every token names the key
that signed it by its id (`kid` in its header), derived from the secret (`key_id`), so an id
travels with its secret from JWT_SECRET to the old list and never has to be kept in step.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import stat
from pathlib import Path

from sqlalchemy import make_url

from app.settings import MIN_SECRET_LENGTH, Settings


class SecretError(RuntimeError):
    """The server cannot have a signing secret: the message says what to set."""


# what a key id is made from besides the secret: its id is no use for anything else
KEY_ID_LABEL = b"zjmahjong token key id"
KEY_ID_LENGTH = 16  # hex digits (64 bits)

log = logging.getLogger(__name__)


def key_id(secret: str) -> str:
    """The id a token names `secret` by: the first hex digits of HMAC-SHA256 keyed with the
    secret over a fixed label. Every node with the secret derives the same id; finding the
    secret from it is as hard as from any token's signature."""
    digest = hmac.new(secret.encode(), KEY_ID_LABEL, hashlib.sha256).hexdigest()
    return digest[:KEY_ID_LENGTH]


def token_keys(current: str, old: list[str]) -> dict[str, str]:
    """The secrets that check tokens by their key id, the signing one (`current`) first; an
    old secret equal to the current one, or given twice, counts once."""
    keys: dict[str, str] = {}
    for secret in [current, *old]:
        kid = key_id(secret)
        if keys.setdefault(kid, secret) != secret:  # two secrets, one id: never seen
            raise SecretError(f"two token secrets have one key id ({kid}): replace one")
    return keys


def signing_secret(settings: Settings) -> str:
    """The token signing secret for `settings` (see the module); the key ids are logged."""
    secret = _signing_secret(settings)
    kids = list(token_keys(secret, settings.jwt_old_secrets))
    log.info("tokens are signed with key id %s; old keys still accepted: %s", kids[0],
             ", ".join(kids[1:]) or "none")
    return secret


def _signing_secret(settings: Settings) -> str:
    if settings.jwt_secret:
        return settings.jwt_secret
    if settings.redis_url:
        raise SecretError(
            "JWT_SECRET is not set: with REDIS_URL every node must sign tokens with the "
            f"same secret; set JWT_SECRET to a random string of at least {MIN_SECRET_LENGTH} "
            "characters (e.g. `openssl rand -hex 32`)"
        )
    if settings.require_jwt_secret:
        raise SecretError(
            "JWT_SECRET is not set and REQUIRE_JWT_SECRET is on (the container image): set "
            f"JWT_SECRET to a random string of at least {MIN_SECRET_LENGTH} characters"
        )
    return _kept_secret(secret_path(settings))


def secret_path(settings: Settings) -> Path:
    """Where a one-process server keeps the secret it made."""
    if settings.jwt_secret_file:
        return Path(settings.jwt_secret_file)
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(f"{url.database}.jwt-secret")
    return Path(".jwt-secret")


def _kept_secret(path: Path) -> str:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read(path)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(secrets.token_urlsafe(48))
    return _read(path)


def _read(path: Path) -> str:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SecretError(f"{path} holds the token secret and must be readable by its owner "
                          f"only: chmod 600 {path}")
    secret = path.read_text(encoding="ascii").strip()
    if len(secret) < MIN_SECRET_LENGTH:
        raise SecretError(f"{path} holds fewer than {MIN_SECRET_LENGTH} characters: delete it "
                          "to have a new secret made (every token is then refused)")
    return secret

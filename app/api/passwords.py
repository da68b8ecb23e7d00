"""Password hashing (密码): Argon2id through argon2-cffi's `PasswordHasher`.

Rules:
- a password is stored only as its Argon2id hash, with the cost in settings;
- a hash made with other parameters is replaced at the next good login (`needs_rehash`);
- checking a password for an unknown user verifies it against a dummy hash of the same cost,
  so both paths take the same time (and call `verify` exactly once).
Hashing blocks for tens of milliseconds, so the async helpers run it in a worker thread.
"""

from __future__ import annotations

import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from starlette.concurrency import run_in_threadpool

from app.settings import Settings


class Passwords:
    """Hash, check and rehash passwords with one Argon2 parameter set."""

    def __init__(self, hasher: PasswordHasher) -> None:
        self.hasher = hasher
        self._dummy: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Passwords:
        return cls(
            PasswordHasher(
                time_cost=settings.argon2_time_cost,
                memory_cost=settings.argon2_memory_kib,
                parallelism=settings.argon2_parallelism,
            )
        )

    def hash(self, password: str) -> str:
        return self.hasher.hash(password)

    def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = self.hasher.hash(secrets.token_urlsafe(24))
        return self._dummy

    def check(self, stored_hash: str | None, password: str) -> bool:
        """True when `password` matches `stored_hash`; with no hash (unknown user) the
        password is verified against the dummy hash and the answer is False."""
        target = stored_hash if stored_hash is not None else self._dummy_hash()
        try:
            ok = self.hasher.verify(target, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
        return bool(ok) and stored_hash is not None

    def needs_rehash(self, stored_hash: str) -> bool:
        try:
            return self.hasher.check_needs_rehash(stored_hash)
        except InvalidHashError:
            return True

    async def hash_async(self, password: str) -> str:
        return await run_in_threadpool(self.hash, password)

    async def check_async(self, stored_hash: str | None, password: str) -> bool:
        return await run_in_threadpool(self.check, stored_hash, password)

    async def warm_up(self) -> None:
        """Make the dummy hash now, so the first unknown-user login is not the slow one."""
        await run_in_threadpool(self._dummy_hash)

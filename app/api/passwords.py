"""Password hashing (密码): Argon2id through argon2-cffi's `PasswordHasher`.

Rules:
- a password is stored only as its Argon2id hash, with the cost in settings;
- a hash made with other parameters is replaced at the next good login (`needs_rehash`);
- checking a password for an unknown user verifies it against a dummy hash of the same cost,
  so both paths take the same time (and call `verify` exactly once);
- at most settings.password_hashes_at_once hashes or checks run at once in this process
  (each holds argon2_memory_kib of memory and a core for tens of milliseconds): the async
  helpers wait for a turn at most settings.password_wait_seconds, then raise the API's
  503 `busy` with Retry-After (the server is short of time, not the caller at fault;
  docs/architecture.md, "The edge", "Logins"). A turn is held until the worker thread
  that hashes returns.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from starlette.concurrency import run_in_threadpool

from app.api.errors import ApiError
from app.settings import Settings

T = TypeVar("T")
BUSY_RETRY_AFTER = 1  # seconds, as the other `busy` answers (app/api/errors.py)


class Passwords:
    """Hash, check and rehash passwords with one Argon2 parameter set."""

    def __init__(
        self, hasher: PasswordHasher, at_once: int = 2, wait_seconds: float = 3.0
    ) -> None:
        self.hasher = hasher
        self.wait_seconds = wait_seconds
        self._turns = asyncio.Semaphore(at_once)
        self._dummy: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Passwords:
        return cls(
            PasswordHasher(
                time_cost=settings.argon2_time_cost,
                memory_cost=settings.argon2_memory_kib,
                parallelism=settings.argon2_parallelism,
            ),
            at_once=settings.password_hashes_at_once,
            wait_seconds=settings.password_wait_seconds,
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

    async def _in_turn(self, work: Callable[..., T], *args: object) -> T:
        """`work(*args)` in a worker thread once a turn is free (module docstring)."""
        try:
            async with asyncio.timeout(self.wait_seconds):
                await self._turns.acquire()
        except TimeoutError:
            raise ApiError(
                "busy",
                "the server is busy checking passwords; try again",
                headers={"Retry-After": str(BUSY_RETRY_AFTER)},
            ) from None
        # the turn is given back when the thread is done, even if the request is cancelled
        # meanwhile (the thread cannot be stopped, so it still holds its memory and core)
        done = asyncio.ensure_future(run_in_threadpool(work, *args))
        done.add_done_callback(lambda _: self._turns.release())
        return await asyncio.shield(done)

    async def hash_async(self, password: str) -> str:
        return await self._in_turn(self.hash, password)

    async def check_async(self, stored_hash: str | None, password: str) -> bool:
        return await self._in_turn(self.check, stored_hash, password)

    async def warm_up(self) -> None:
        """Make the dummy hash now, so the first unknown-user login is not the slow one."""
        await run_in_threadpool(self._dummy_hash)

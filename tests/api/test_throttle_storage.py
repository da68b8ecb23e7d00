"""The request limits when their counters' storage fails (Redis down): requests are served
uncounted, and the operator gets one warning, not one per request."""

from __future__ import annotations

import logging

import httpx
import pytest
from fastapi import FastAPI


async def test_a_failing_counter_storage_leaves_requests_served(
    app: FastAPI, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def unreachable(*_: object, **__: object) -> bool:
        raise ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(app.state.limits, "acquire_sliding_window_entry", unreachable)
    with caplog.at_level(logging.WARNING, logger="app.api.throttle"):
        answers = [await client.get("/variants") for _ in range(5)]
    assert [a.status_code for a in answers] == [200] * 5
    warnings = [r.getMessage() for r in caplog.records if r.name == "app.api.throttle"]
    assert len(warnings) == 1 and "Connection refused" in warnings[0]

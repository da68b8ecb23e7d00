"""The monitoring port: with `METRICS_PORT` set, `/metrics` is not on the public port but on
a second listener of the same process (`METRICS_HOST`, loopback by default), which serves
nothing else. The container image and the compose file use it, so that the public port (the
one the proxy forwards) shows no metrics.

The listener is started and stopped by the app's lifespan, so it is there however the app is
served (`python -m app`, the tests' servers). It reads the live tables of the app it belongs
to, on the same event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from typing import Any

import uvicorn
from fastapi import FastAPI, Response

from app.ops import metrics


class _Listener(uvicorn.Server):
    """A uvicorn server that leaves the process's signals to the main one."""

    def capture_signals(self) -> Any:
        return nullcontext()


def monitoring_app(source: FastAPI) -> FastAPI:
    """An app with one route, `/metrics`, reporting the process `source` runs in."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/metrics")
    async def scrape() -> Response:
        return await metrics.scrape(source.state)

    return app


@asynccontextmanager
async def monitoring_port(source: FastAPI, host: str, port: int) -> AsyncIterator[None]:
    """Serve `monitoring_app(source)` on `host:port` while the block runs."""
    config = uvicorn.Config(
        monitoring_app(source), host=host, port=port, lifespan="off", log_config=None,
        access_log=False,
    )
    listener = _Listener(config)
    task = asyncio.create_task(listener.serve())
    while not listener.started and not task.done():
        await asyncio.sleep(0.01)
    if task.done():  # it could not listen (the port is taken): say so at start
        task.result()
        raise RuntimeError(f"the monitoring port {host}:{port} did not open")
    try:
        yield
    finally:
        listener.should_exit = True
        await task

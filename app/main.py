"""The ASGI application: `create_app(settings)` wires the database, the error shape and the
routers; `app` is the instance uvicorn serves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import errors
from app.rules.variants import VARIANTS
from app.settings import Settings, get_settings
from app.store.db import Database


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.db = Database.connect(settings.database_url)
        yield
        await app.state.db.close()

    app = FastAPI(title="Zhejiang and Fujian mahjong", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    errors.install(app)

    @app.get("/health", tags=["ops"])
    def health() -> dict[str, str]:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @app.get("/variants", tags=["rules"])
    def variants() -> list[dict[str, object]]:
        """The rule sets this server plays, with their options and defaults."""
        return [
            {"name": name, "hand_size": rs.hand_size, "options": vars(rs.options)}
            for name, rs in VARIANTS.items()
        ]

    return app


app = create_app()

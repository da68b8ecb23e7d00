"""The ASGI application."""

from __future__ import annotations

from fastapi import FastAPI

from app.rules.variants import VARIANTS

app = FastAPI(title="Zhejiang and Fujian mahjong", version="0.1.0")


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

"""`python -m app`: upgrade the database to the latest migration, grant the house its
opening float once (setting `house_float`: bots can be called on a fresh install), then
serve."""

import asyncio

import uvicorn

from app.ops import logging as ops_logging
from app.ops import memory
from app.settings import get_settings
from app.store import migrate
from app.store.house import open_house

if __name__ == "__main__":
    settings = get_settings()
    if settings.migrate_on_start:
        migrate.upgrade(settings.database_url)
    asyncio.run(open_house(settings))
    from app.main import app  # built before the heap is frozen

    memory.tune(settings.gc_thresholds)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=ops_logging.config(settings.log_level, settings.log_format),
        # game messages are ~200 bytes of JSON: compressing each frame cost more CPU than
        # anything else per frame and saved little (bench/load.md)
        ws_per_message_deflate=False,
    )

"""`python -m app`: upgrade the database to the latest migration, grant the house its
opening float once (setting `house_float`: bots can be called on a fresh install), raise
the open-file limit (app/ops/serve.py), then serve."""

import asyncio

import uvicorn

from app.ops import memory
from app.ops.serve import raise_open_file_limit, uvicorn_config
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
    config = uvicorn_config(app, settings)  # also sets up the logs
    raise_open_file_limit()
    uvicorn.Server(config).run()

"""`python -m app`: upgrade the database to the latest migration, then serve."""

import uvicorn

from app.ops import logging as ops_logging
from app.settings import get_settings
from app.store import migrate

if __name__ == "__main__":
    settings = get_settings()
    if settings.migrate_on_start:
        migrate.upgrade(settings.database_url)
    uvicorn.run(
        "app.main:app",
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=ops_logging.config(settings.log_level, settings.log_format),
    )

"""`python -m app`: run the server with the configured settings."""

import uvicorn

from app.settings import get_settings

if __name__ == "__main__":
    settings = get_settings()
    uvicorn.run("app.main:app", host=settings.host, port=settings.port, log_level=settings.log_level)

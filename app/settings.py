"""Settings, from the environment (prefix-free names, as an operator sets them)."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    database_url: str = "sqlite:///./mahjong.db"
    redis_url: str | None = None
    log_level: str = "info"


def get_settings() -> Settings:
    return Settings()

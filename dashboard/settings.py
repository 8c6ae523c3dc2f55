"""Configuration from the environment, read in one place."""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    host: str
    port: int
    debug: bool
    cache_type: str  # "FileSystemCache" or "RedisCache"
    cache_dir: str
    redis_url: str | None
    cache_timeout: int


def load() -> Settings:
    redis_url = os.environ.get("REDIS_URL") or None
    return Settings(
        host=os.environ.get("ANONSET_HOST", "127.0.0.1"),
        port=int(os.environ.get("ANONSET_PORT", "8050")),
        debug=os.environ.get("ANONSET_DEBUG", "") == "1",
        cache_type="RedisCache" if redis_url else "FileSystemCache",
        cache_dir=os.environ.get(
            "ANONSET_FLASK_CACHE_DIR", str(Path(tempfile.gettempdir()) / "anonset-flask-cache")
        ),
        redis_url=redis_url,
        cache_timeout=int(os.environ.get("ANONSET_CACHE_TIMEOUT", "3600")),
    )

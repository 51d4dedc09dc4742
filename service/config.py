"""Configuration from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@dataclass(frozen=True)
class Settings:
    redis_url: str
    queue_redis_url: str

    @classmethod
    def from_env(cls) -> Settings:
        redis_url = os.environ.get("FRAY_REDIS_URL", DEFAULT_REDIS_URL)
        return cls(
            redis_url=redis_url,
            queue_redis_url=os.environ.get("FRAY_QUEUE_REDIS_URL", redis_url),
        )

"""Configuration from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_MAX_BODY = 64 * 1024
DEFAULT_RATE_LIMIT = 50


@dataclass(frozen=True)
class Settings:
    redis_url: str
    queue_redis_url: str
    api_keys: tuple[str, ...] = ()
    token_secret: str | None = None
    signing_key: str | None = None  # FRAY_SIGNING_KEY, parsed by service.app.receipts
    max_body: int = DEFAULT_MAX_BODY
    rate_limit: int = DEFAULT_RATE_LIMIT
    sse_heartbeat: float = 15.0

    @classmethod
    def from_env(cls) -> Settings:
        redis_url = os.environ.get("FRAY_REDIS_URL", DEFAULT_REDIS_URL)
        keys = os.environ.get("FRAY_API_KEYS", "")
        return cls(
            redis_url=redis_url,
            queue_redis_url=os.environ.get("FRAY_QUEUE_REDIS_URL", redis_url),
            api_keys=tuple(k.strip() for k in keys.split(",") if k.strip()),
            token_secret=os.environ.get("FRAY_TOKEN_SECRET") or None,
            signing_key=os.environ.get("FRAY_SIGNING_KEY") or None,
            max_body=int(os.environ.get("FRAY_MAX_BODY", DEFAULT_MAX_BODY)),
            rate_limit=int(os.environ.get("FRAY_RATE_LIMIT", DEFAULT_RATE_LIMIT)),
        )

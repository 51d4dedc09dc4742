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
    # FRAY_RETENTION_DAYS: how long an ended or archived encounter is kept after its last
    # write; None keeps every encounter for ever.
    retention_days: float | None = None

    @property
    def retention(self) -> float | None:
        """The retention period in seconds, as the stores take it."""
        return None if self.retention_days is None else self.retention_days * 86_400

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
            retention_days=_retention_days(os.environ.get("FRAY_RETENTION_DAYS") or None),
        )


def _retention_days(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        days = float(text)
    except ValueError:
        days = 0.0
    if not 0 < days < float("inf"):
        raise ValueError(
            f"FRAY_RETENTION_DAYS must be a positive number of days (e.g. 30 or 0.5), not {text!r}"
        )
    return days

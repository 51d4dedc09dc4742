"""Configuration from the environment."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_MAX_BODY = 64 * 1024
DEFAULT_RATE_LIMIT = 50
# Seconds from SIGTERM until the process has exited: under Kubernetes' default
# terminationGracePeriodSeconds (30 s), after which it sends SIGKILL.
DEFAULT_SHUTDOWN_GRACE = 25.0
# Of the grace period, the part kept past the work in hand: closing the clients, releasing
# what is held, exiting.
TEARDOWN = 1.0
ANY_ORIGIN = "*"
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")


class ConfigError(ValueError):
    """A setting that does not parse: the message names the variable and what is wrong."""


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
    # FRAY_CORS_ORIGINS: the browser origins allowed to call Fray, or ("*",); () for no CORS.
    cors_origins: tuple[str, ...] = ()
    # FRAY_RETENTION_DAYS: how long an ended or archived encounter is kept after its last
    # write; None keeps every encounter for ever.
    retention_days: float | None = None
    # FRAY_WEBHOOK_ALLOW_PRIVATE: webhook URLs may be http and name private, loopback and
    # link-local addresses (development and tests only: docs/api.md, "Webhooks").
    webhook_allow_private: bool = False
    # FRAY_WEBHOOK_DISABLE_AFTER: failed delivery attempts in a row that disable a webhook.
    webhook_disable_after: int = 20
    # FRAY_WEBHOOK_TIMEOUT: seconds a receiver has to answer a delivery.
    webhook_timeout: float = 10.0
    # FRAY_WEBHOOK_RETRY_SCHEDULE: seconds before each retry, e.g. "1,5,30"; () for the
    # default (workers.webhooks.RETRY_SCHEDULE).
    webhook_retry_schedule: tuple[float, ...] = ()
    # FRAY_SHUTDOWN_GRACE: seconds a process told to stop (SIGTERM) has to finish what it
    # is doing and exit: the API its requests in flight, a worker its job.
    shutdown_grace: float = DEFAULT_SHUTDOWN_GRACE
    # FRAY_REDIS_CLUSTER: FRAY_REDIS_URL names a node of a Redis Cluster (any one); the queue
    # (FRAY_QUEUE_REDIS_URL, which must then be given) stays on a standalone Redis.
    redis_cluster: bool = False
    # FRAY_REDIS_WAIT_REPLICAS: a client's command is answered once this many replicas have
    # its append (WAIT); 0 answers once its master has it.
    wait_replicas: int = 0

    @property
    def retention(self) -> float | None:
        """The retention period in seconds, as the stores take it."""
        return None if self.retention_days is None else self.retention_days * 86_400

    @property
    def shutdown_work_time(self) -> float:
        """The seconds the work in hand (requests in flight, a worker's job) has after
        SIGTERM: the grace period less the teardown (half of it, when it is shorter than two
        teardowns)."""
        return max(self.shutdown_grace - TEARDOWN, self.shutdown_grace / 2)

    @classmethod
    def from_env(cls) -> Settings:
        redis_url = os.environ.get("FRAY_REDIS_URL", DEFAULT_REDIS_URL)
        keys = os.environ.get("FRAY_API_KEYS", "")
        cluster = _flag("FRAY_REDIS_CLUSTER", os.environ.get("FRAY_REDIS_CLUSTER", ""))
        queue_url = os.environ.get("FRAY_QUEUE_REDIS_URL")
        if cluster and not queue_url:
            raise ConfigError(
                "FRAY_REDIS_CLUSTER=true needs FRAY_QUEUE_REDIS_URL naming a standalone Redis "
                "for the queue (RQ has no cluster support)"
            )
        return cls(
            redis_url=redis_url,
            queue_redis_url=queue_url or redis_url,
            redis_cluster=cluster,
            wait_replicas=_count(
                "FRAY_REDIS_WAIT_REPLICAS", os.environ.get("FRAY_REDIS_WAIT_REPLICAS", "0")
            ),
            api_keys=tuple(k.strip() for k in keys.split(",") if k.strip()),
            token_secret=os.environ.get("FRAY_TOKEN_SECRET") or None,
            signing_key=os.environ.get("FRAY_SIGNING_KEY") or None,
            max_body=int(os.environ.get("FRAY_MAX_BODY", DEFAULT_MAX_BODY)),
            rate_limit=int(os.environ.get("FRAY_RATE_LIMIT", DEFAULT_RATE_LIMIT)),
            retention_days=_retention_days(os.environ.get("FRAY_RETENTION_DAYS") or None),
            cors_origins=parse_origins(os.environ.get("FRAY_CORS_ORIGINS", "")),
            webhook_allow_private=_flag(
                "FRAY_WEBHOOK_ALLOW_PRIVATE", os.environ.get("FRAY_WEBHOOK_ALLOW_PRIVATE", "")
            ),
            webhook_disable_after=_positive(
                "FRAY_WEBHOOK_DISABLE_AFTER", os.environ.get("FRAY_WEBHOOK_DISABLE_AFTER", "20")
            ),
            webhook_timeout=_seconds(
                "FRAY_WEBHOOK_TIMEOUT", os.environ.get("FRAY_WEBHOOK_TIMEOUT", "10")
            ),
            webhook_retry_schedule=tuple(
                _seconds("FRAY_WEBHOOK_RETRY_SCHEDULE", part)
                for part in os.environ.get("FRAY_WEBHOOK_RETRY_SCHEDULE", "").split(",")
                if part.strip()
            ),
            shutdown_grace=_seconds(
                "FRAY_SHUTDOWN_GRACE",
                os.environ.get("FRAY_SHUTDOWN_GRACE", str(DEFAULT_SHUTDOWN_GRACE)),
            ),
        )


def parse_origins(value: str) -> tuple[str, ...]:
    """FRAY_CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`, as a browser
    sends them in `Origin`), or `*` alone for any origin; empty for none. A value a browser
    would never send (a path, a trailing slash, a default port) would silently match
    nothing, so it is refused."""
    origins = tuple(part.strip() for part in value.split(",") if part.strip())
    if ANY_ORIGIN in origins:
        if len(origins) > 1:
            raise ConfigError("FRAY_CORS_ORIGINS: '*' (any origin) stands alone, not in a list")
        return origins
    return tuple(_origin(origin) for origin in origins)


def _origin(text: str) -> str:
    def refuse(why: str) -> ConfigError:
        return ConfigError(
            f"FRAY_CORS_ORIGINS: {text!r} is not an origin ({why}); write scheme://host[:port], "
            "e.g. https://vtt.example.com or http://localhost:3000"
        )

    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as error:
        raise refuse(str(error)) from None
    if not _SCHEME.fullmatch(parts.scheme) or not parts.netloc.strip():
        raise refuse("no scheme://host")
    if parts.path or parts.query or parts.fragment or text.endswith(("?", "#")):
        raise refuse("an origin has no path, not even a trailing '/'")
    if parts.username is not None or not parts.hostname or parts.netloc.endswith(":"):
        raise refuse("an origin is a host and an optional port, nothing more")
    if port is not None and (parts.scheme, port) in (("http", 80), ("https", 443)):
        raise refuse(f"browsers leave out the default port {port}")
    # Browsers send the scheme and host in lower case.
    return f"{parts.scheme}://{parts.netloc.lower()}"


def _retention_days(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        days = float(text)
    except ValueError:
        days = 0.0
    if not 0 < days < float("inf"):
        raise ConfigError(
            f"FRAY_RETENTION_DAYS must be a positive number of days (e.g. 30 or 0.5), not {text!r}"
        )
    return days


def _flag(name: str, text: str) -> bool:
    value = text.strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise ConfigError(f"{name} must be true or false, not {text!r}")


def _positive(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"{name} must be a whole number of 1 or more, not {text!r}")
    return value


def _count(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ConfigError(f"{name} must be a whole number of 0 or more, not {text!r}")
    return value


def _seconds(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise ConfigError(f"{name} must be a positive number of seconds, not {text!r}")
    return value

"""Errors of the application layer: credentials and rate limits. Each has a stable code."""

from __future__ import annotations

from service.domain.errors import FrayError


class MissingCredential(FrayError):
    code = "auth/missing"
    status = 401


class InvalidToken(FrayError):
    code = "auth/invalid-token"
    status = 401


class ExpiredToken(FrayError):
    code = "auth/expired"
    status = 401


class RateLimited(FrayError):
    code = "rate/limited"
    status = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, details={"retry_after": retry_after})
        self.retry_after = retry_after

"""Errors of the application layer: credentials and rate limits. Each has a stable code."""

from __future__ import annotations

from service.domain.errors import FrayError


class MissingCredential(FrayError):
    code = "auth/missing"


class InvalidToken(FrayError):
    code = "auth/invalid-token"


class ExpiredToken(FrayError):
    code = "auth/expired"


class RateLimited(FrayError):
    code = "rate/limited"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, details={"retry_after": retry_after})
        self.retry_after = retry_after


class InvalidTicket(FrayError):
    """A stream ticket that is forged, for another encounter, expired or used."""

    code = "auth/invalid-ticket"

"""Named errors of the domain. Each carries a stable code an integrator can branch on, and
no HTTP status: only the edges map codes to statuses (`service/api/errors.py`)."""

from __future__ import annotations

from typing import Any


class FrayError(Exception):
    """Base of every error Fray reports to a client."""

    code = "fray/error"

    def __init__(self, message: str, *, code: str | None = None, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


class RuleViolation(FrayError):
    """A command the rules forbid. `rule` cites the seed section, e.g. "fifty-two §5.2"."""

    def __init__(self, code: str, message: str, rule: str | None = None, details: Any = None):
        super().__init__(message, code=code, details=details)
        self.rule = rule

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.rule is not None:
            out["error"]["rule"] = self.rule
        return out


class InvalidCommand(FrayError):
    """The command is malformed: unknown type, a missing field, a field of the wrong type."""

    code = "command/invalid"


class Forbidden(FrayError):
    """The actor may not issue this command (role or combatant ownership)."""

    code = "auth/forbidden"


class NotFound(FrayError):
    code = "encounter/not-found"


class Conflict(FrayError):
    code = "encounter/version-conflict"

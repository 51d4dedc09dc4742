"""The one pattern every id a client chooses follows: encounters and combatants.

1-64 characters, letters, digits and `.`, `_`, `~`, `-`, starting with a letter or digit:
the characters a URL path segment carries unescaped (RFC 3986's unreserved set), so an id
is its own address, fits a Redis key's hash tag, and prints without quoting.
"""

from __future__ import annotations

import re

from service.domain.errors import FrayError

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,63}$"
_ID = re.compile(ID_PATTERN)


class BadId(FrayError):
    code = "request/bad-id"


def is_id(value: object) -> bool:
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def check_id(value: str, what: str) -> str:
    if not is_id(value):
        raise BadId(
            f"{value!r} is not a valid {what} id: 1-64 letters, digits, '.', '_', '~' or '-', "
            "starting with a letter or digit",
            details={"pattern": ID_PATTERN},
        )
    return value


def stream_id(tenant: str | None, encounter_id: str) -> str:
    """Where a tenant's encounter lives in the store: ids are per tenant, so two tenants may
    both have `ford` and neither can learn that the other does. `/` is not an id character,
    so the pair is never ambiguous."""
    return encounter_id if tenant is None else f"{tenant}/{encounter_id}"


def split_stream(stream: str) -> tuple[str | None, str]:
    """The tenant and the id it knows an encounter by, from where it lives in the store."""
    tenant, _, encounter_id = stream.rpartition("/")
    return tenant or None, encounter_id


def public_id(stream: str) -> str:
    return split_stream(stream)[1]

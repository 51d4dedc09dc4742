"""Logging without credentials: uvicorn's access log (and its websocket lines) write each
request's URL with its query string, where a browser's SSE stream carries its stream
ticket. `RedactTickets`, on the handlers `fray serve` configures, blanks its value."""

from __future__ import annotations

import logging
from urllib.parse import unquote_plus

REDACTED = "[redacted]"
SECRET_PARAMS = frozenset({"ticket"})


def redact(text: str) -> str:
    """`text` with the value of every secret query parameter of a URL in it blanked; the
    name is read as Starlette reads it (percent-decoded), so no spelling slips through."""
    path, mark, query = text.partition("?")
    if not mark:
        return text
    query, space, rest = query.partition(" ")  # a request line: `GET /x?q HTTP/1.1`
    parts = []
    for part in query.split("&"):
        name, equals, _ = part.partition("=")
        if unquote_plus(name) in SECRET_PARAMS:
            part = f"{name}{equals}{REDACTED}"
        parts.append(part)
    return f"{path}?{'&'.join(parts)}{space}{rest}"


class RedactTickets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True

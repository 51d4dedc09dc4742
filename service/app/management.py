"""`Management`: a tenant's encounters, listed and archived, for REST and GraphQL alike.

The listing walks the tenant's index (`service.store.listing`) newest updated first and
keeps the encounters that match; the cursor is the last index entry it read, so the next
page goes on from there whatever was created or updated meanwhile (an encounter updated
while a client pages moves ahead of its cursor and is not seen twice). A request reads at
most `SCAN_BUDGET` entries: with a filter that few encounters match, a page may hold fewer
than `limit` items and still carry a cursor; only `next_cursor: null` says the end.

Archiving is not an event: the stream, its hash chain and its receipts stay as they were
(an audit verdict does not go stale). It is the store's `status`, which the append script
checks, so no command lands after it, on any instance.
"""

from __future__ import annotations

import base64
import binascii
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, field_validator

from service.app.auth import Principal
from service.deciding import envelopes_of, unknown
from service.domain.common import EncounterCreated
from service.domain.errors import Forbidden, FrayError
from service.domain.ids import is_id, public_id, split_stream, stream_id
from service.domain.timefmt import iso
from service.engine import Engine
from service.store.errors import EncounterNotFound
from service.store.listing import (
    ACTIVE,
    ENDED,
    Position,
    millis,
    seconds_text,
    updated_of,
    within,
)

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
SCAN_BUDGET = 1000  # index entries one request reads at most
READ_PAGE = 500
# What an encounter stored before the store kept a summary lacks (`_filled`).
SUMMARY = ("status", "ruleset", "ruleset_version")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_log = logging.getLogger("fray.api")

Status = Literal["active", "ended", "archived"]


class BadQuery(FrayError):
    code = "request/invalid"


class EncounterFilter(BaseModel):
    """Which of the tenant's encounters, and which page of them (newest updated first)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    ruleset: str | None = Field(default=None, max_length=100, description="Only this ruleset's.")
    status: Status | None = Field(default=None, description="Only those in this status.")
    updated_after: str | None = Field(
        default=None,
        description="Only those updated after this time (ISO 8601; without an offset, UTC).",
        json_schema_extra={"format": "date-time"},
    )
    updated_before: str | None = Field(
        default=None,
        description="Only those updated before this time (ISO 8601; without an offset, UTC).",
        json_schema_extra={"format": "date-time"},
    )
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="At most this many (1-200)."
    )
    cursor: str | None = Field(
        default=None,
        max_length=300,
        description="The `next_cursor` of the page before, to go on from there.",
    )

    @field_validator("updated_after", "updated_before")
    @classmethod
    def _a_time(cls, value: str | None) -> str | None:
        if value is not None:
            _micros_of(value)
        return value


@dataclass(frozen=True)
class EncounterInfo:
    """One encounter as the listing and the archive answer it."""

    encounter_id: str
    ruleset: str
    ruleset_version: str
    status: str
    title: str | None
    created_at: str
    updated_at: str
    version: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EncounterList:
    encounters: list[EncounterInfo]
    next_cursor: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "encounters": [e.to_dict() for e in self.encounters],
            "next_cursor": self.next_cursor,
        }


@dataclass
class Management:
    engine: Engine

    async def list(self, tenant: str, query: EncounterFilter) -> EncounterList:
        """The tenant's encounters that match `query`, a page of them (the tenant comes from
        its API key: `Encounters.creator`)."""
        after = _position(tenant, query.cursor)
        # The bounds are exclusive; the index's, in whole milliseconds, inclusive.
        newest = None if query.updated_before is None else _ceil_ms(query.updated_before) - 1
        oldest = None if query.updated_after is None else _floor_ms(query.updated_after) + 1
        if newest is not None and newest < 0:
            return EncounterList([], None)  # before 1970: nothing was updated then
        oldest = None if oldest is None else max(oldest, 0)
        found: list[EncounterInfo] = []
        read = 0
        while True:
            count = min(SCAN_BUDGET - read, max(query.limit - len(found), DEFAULT_LIMIT))
            page = await self.engine.store.tenant_page(
                tenant, count=count, after=after, newest=newest, oldest=oldest
            )
            read += count
            for n, listed in enumerate(page.listed, start=1):
                info = await self._info(listed.encounter_id, listed.meta)
                if info is None or not _matches(info, query, newest, oldest):
                    continue
                found.append(info)
                if len(found) == query.limit:
                    at_end = n == len(page.listed) and page.last is None
                    return EncounterList(found, None if at_end else _cursor(listed.position))
            if page.last is None:
                return EncounterList(found, None)
            after = page.last
            if read >= SCAN_BUDGET:
                return EncounterList(found, _cursor(after))

    async def archive(self, principal: Principal) -> EncounterInfo:
        """Archive the encounter (the GM or its tenant's key): it takes no more commands;
        reads, exports and its audit go on until it expires (`FRAY_RETENTION_DAYS`).
        Archiving again answers the same."""
        if not principal.actor.is_gm:
            raise Forbidden("only the GM or the tenant's API key may archive an encounter")
        stream = principal.stream_of()
        try:
            meta = await self.engine.store.archive(stream)
        except EncounterNotFound as error:
            raise unknown(stream) from error
        info = await self._info(stream, meta)
        if info is None:  # gone since it was archived: expired at once, or deleted
            raise unknown(stream)
        tenant, encounter_id = split_stream(stream)
        line = {"event": "archived", "tenant": tenant, "encounter_id": encounter_id}
        _log.info(orjson.dumps(line).decode())
        return info

    async def _info(self, stream: str, meta: dict[str, str]) -> EncounterInfo | None:
        if any(name not in meta for name in SUMMARY):
            filled = await self._filled(stream, meta)
            if filled is None:
                return None
            meta = filled
        created = millis(meta["created"])
        return EncounterInfo(
            encounter_id=public_id(stream),
            ruleset=meta["ruleset"],
            ruleset_version=meta["ruleset_version"],
            status=meta["status"],
            title=meta.get("title"),
            created_at=_iso_of(created),
            updated_at=_iso_of(updated_of(meta)),
            version=int(meta["version"]),
        )

    async def _filled(self, stream: str, meta: dict[str, str]) -> dict[str, str] | None:
        """The summary of an encounter stored before the store kept one, read from its
        stream once and kept in its meta; None if it is gone."""
        store = self.engine.store
        first = envelopes_of(await store.read(stream, up_to=1))
        if not first:
            return None
        created = EncounterCreated.model_validate(first[0].data)
        ended, last_at = False, first[0].at
        after = 0
        while page := await store.read(stream, after=after, limit=READ_PAGE):
            for stored in page:
                body = orjson.loads(stored.body)
                ended = ended or body.get("type") == "encounter-ended"
                last_at = body.get("at", last_at)
            after = page[-1].version
        fields = {
            "ruleset": created.ruleset,
            "ruleset_version": created.ruleset_version,
            "status": ENDED if ended else ACTIVE,
            "updated": seconds_text(_floor_ms(last_at)),
        }
        if created.title is not None:
            fields["title"] = created.title
        if not await store.fill_meta(stream, fields):
            return None
        return fields | meta


def _matches(
    info: EncounterInfo, query: EncounterFilter, newest: int | None, oldest: int | None
) -> bool:
    if query.ruleset is not None and info.ruleset != query.ruleset:
        return False
    if query.status is not None and info.status != query.status:
        return False
    # The index placed it; its meta, the truth, decides (an index entry may lag it).
    return within(_floor_ms(info.updated_at), newest, oldest)


def _micros_of(text: str) -> int:
    """An ISO 8601 time as microseconds since the epoch, exactly (no float on the way)."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 time, e.g. 2026-01-31T18:00:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // timedelta(microseconds=1)


def _floor_ms(text: str) -> int:
    return _micros_of(text) // 1000


def _ceil_ms(text: str) -> int:
    return -(-_micros_of(text) // 1000)


def _iso_of(ms: int) -> str:
    return iso(EPOCH + timedelta(milliseconds=ms))


def _cursor(position: Position) -> str:
    text = f"{position.updated}:{public_id(position.encounter_id)}"
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def _position(tenant: str, cursor: str | None) -> Position | None:
    if cursor is None:
        return None
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        updated, _, encounter_id = text.partition(":")
        if updated.isdigit() and is_id(encounter_id):
            return Position(int(updated), stream_id(tenant, encounter_id))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise BadQuery(f"'{cursor}' is not a cursor this API gave")

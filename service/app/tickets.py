"""Stream tickets: a browser's credential for one connection to an encounter's SSE stream.

A browser's `EventSource` cannot send an `Authorization` header. A client that holds a
credential mints a ticket (`POST /v1/encounters/{id}/stream-tickets`) and puts it in the
stream's URL. The ticket grants exactly what that credential grants (its role, subject and
combatants), for that encounter's event stream, once, for at most `TICKET_SECONDS` (less
when the minting token expires sooner).

A ticket reads `fst1.<base64url(canonical JSON of enc, exp, id, tenant)>.<base64url(HMAC)>`,
signed with FRAY_TOKEN_SECRET as tokens are (`fst1`, not `fray1`: neither passes for the
other), so a forged, expired or other encounter's ticket is refused without a store read,
by any instance. The grant waits in the store under the encounter's hash tag and is taken
by one atomic read-and-delete: of any number of connections presenting a ticket, one gets
the stream. The store keeps a grant `GRACE_MS` past the ticket's expiry, so a ticket that
has not expired and is not in the store has been used.
"""

from __future__ import annotations

import binascii
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import orjson

from service.app.auth import Auth, Principal
from service.app.errors import InvalidTicket
from service.domain.canonical import canonical_bytes
from service.domain.context import Actor, Role
from service.domain.errors import NotFound
from service.domain.ids import public_id, stream_id
from service.domain.receipts import b64url, unb64url
from service.store.protocol import Store

PREFIX = "fst1"
TICKET_SECONDS = 60
GRACE_MS = 5_000  # clocks of API instances and Redis may differ by this much
MINT_AGAIN = "mint a new one (POST /v1/encounters/{id}/stream-tickets) for each connection"


@dataclass(frozen=True)
class StreamTicket:
    ticket: str
    expires_at: datetime


class Tickets:
    def __init__(self, auth: Auth, store: Store, clock: Callable[[], float] = time.time) -> None:
        self._auth = auth
        self._store = store
        self._clock = clock

    async def mint(self, principal: Principal) -> StreamTicket:
        """A ticket granting what `principal` may do, for its encounter's stream, once."""
        stream = principal.stream_of()
        if not await self._store.exists(stream):
            raise NotFound(f"there is no encounter '{public_id(stream)}'")
        now = self._clock()
        expires = int(now) + TICKET_SECONDS
        if principal.expires is not None:
            expires = min(expires, principal.expires)
        ticket_id = secrets.token_urlsafe(24)
        actor = principal.actor
        grant = {
            "actor": actor.id,
            "role": actor.role,
            "combatants": sorted(actor.combatants),
            "kind": principal.kind,
        }
        ttl_ms = max(1, int((expires - now) * 1000)) + GRACE_MS
        await self._store.put_ticket(stream, ticket_id, orjson.dumps(grant), ttl_ms)
        public = public_id(stream)
        claims = {"enc": public, "exp": expires, "id": ticket_id, "tenant": principal.tenant}
        signed = f"{PREFIX}.{b64url(canonical_bytes(claims))}"
        ticket = f"{signed}.{b64url(self._auth.sign(signed))}"
        return StreamTicket(ticket, datetime.fromtimestamp(expires, UTC))

    async def redeem(self, ticket: str, encounter_id: str) -> Principal:
        """The principal a ticket grants, for the stream of `encounter_id` (the id in the
        path); the ticket is spent. `InvalidTicket` says why one is refused."""
        claims = self._claims(ticket)
        if claims["enc"] != encounter_id:
            raise InvalidTicket(f"this stream ticket is for another encounter; {MINT_AGAIN}")
        if claims["exp"] <= self._clock():
            raise InvalidTicket(
                f"this stream ticket has expired (tickets last {TICKET_SECONDS} s); {MINT_AGAIN}"
            )
        tenant = claims["tenant"]
        stream = stream_id(tenant, encounter_id)
        grant = await self._store.take_ticket(stream, claims["id"])
        if grant is None:
            raise InvalidTicket(f"this stream ticket has been used; {MINT_AGAIN}")
        return _principal(orjson.loads(grant), tenant, encounter_id, stream, claims["exp"])

    def _claims(self, ticket: str) -> dict[str, Any]:
        signed, _, signature = ticket.rpartition(".")
        forged = InvalidTicket(f"this is not a stream ticket Fray issued; {MINT_AGAIN}")
        if not signed.startswith(f"{PREFIX}.") or signed.count(".") != 1:
            raise forged
        try:
            given = unb64url(signature)
            claims = orjson.loads(unb64url(signed.partition(".")[2]))
        except (binascii.Error, ValueError):
            raise forged from None
        if not hmac.compare_digest(given, self._auth.sign(signed)):
            raise forged
        return cast(dict[str, Any], claims)


def _principal(
    grant: dict[str, Any], tenant: str | None, encounter_id: str, stream: str, expires: int
) -> Principal:
    actor = Actor(grant["actor"], cast(Role, grant["role"]), frozenset(grant["combatants"]))
    kind = grant["kind"]
    token_encounter = encounter_id if kind == "token" else None
    return Principal(actor, kind, tenant, token_encounter, stream, expires)

"""`Encounters`: the use cases of an encounter, once, for every edge.

REST and GraphQL (and, through the engine, the CLI and the workers) call these; each edge
only parses its own request shape and renders the answer. Authorization, rate limits,
token minting, the command log and metrics, and what a viewer may see of the events live
here, so the edges cannot drift apart.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

import orjson

from service.app import following
from service.app.auth import Auth, Principal, bearer, system_principal, tenant_actor
from service.app.exports import header_line, shown_line
from service.app.metrics import Metrics
from service.app.narration import NarrationPage, narrated
from service.app.ratelimit import RateLimiter
from service.app.receipts import Signer
from service.app.views import may_see_seed, redacted_envelopes, sees_raw_events
from service.deciding import CommandRequest, Loaded
from service.domain.draws import MissingTableDice
from service.domain.envelope import Envelope
from service.domain.errors import Forbidden, FrayError, NotFound
from service.domain.ids import public_id, split_stream, stream_id
from service.domain.views import ActionOption, Blocked, EncounterSummary
from service.engine import Engine, Outcome
from service.rules.registry import RULESETS
from service.store.events import Head
from service.store.subscriptions import StreamHub

GM_TOKEN_TTL = 86_400
EXPORT_PAGE = 500
_log = logging.getLogger("fray.api")


class BadTokenRequest(FrayError):
    """A token request that names the wrong combatants for its role."""

    code = "request/invalid"


@dataclass(frozen=True)
class Created:
    encounter_id: str
    ruleset: str
    version: int
    gm_token: str
    gm_token_expires_at: datetime
    loaded: Loaded
    principal: Principal  # the creating tenant's


@dataclass(frozen=True)
class Minted:
    token: str
    role: str
    subject: str
    combatants: list[str]
    expires_at: datetime


@dataclass(frozen=True)
class Submitted:
    command_id: str
    version: int
    duplicate: bool
    events: list[dict[str, Any]]  # as the sender may see them
    # The receipt of the command's last event (a retry: of its first outcome's last event;
    # a command that appended nothing: of the version it was decided at). None where the
    # process has no signer (the workers, the CLI).
    receipt: dict[str, Any] | None = None


@dataclass(frozen=True)
class Previewed:
    version: int  # the version it was decided against: pin `expected_version` to it
    rolled: bool  # dice were drawn from a throwaway seed: not the ones a submit rolls
    duplicate: bool  # the command id was used for this command: its recorded events
    events: list[dict[str, Any]]  # as the sender may see them
    rolls: list[dict[str, Any]]  # the dice its events list, in order, as the sender may see them


def dice_needed(error: FrayError) -> list[dict[str, Any]] | None:
    """The table dice a refused command still needs, when missing dice are why it was
    refused: what a preview adds to its refusal (REST and GraphQL alike)."""
    if isinstance(error, MissingTableDice):
        return [die.to_dict() for die in error.needed]
    return None


@dataclass(frozen=True)
class EventPage:
    events: list[dict[str, Any]]  # as the viewer may see them
    last: int  # the last version read (a cursor: pass it as `after` for the next page)
    head: int  # the version the page was read up to

    @property
    def has_more(self) -> bool:
        return self.last < self.head


@dataclass
class Encounters:
    engine: Engine
    auth: Auth | None = None  # credentials: None in the workers and the CLI (system only)
    limiter: RateLimiter | None = None
    metrics: Metrics | None = None
    hub: StreamHub | None = None  # live reads (`follow`, `watch`): the API process's
    signer: Signer | None = None  # receipts: None in processes that answer no clients

    # --- who is asking ----------------------------------------------------------------

    async def principal(self, authorization: str | None, encounter_id: str | None) -> Principal:
        return await self._auth().principal(authorization, encounter_id, self.engine)

    def creator(self, authorization: str | None) -> str:
        """The tenant whose API key this is: only a key may create encounters."""
        return self._auth().tenant_of_key(authorization)

    async def minter(self, authorization: str | None, encounter_id: str) -> Principal:
        """One who may mint the encounter's tokens: its GM or its tenant's key."""
        principal = await self.principal(authorization, encounter_id)
        if not principal.actor.is_gm:
            raise Forbidden("only the GM or the tenant's API key may mint tokens")
        return principal

    async def admit(self, authorization: str | None, encounter_id: str) -> Principal:
        """The sender of a command, within its rate limit."""
        principal = await self.principal(authorization, encounter_id)
        if self.limiter is not None:
            await self.limiter.check(bearer(authorization))
        return principal

    # --- use cases --------------------------------------------------------------------

    async def create(
        self,
        tenant: str,
        ruleset: str,
        options: dict[str, Any] | None,
        *,
        title: str | None,
        encounter_id: str | None,
        seed: bytes | None,
    ) -> Created:
        encounter_id, first = await self.engine.create(
            ruleset,
            options,
            title=title,
            encounter_id=encounter_id,
            seed=seed,
            actor=tenant_actor(tenant),
            tenant=tenant,
        )
        stream = stream_id(tenant, encounter_id)
        token, expires = self._auth().mint(
            encounter_id, "gm", [], f"gm:{tenant}", GM_TOKEN_TTL, tenant
        )
        principal = Principal(tenant_actor(tenant), "tenant", tenant, None, stream)
        return Created(
            encounter_id=encounter_id,
            ruleset=ruleset,
            version=first.version,
            gm_token=token,
            gm_token_expires_at=expires,
            loaded=await self.engine.load(stream),
            principal=principal,
        )

    async def mint_token(
        self,
        principal: Principal,
        encounter_id: str,
        *,
        role: str,
        combatants: Sequence[str],
        subject: str | None,
        ttl_seconds: int,
    ) -> Minted:
        loaded = await self.engine.load(principal.stream_of())
        bound = sorted(set(combatants))
        if role == "player":
            if not bound:
                raise BadTokenRequest(
                    "field 'combatants': a player token names at least 1 combatant"
                )
            unknown = [c for c in bound if c not in loaded.state.table.combatants]
            if unknown:
                raise BadTokenRequest(
                    f"field 'combatants': no combatant {', '.join(unknown)} in this encounter"
                )
        elif bound:
            raise BadTokenRequest("field 'combatants': only player tokens are bound to combatants")
        subject = subject or f"{role}:{uuid.uuid4().hex[:8]}"
        token, expires = self._auth().mint(
            encounter_id, role, bound, subject, ttl_seconds, principal.tenant
        )
        return Minted(token, role, subject, bound, expires)

    async def submit(
        self, principal: Principal, request: CommandRequest, *, api: str = "rest"
    ) -> Submitted:
        """Decide and append a command (`admit` has vouched for its sender); its events as
        the sender may see them. Every command, accepted or refused, is logged and counted."""
        stream = principal.stream_of()
        started = time.perf_counter()
        try:
            outcome = await self.engine.execute(stream, request, principal.actor)
        except FrayError as error:
            self._record(api, stream, request, self.engine.peek(stream), error.code, started)
            raise
        # The engine hands back the state after the append: no second read to redact.
        loaded = outcome.loaded or await self.engine.load(stream)
        label = "duplicate" if outcome.duplicate else "accepted"
        self._record(api, stream, request, loaded, label, started, outcome)
        events = (
            [e.to_dict() for e in outcome.events]
            if sees_raw_events(loaded, principal.actor)
            else redacted_envelopes(loaded, outcome.events, principal.actor)
        )
        if outcome.events:
            last = outcome.events[-1]
            receipt = self.receipt(stream, last.version, last.hash)
        else:
            receipt = self.receipt(stream, loaded.version, loaded.hash)
        return Submitted(outcome.command_id, outcome.version, outcome.duplicate, events, receipt)

    async def submit_as_system(
        self, stream: str, request: CommandRequest, *, api: str = "worker"
    ) -> Submitted:
        """A command of Fray's own (a deadline firing) as the system actor: no credential
        and no rate limit, decided, recorded and counted like every other command."""
        return await self.submit(system_principal(stream), request, api=api)

    async def preview(self, principal: Principal, request: CommandRequest) -> Previewed:
        """What `submit` would append now, as the sender may see it, appending nothing; a
        command `submit` would refuse raises the same error (`admit` has vouched for the
        sender and counted the request against its rate limit, as for a submit)."""
        preview = await self.engine.preview(principal.stream_of(), request, principal.actor)
        events = redacted_envelopes(preview.loaded, preview.events, principal.actor)
        rolls = [roll for event in events for roll in event.get("rolls") or []]
        return Previewed(preview.based_on, preview.rolled, preview.duplicate, events, rolls)

    # --- receipts ---------------------------------------------------------------------

    def receipt(self, stream: str, version: int, hash: str) -> dict[str, Any] | None:
        """The signed receipt of the event with `hash` at `version` of the encounter stored
        at `stream` (it names the encounter by the id its clients use); None without a
        signer. Each event is signed once per process, however often it is asked for."""
        if self.signer is None:
            return None
        return self.signer.receipt(public_id(stream), version, hash)

    def public_keys(self) -> list[dict[str, str]]:
        """The keys receipts are verified with, the signing one first (GET /v1/keys)."""
        return self.signer.public_keys() if self.signer is not None else []

    # --- reads ------------------------------------------------------------------------

    async def view(self, principal: Principal, as_of: int | None = None) -> Loaded:
        """The encounter now, or as of version `as_of`: what everyone saw then."""
        stream = principal.stream_of()
        if as_of:
            return await self.engine.load_at(stream, as_of)
        return await self.engine.load(stream)

    async def legal_actions(
        self, principal: Principal
    ) -> tuple[int, list[ActionOption], list[Blocked]]:
        """What the viewer may do now, and which of its combatants must wait, and why."""
        loaded = await self.engine.load(principal.stream_of())
        ruleset, state, actor = loaded.ruleset, loaded.state, principal.actor
        return loaded.version, ruleset.actions(state, actor), ruleset.blocked(state, actor)

    async def events(
        self, principal: Principal, after: int, limit: int, up_to: int | None = None
    ) -> EventPage:
        """Up to `limit` events after version `after` (to `up_to`, else the head), as the
        viewer may see them: the ones it is not told of are left out of `events`."""
        return (await self._page(principal, after, limit, up_to))[1]

    async def narration(
        self, principal: Principal, after: int, limit: int, up_to: int | None = None
    ) -> NarrationPage:
        """The page `events` answers, each event told as a sentence (`service.app.narration`)."""
        loaded, page = await self._page(principal, after, limit, up_to)
        return NarrationPage(narrated(loaded, page.events), page.last, page.head)

    async def _page(
        self, principal: Principal, after: int, limit: int, up_to: int | None
    ) -> tuple[Loaded, EventPage]:
        stream = principal.stream_of()
        loaded = await self.engine.load(stream)
        head = loaded.version if up_to is None else min(up_to, loaded.version)
        stored = await self.engine.store.read(stream, after=after, limit=limit, up_to=head)
        envelopes = [Envelope.from_body(s.body) for s in stored]
        seen = redacted_envelopes(loaded, envelopes, principal.actor)
        last = stored[-1].version if stored else max(after, 0)
        return loaded, EventPage(seen, last, head)

    async def export(self, principal: Principal) -> AsyncIterator[bytes]:
        """The whole stream as JSONL after a header line that anchors its head (docs/audit.md),
        as the viewer may see it (stored bytes when it may see them all, so an auditor's
        export is the stream itself; else a line per version, `exports.shown_line`). The
        system is given the stored record as it is, unfolded: the CLI audits streams that may
        not fold."""
        stream = principal.stream_of()
        head = await self.engine.store.head(stream)
        if head is None:
            raise NotFound(f"there is no encounter '{public_id(stream)}'")
        if principal.kind == "system":
            return self._lines(stream, head, None, principal, True)
        loaded = await self.engine.load(stream)
        full = sees_raw_events(loaded, principal.actor)
        return self._lines(stream, head, loaded, principal, full)

    async def _lines(
        self, stream: str, head: Head, loaded: Loaded | None, principal: Principal, full: bool
    ) -> AsyncIterator[bytes]:
        signed = self.receipt(stream, head.version, head.hash)
        yield header_line(public_id(stream), self.engine.clock(), signed, self.public_keys())
        after = 0
        while after < head.version:
            page = await self.engine.store.read(
                stream, after=after, limit=EXPORT_PAGE, up_to=head.version
            )
            for stored in page:
                if full or loaded is None:
                    yield stored.body + b"\n"
                    continue
                envelope = Envelope.from_body(stored.body)
                seen = redacted_envelopes(loaded, [envelope], principal.actor)
                yield shown_line(stored.body, envelope.to_dict(), seen[0] if seen else None)
            if not page:
                return
            after = page[-1].version

    async def follow(
        self, principal: Principal, after: int, *, idle: float | None = None
    ) -> AsyncGenerator[dict[str, Any] | None, None]:
        """Every event after version `after`, live, as the viewer may see it (see
        `service.app.following`), with the `receipt` of the stored event beside its keys
        when this process signs; None after each `idle` seconds with nothing to send, when
        `idle` is given. An unknown encounter is refused here, before anything is sent."""
        stream = principal.stream_of()
        loaded = await self.engine.load(stream)
        sign = None if self.signer is None else partial(self.receipt, stream)
        events = following.events(self.engine, self._hub(), principal, loaded, after, idle, sign)
        return events if self.metrics is None else self.metrics.followed(events)

    async def watch(self, principal: Principal) -> AsyncGenerator[EncounterSummary, None]:
        """The summary as the viewer may see it now, then again after every change."""
        loaded = await self.engine.load(principal.stream_of())
        summaries = following.summaries(self.engine, self._hub(), principal, loaded)
        return summaries if self.metrics is None else self.metrics.followed(summaries)

    def _hub(self) -> StreamHub:
        if self.hub is None:
            raise RuntimeError("live reads need the process's StreamHub")
        return self.hub

    async def seed(self, principal: Principal) -> bytes:
        """The seed: revealed by the end, before it to auditors and the GM only (DESIGN.md,
        audit trail), and to nobody where it orders hidden cards (fifty-two's pool); the
        system (the CLI's audit beside the store) reads it as stored."""
        stream = principal.stream_of()
        if principal.kind != "system":
            await self._may_see_seed(principal)
        seed = await self.engine.store.seed(stream)
        if seed is None:
            raise NotFound(f"there is no encounter '{public_id(stream)}'")
        return seed

    async def _may_see_seed(self, principal: Principal) -> None:
        loaded = await self.engine.load(principal.stream_of())
        if loaded.state.table.phase != "ended" and not may_see_seed(
            principal.actor, loaded.ruleset
        ):
            if loaded.ruleset.seed_sealed:
                raise Forbidden(
                    f"a {loaded.ruleset.name} seed orders the face-down cards: nobody sees it "
                    "before the encounter ends"
                )
            raise Forbidden("only auditors and the GM see the seed before the encounter ends")

    def _auth(self) -> Auth:
        if self.auth is None:
            raise RuntimeError("this process resolves no credentials (Encounters.auth)")
        return self.auth

    # --- the command log --------------------------------------------------------------

    def _record(
        self,
        api: str,
        stream: str,
        request: CommandRequest,
        loaded: Loaded | None,
        outcome: str,
        started: float,
        result: Outcome | None = None,
    ) -> None:
        seconds = time.perf_counter() - started
        ruleset, kind = _labels(loaded, request)
        if self.metrics is not None:
            self.metrics.command(ruleset, kind, outcome, seconds)
            if result is not None and not result.duplicate:
                self.metrics.appended(len(result.events))
        tenant, public = split_stream(stream)
        line = {
            "event": "command",
            "api": api,
            "tenant": tenant,
            "encounter_id": public,
            "command_id": result.command_id if result else request.command_id,
            "type": kind,
            "outcome": outcome,
            "version": result.version if result else None,
            "duration_ms": round(seconds * 1000, 3),
        }
        _log.info(orjson.dumps(line).decode())


def _labels(loaded: Loaded | None, request: CommandRequest) -> tuple[str, str]:
    """The ruleset and command type as metric labels, bounded to known values."""
    ruleset = loaded.ruleset.name if loaded is not None else "unknown"
    kind = str(request.command.get("type", "?"))[:60]
    known = RULESETS[ruleset].command_models if ruleset in RULESETS else {}
    return ruleset, kind if kind in known else "unknown"

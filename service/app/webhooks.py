"""Webhooks: a tenant's subscriptions to its encounters' events, and the deliveries each
append owes them (docs/api.md, "Webhooks"; docs/architecture.md, "Webhook deliveries").

`Webhooks` is the one object behind REST (`/v1/webhooks`), GraphQL (`webhooks`,
`createWebhook` ...) and the delivery worker (`workers.webhooks`). Its `outbox_entries` is
the engine's hook: the deliveries an append owes, written to the encounter's outbox by the
same atomic script as the events, so a stored event's deliveries are never lost.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson

from service.app.webhook_models import (
    PREFIX,
    PlayerView,
    View,
    Webhook,
    WebhookPatch,
    WebhookSpec,
    delivery_id,
    delivery_payload,
    entry_key,
)
from service.app.webhook_urls import resolve
from service.domain.envelope import Envelope
from service.domain.errors import FrayError, NotFound
from service.domain.ids import split_stream, stream_id
from service.domain.timefmt import parse_iso
from service.store.events import Deadline
from service.store.protocol import Store
from service.store.webhooks import WebhookStore
from service.webhook_metrics import WebhookMetrics

if TYPE_CHECKING:
    from redis.asyncio.client import Pipeline

CACHE_SECONDS = 1.0  # another process sees a new or changed webhook within this
MAX_WEBHOOKS = 100  # per tenant
MAX_DELIVERIES = 100  # a page of the delivery log
_log = logging.getLogger("fray.webhooks")
Schedule = Callable[[str, list[Deadline]], Awaitable[None]]


class Webhooks:
    def __init__(
        self,
        store: WebhookStore,
        *,
        outbox: Store | None = None,
        allow_private: bool = False,
        disable_after: int = 20,
        schedule: Schedule | None = None,
        metrics: WebhookMetrics | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self._outbox = outbox  # the event store, whose outboxes a redelivery is written to
        self.allow_private = allow_private
        self.disable_after = disable_after
        self._schedule = schedule
        self._metrics = metrics
        self._clock = clock
        self._cache: dict[str, tuple[float, list[Webhook]]] = {}

    def scheduling(self, schedule: Schedule) -> Schedule:
        """The engine's `on_deadlines`: schedule what an append recorded, and count the
        deliveries it owes into the backlog."""

        async def on_deadlines(stream: str, deadlines: list[Deadline]) -> None:
            await schedule(stream, deadlines)
            if self._metrics is not None:
                owed = sum(1 for d in deadlines if d.key.startswith(PREFIX))
                try:
                    await self._metrics.owed(owed)
                except Exception:  # a metric is not worth failing the command
                    _log.exception("counting webhook deliveries failed")

        return on_deadlines

    # --- subscriptions ------------------------------------------------------------------

    async def create(self, tenant: str, spec: WebhookSpec) -> dict[str, Any]:
        """A new webhook; its answer is the only one that shows the secret."""
        await resolve(spec.url, self.allow_private)
        existing = await self.store.all(tenant)
        if len(existing) >= MAX_WEBHOOKS:
            raise FrayError(
                f"a tenant has at most {MAX_WEBHOOKS} webhooks; delete one first",
                code="webhook/too-many",
            )
        now = self._now_iso()
        webhook = Webhook(
            id=f"wh_{secrets.token_hex(12)}",
            tenant=tenant,
            url=spec.url,
            events=tuple(dict.fromkeys(spec.events)),
            encounter_id=spec.encounter_id,
            view=_view_of(spec.view),
            description=spec.description,
            secret=f"whsec_{secrets.token_hex(32)}",
            enabled=True,
            disabled_reason=None,
            created=now,
            updated=now,
        )
        await self.store.put(tenant, webhook.id, webhook.record())
        self._cache.pop(tenant, None)
        return {**webhook.public(), "secret": webhook.secret}

    async def listed(self, tenant: str) -> list[dict[str, Any]]:
        hooks = [Webhook.from_record(raw) for raw in (await self.store.all(tenant)).values()]
        hooks.sort(key=lambda h: (h.created, h.id))
        return [h.public(await self.store.streak(tenant, h.id)) for h in hooks]

    async def get(self, tenant: str, webhook_id: str) -> dict[str, Any]:
        webhook = await self.webhook(tenant, webhook_id)
        return webhook.public(await self.store.streak(tenant, webhook_id))

    async def update(self, tenant: str, webhook_id: str, patch: WebhookPatch) -> dict[str, Any]:
        webhook = await self.webhook(tenant, webhook_id)
        fields = patch.model_fields_set
        changes: dict[str, Any] = {}
        if "url" in fields and patch.url is not None:
            await resolve(patch.url, self.allow_private)
            changes["url"] = patch.url
        if "events" in fields and patch.events is not None:
            changes["events"] = tuple(dict.fromkeys(patch.events))
        if "encounter_id" in fields:
            changes["encounter_id"] = patch.encounter_id
        if "view" in fields and patch.view is not None:
            changes["view"] = _view_of(patch.view)
        if "description" in fields:
            changes["description"] = patch.description
        if "enabled" in fields and patch.enabled is not None:
            changes["enabled"] = patch.enabled
            if patch.enabled:
                changes["disabled_reason"] = None
                await self.store.reset_streak(tenant, webhook_id)
            else:
                changes["disabled_reason"] = "disabled by the tenant"
        updated = _replace(webhook, **changes, updated=self._now_iso())
        await self.store.put(tenant, webhook_id, updated.record())
        self._cache.pop(tenant, None)
        return updated.public(await self.store.streak(tenant, webhook_id))

    async def delete(self, tenant: str, webhook_id: str) -> None:
        if not await self.store.delete(tenant, webhook_id):
            raise _unknown(webhook_id)
        self._cache.pop(tenant, None)

    async def webhook(self, tenant: str, webhook_id: str) -> Webhook:
        """The webhook with its secret (the delivery worker signs with it)."""
        raw = await self.store.get(tenant, webhook_id)
        if raw is None:
            raise _unknown(webhook_id)
        return Webhook.from_record(raw)

    # --- the append's deliveries -------------------------------------------------------

    async def outbox_entries(
        self, stream: str, envelopes: list[Envelope], armed: int
    ) -> list[Deadline]:
        """The deliveries an append of `envelopes` owes: one outbox entry per matching
        (enabled webhook, event), due at the event's time. No webhook, no cost but a
        dictionary lookup (the tenant's list is cached for `CACHE_SECONDS`)."""
        tenant, _ = split_stream(stream)
        if tenant is None or not envelopes:
            return []
        hooks = await self.active(tenant)
        entries: list[Deadline] = []
        for webhook in hooks:
            for envelope in envelopes:
                if webhook.matches(stream, envelope.type):
                    payload = delivery_payload(stream, webhook.id, envelope.version, armed=armed)
                    due = parse_iso(envelope.at).timestamp()
                    entries.append(Deadline(entry_key(webhook.id, envelope.version), due, payload))
        return entries

    async def active(self, tenant: str) -> list[Webhook]:
        now = self._clock()
        cached = self._cache.get(tenant)
        if cached is not None and cached[0] > now:
            return cached[1]
        raw = await self.store.all(tenant)
        hooks = [w for w in (Webhook.from_record(r) for r in raw.values()) if w.enabled]
        self._cache[tenant] = (now + CACHE_SECONDS, hooks)
        return hooks

    # --- failures ----------------------------------------------------------------------

    async def failed(self, webhook: Webhook) -> bool:
        """Count a failed attempt; True when the streak disabled the webhook."""
        streak = await self.store.incr_streak(webhook.tenant, webhook.id)
        if streak < self.disable_after:
            return False
        raw = await self.store.get(webhook.tenant, webhook.id)
        if raw is None:
            return True
        current = Webhook.from_record(raw)
        reason = f"{streak} failed delivery attempts in a row"
        disabled = _replace(current, enabled=False, disabled_reason=reason, updated=self._now_iso())
        await self.store.put(webhook.tenant, webhook.id, disabled.record())
        self._cache.pop(webhook.tenant, None)
        return True

    async def succeeded(self, webhook: Webhook) -> None:
        await self.store.reset_streak(webhook.tenant, webhook.id)

    # --- the delivery log --------------------------------------------------------------

    def delivered_in(self, pipe: Pipeline, webhook: Webhook, record: dict[str, Any]) -> None:
        """`succeeded` and `log` for a delivered attempt, queued on a pipeline its caller
        sends with writes of its own (the worker: in one round trip)."""
        self.store.reset_streak_in(pipe, webhook.tenant, webhook.id)
        self.log_in(pipe, webhook, record)

    def log_in(self, pipe: Pipeline, webhook: Webhook, record: dict[str, Any]) -> None:
        """`log`, queued on a pipeline its caller sends."""
        self.store.log_in(
            pipe,
            webhook.tenant,
            webhook.id,
            record["delivery_id"],
            orjson.dumps(record),
            int(record["created_ms"]),
        )

    async def log(self, webhook: Webhook, record: dict[str, Any]) -> None:
        """Keep a delivery's latest state (the worker writes it after each attempt)."""
        await self.store.log(
            webhook.tenant,
            webhook.id,
            record["delivery_id"],
            orjson.dumps(record),
            int(record["created_ms"]),
        )

    async def deliveries(self, tenant: str, webhook_id: str, limit: int) -> list[dict[str, Any]]:
        """The newest deliveries first, each as of its last attempt."""
        await self.webhook(tenant, webhook_id)
        records = await self.store.deliveries(tenant, webhook_id, limit)
        return [_delivery_view(orjson.loads(raw)) for raw in records]

    async def redeliver(self, tenant: str, webhook_id: str, delivery: str) -> dict[str, Any]:
        """Send a logged delivery's event again, as a new delivery (its own id) that goes
        out in version order with whatever the encounter still owes the webhook."""
        webhook = await self.webhook(tenant, webhook_id)
        raw = await self.store.delivery(tenant, webhook_id, delivery)
        if raw is None:
            raise NotFound(
                f"webhook '{webhook_id}' has no delivery '{delivery}'",
                code="webhook/delivery-not-found",
            )
        if not webhook.enabled:
            raise FrayError(
                f"webhook '{webhook_id}' is disabled; enable it (PATCH enabled: true) first",
                code="webhook/disabled",
            )
        record = orjson.loads(raw)
        stream = stream_id(tenant, record["encounter_id"])
        version = int(record["version"])
        redelivery = int(record.get("redelivery", 0)) + 1
        entry = Deadline(
            entry_key(webhook_id, version),
            self._clock(),
            delivery_payload(
                stream, webhook_id, version, redelivery=redelivery, created=self._clock()
            ),
        )
        added = self._outbox is not None and await self._outbox.add_deadline(stream, entry)
        if not added:
            raise FrayError(
                f"the event of delivery '{delivery}' is already waiting to be delivered, or "
                "its encounter is gone",
                code="webhook/delivery-pending",
            )
        if self._schedule is not None:
            await self.scheduling(self._schedule)(stream, [entry])
        return {
            "delivery_id": delivery_id(webhook_id, stream, version, redelivery),
            "redelivery_of": delivery,
            "webhook_id": webhook_id,
            "encounter_id": record["encounter_id"],
            "version": version,
            "status": "pending",
        }

    def _now_iso(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._clock()))


def _delivery_view(record: dict[str, Any]) -> dict[str, Any]:
    keep = (
        "delivery_id",
        "webhook_id",
        "encounter_id",
        "version",
        "event_type",
        "status",
        "attempts",
        "last_response_code",
        "last_error",
        "last_attempt_at",
        "next_attempt_at",
        "redelivery",
    )
    return {k: record.get(k) for k in keep}


def _view_of(view: View) -> str | tuple[str, ...]:
    return tuple(dict.fromkeys(view.player)) if isinstance(view, PlayerView) else view


def _replace(webhook: Webhook, **changes: Any) -> Webhook:
    return Webhook(**{**webhook.__dict__, **changes})


def _unknown(webhook_id: str) -> NotFound:
    return NotFound(f"there is no webhook '{webhook_id}'", code="webhook/not-found")

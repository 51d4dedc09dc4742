"""The job RQ runs for a webhook delivery: send every delivery an encounter owes a webhook,
in version order, each at least once.

An append that matches a webhook records one outbox entry per matching event, keyed
`webhook:<webhook id>:<version>`, in the same atomic script as the events
(`service.app.webhooks`), and its writer schedules a job for each on `fray-webhooks`. A
job takes the lease of its (webhook, encounter) and works through that pair's entries
oldest version first: the head is delivered (its event redacted for the webhook's view, as
SSE redacts it), and cleared only once its receiver answered 2xx, so a worker killed
mid-delivery leaves it in the outbox for the sweeper, and the receiver may see it twice
(its `delivery_id` is the same). A failed attempt moves the head to its next attempt's time
(`RETRY_SCHEDULE`, with jitter) and the entries behind it with it: nothing overtakes it.
After `GIVE_UP` seconds of failing a delivery is given up (the next goes); after the
configured streak of failed attempts the webhook is disabled and what it is owed dropped.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from typing import Any, Literal

import orjson

from service.app.views import redacted_envelope
from service.app.webhook_models import (
    Webhook,
    delivery_id,
    delivery_payload,
    parse_key,
)
from service.app.webhook_urls import resolve
from service.deciding import Loaded
from service.domain.deadlines import WEBHOOK
from service.domain.envelope import Envelope
from service.domain.errors import FrayError, NotFound
from service.domain.ids import split_stream
from service.domain.timefmt import parse_iso
from service.engine import Engine
from service.store.events import Deadline, StoredEvent
from service.store.redis_store import EventStore
from service.webhook_metrics import WebhookMetrics
from workers.jobs import Leases, runner
from workers.webhook_http import Answer, Sender, signature

Delivered = Literal["next", "done", "held", "taken", "more", "gone", "disabled"]
RETRY_SCHEDULE = (1.0, 5.0, 30.0, 120.0, 600.0, 3600.0)  # then hourly
GIVE_UP = 24 * 3600.0  # seconds from a delivery's first attempt
JITTER = 0.2  # each wait is drawn within ±20 %
BUDGET = 30.0  # seconds of delivering per job; then it hands over to a job of its own
EARLY = 0.05  # seconds: a head due this soon is due now
MAX_BODY = 256 * 1024  # bytes; a larger event is sent as a stub to fetch
LEASE_MARGIN = 5.0  # seconds a lease outlives a delivery's timeout (resolving, logging)
Schedule = Callable[[str, list[Deadline]], Any]

_log = logging.getLogger("fray.workers")
_timers: set[asyncio.Task[Any]] = set()
_states: dict[str, Loaded] = {}  # the state each encounter's events were last redacted with
STATES = 1024


def deliver_webhook(encounter_id: str, key: str, due: float) -> str:
    """RQ's entry point: the outbox entry's identity in; its delivery goes on in this
    process's loop (`_Courier.deliver`)."""
    process = runner()
    courier = _Courier.get()
    return process.call(courier.deliver(encounter_id, key))


class _Courier:
    """This process's webhooks, sender, leases and metrics (beside `workers.jobs`' runner)."""

    _instance: _Courier | None = None

    def __init__(self) -> None:
        process = runner()
        settings = process.settings
        self.engine = process.engine
        self.webhooks = process.webhooks
        self.sender = Sender(settings.webhook_timeout)
        # Renewed with each delivery: a killed worker's lapses a delivery's time after it died.
        ttl = settings.webhook_timeout + LEASE_MARGIN
        self.leases = Leases(process.client, ttl_ms=int(ttl * 1000))
        self.client = process.client
        self.metrics = WebhookMetrics(process.client)
        self.schedule: Schedule = process.dispatcher.schedule
        self.taken_up = process.dispatcher.taken_up
        self.schedule_soon = schedule_soon(self)
        self.retry_schedule = settings.webhook_retry_schedule or RETRY_SCHEDULE
        self.stopping = lambda: process.stopping
        # The pairs (encounter, webhook) being delivered in this process, and whether a job
        # came for one meanwhile (its delivery then goes round once more).
        self._running: dict[tuple[str, str], bool] = {}

    @classmethod
    def get(cls) -> _Courier:
        if cls._instance is None or cls._instance.engine is not runner().engine:
            cls._instance = cls()
        return cls._instance

    async def deliver(self, stream: str, key: str) -> Delivered | Literal["started"]:
        """Start delivering what the pair of this entry is owed, in this process's loop,
        and return: RQ's thread takes the next job while deliveries to many receivers go
        on side by side (one pair at a time, in order). Should the process die, the
        entries are still in the outbox for the sweeper."""
        webhook_id, _ = parse_key(key)
        pair = (stream, webhook_id)
        if pair in self._running:
            self._running[pair] = True
            return "started"
        self._running[pair] = False
        task = asyncio.get_running_loop().create_task(self._pair(pair))
        _timers.add(task)
        task.add_done_callback(_timers.discard)
        return "started"

    async def _pair(self, pair: tuple[str, str]) -> None:
        """Deliver until the pair is owed nothing due. Appends meanwhile enqueue no job
        (the pair's queued marker is up); once done, the marker is taken down and the
        outbox read once more, so what an append recorded before that is not left for
        the sweeper."""
        stream, webhook_id = pair
        key = f"{WEBHOOK}{webhook_id}:0"
        try:
            again = True
            while again:
                self._running[pair] = False
                outcome = await deliver_pending(self, stream, webhook_id)
                again = self._running[pair]
                if not again:
                    await asyncio.to_thread(self.taken_up, stream, key)
                    # A holder elsewhere ("taken") looks again itself once it lets go.
                    again = outcome == "done" and bool(await _owed(self.engine, stream, webhook_id))
        except Exception:
            _log.exception("delivering to webhook %s for %s failed", webhook_id, stream)
        finally:
            del self._running[pair]


def schedule_soon(courier: _Courier) -> Callable[[str, str, float], None]:
    """A retry due within a few seconds waits on a timer in this process's loop (RQ's
    scheduler keeps whole seconds); should the process die, the sweeper sends it."""

    armed: dict[tuple[str, str], float] = {}

    def arm(stream: str, webhook_id: str, delay: float) -> None:
        at = time.time() + delay
        pair = (stream, webhook_id)
        if armed.get(pair, float("inf")) <= at + EARLY:
            return  # a timer already wakes up for this pair by then
        armed[pair] = at

        async def later() -> None:
            await asyncio.sleep(delay)
            if armed.get(pair) == at:
                del armed[pair]
            await courier.deliver(stream, f"{WEBHOOK}{webhook_id}:0")

        task = asyncio.get_running_loop().create_task(later())
        _timers.add(task)
        task.add_done_callback(_timers.discard)

    return arm


async def deliver_pending(courier: Any, stream: str, webhook_id: str) -> Delivered:
    """Deliver what the outbox owes the webhook for this encounter, oldest first, under
    one lease per run of deliveries, renewed with each delivery's writes (so a killed
    worker's lease lapses a delivery's time after it died). A job that finds another
    holding the lease leaves it to that one, which looks again once it has let go, so an
    entry recorded meanwhile is not left behind. The outbox is read again once the
    entries read last are delivered."""
    lease = f"webhook:{stream}:{webhook_id}"
    started = time.monotonic()
    while True:
        if not await courier.leases.take(lease):
            return "taken"
        try:
            outcome = await _run(courier, lease, stream, webhook_id, started)
        finally:
            await courier.leases.release(lease)
        if outcome == "more":
            owed = await _owed(courier.engine, stream, webhook_id)
            if owed:
                await courier.schedule(stream, owed[:1])  # the rest: a job of its own
            return "more"
        if outcome == "lost":
            continue  # lapsed mid-run: take it again, or leave it to its new holder
        if outcome == "done" and await _owed(courier.engine, stream, webhook_id):
            continue  # recorded while this job held the lease
        return outcome


async def _run(
    courier: Any, lease: str, stream: str, webhook_id: str, started: float
) -> Step | Literal["more"]:
    """Deliver, holding the lease, until the pair is owed nothing due, the lease is lost,
    or the job's time is up (`more`)."""
    owed: list[Deadline] = []
    webhook: Webhook | None = None
    while True:
        if time.monotonic() - started > BUDGET or courier.stopping():
            return "more"  # a job of its own goes on (this worker is stopping: another's)
        if not owed:
            owed = await _owed(courier.engine, stream, webhook_id)
            webhook = None
        outcome, webhook = await _step(courier, lease, stream, webhook_id, owed, webhook)
        if outcome != "next":
            return outcome
        owed = owed[1:]


async def _owed(engine: Engine, stream: str, webhook_id: str) -> list[Deadline]:
    prefix = f"{WEBHOOK}{webhook_id}:"
    found = [d for d in await engine.store.pending_deadlines(stream) if d.key.startswith(prefix)]
    found.sort(key=lambda d: parse_key(d.key)[1])
    return found


# `lost`: this run's lease lapsed (and may be another's now) before its next delivery.
Step = Literal["next", "done", "held", "gone", "disabled", "lost"]


async def _step(
    courier: Any,
    lease: str,
    stream: str,
    webhook_id: str,
    owed: list[Deadline],
    webhook: Webhook | None,
) -> tuple[Step, Webhook | None]:
    """Deliver the oldest delivery owed (`owed`, oldest first), if it is due; the webhook
    as read for it, for the next step."""
    if not owed:
        return "done", webhook
    head = owed[0]
    if head.due - time.time() > EARLY:
        await _hold(courier, stream, webhook_id, owed, head.due)
        return "held", webhook
    if webhook is None:
        tenant, _ = split_stream(stream)
        try:
            webhook = await courier.webhooks.webhook(tenant or "", webhook_id)
        except NotFound:
            await _drop(courier, stream, owed)
            return "gone", None
    if not webhook.enabled:
        await _drop(courier, stream, owed)
        return "disabled", webhook
    return await _attempt(courier, lease, webhook, stream, head, owed), webhook


async def _attempt(
    courier: Any, lease: str, webhook: Webhook, stream: str, head: Deadline, owed: list[Deadline]
) -> Literal["next", "held", "disabled", "lost"]:
    """Deliver the head: `next` when it is settled (delivered, given up, or nothing to
    send) and the lease renewed for the next, `lost` when settled but the lease lapsed,
    `held` when it failed and waits for its retry, `disabled` when that failure disabled
    the webhook."""
    engine: Engine = courier.engine
    state = orjson.loads(head.payload)
    version = int(state["version"])
    redelivery = int(state.get("redelivery", 0))
    ident = delivery_id(webhook.id, stream, version, redelivery)
    event = await _event(engine, webhook, stream, version)
    if event is None:  # the stream is gone, or the view is not told of this event
        return await _settle(courier, lease, stream, head, "skipped")
    body = _body(ident, webhook, stream, event)
    event_time = parse_iso(str(event.get("at"))).timestamp()
    attempts = int(state.get("attempts", 0)) + 1
    first = float(state.get("first", time.time()))
    record: dict[str, Any] = {
        "delivery_id": ident,
        "webhook_id": webhook.id,
        "encounter_id": split_stream(stream)[1],
        "version": version,
        "event_type": event.get("type"),
        "attempts": attempts,
        # Listed by when it was owed: the event's time, or when a redelivery was asked for.
        "created_ms": int(float(state.get("created", event_time)) * 1000),
        "redelivery": redelivery,
    }
    answer = await _send(courier, webhook, ident, body)
    now = time.time()
    record.update(
        last_response_code=answer.status,
        last_error=answer.error,
        last_attempt_at=_iso(now),
    )
    if answer.ok:
        latency = None if redelivery else max(0.0, now - event_time)
        logged = {**record, "status": "delivered", "next_attempt_at": None}
        return await _settle(courier, lease, stream, head, "delivered", latency, (webhook, logged))
    disabled = await courier.webhooks.failed(webhook)
    if disabled:
        await _log_record(courier, webhook, record, "abandoned", None)
        await _drop(courier, stream, owed)
        _log.warning("webhook %s disabled after failed attempts in a row", webhook.id)
        return "disabled"
    if now - first >= GIVE_UP:
        logged = {**record, "status": "failed", "next_attempt_at": None}
        return await _settle(courier, lease, stream, head, "failed", None, (webhook, logged))
    wait = _backoff(courier.retry_schedule, attempts)
    moved = Deadline(
        head.key,
        now + wait,
        delivery_payload(
            stream,
            webhook.id,
            version,
            armed=state.get("armed"),
            attempts=attempts,
            first=first,
            redelivery=redelivery,
            **({"created": state["created"]} if "created" in state else {}),
        ),
    )
    if await engine.store.move_deadline(stream, head.key, head.due, head.payload, moved):
        await courier.metrics.outcome("retrying")
        await _log_record(courier, webhook, record, "retrying", _iso(moved.due))
        await _hold(courier, stream, webhook.id, [moved, *owed[1:]], moved.due)
    return "held"


async def _settle(
    courier: Any,
    lease: str,
    stream: str,
    head: Deadline,
    outcome: Literal["delivered", "failed", "skipped"],
    latency: float | None = None,
    logged: tuple[Webhook, dict[str, Any]] | None = None,
) -> Literal["next", "lost"]:
    """The writes after a settled head, in one round trip: the head cleared from the outbox
    (first: a pipeline runs its commands in order), then the webhook's streak reset if it
    was delivered, its log record, the metrics, and the lease renewed for the next."""
    store = courier.engine.store
    assert isinstance(store, EventStore)
    async with courier.client.pipeline(transaction=False) as pipe:
        store.clear_deadline_in(pipe, stream, head.key, head.due, head.payload)
        if logged is not None:
            webhook, record = logged
            if outcome == "delivered":
                courier.webhooks.delivered_in(pipe, webhook, record)
            else:
                courier.webhooks.log_in(pipe, webhook, record)
        WebhookMetrics.outcome_in(pipe, outcome, latency)
        courier.leases.renew_in(pipe, lease)
        replies = await pipe.execute()
    if replies[0] and store.cluster:
        await store.after_outbox_change(stream)
    return "next" if replies[-1] else "lost"


async def _log_record(
    courier: Any, webhook: Webhook, record: dict[str, Any], status: str, next_at: str | None
) -> None:
    await courier.webhooks.log(webhook, {**record, "status": status, "next_attempt_at": next_at})


async def _hold(
    courier: Any, stream: str, webhook_id: str, owed: list[Deadline], until: float
) -> None:
    """Keep the entries behind the head from coming due before it (no overtaking, and no
    sweep of entries that must wait anyway), and wake up for the head."""
    engine: Engine = courier.engine
    for entry in owed[1:]:
        if entry.due < until:
            await engine.store.move_deadline(
                stream,
                entry.key,
                entry.due,
                entry.payload,
                Deadline(entry.key, until, entry.payload),
            )
    wait = until - time.time()
    if wait <= 5.0:
        courier.schedule_soon(stream, webhook_id, max(0.0, wait))
    else:
        await courier.schedule(stream, [Deadline(owed[0].key, until, owed[0].payload)])


async def _drop(courier: Any, stream: str, owed: list[Deadline]) -> None:
    """A gone or disabled webhook is owed nothing more."""
    for entry in owed:
        if await courier.engine.store.clear_deadline(stream, entry.key, entry.due, entry.payload):
            await courier.metrics.outcome("abandoned")


async def _event(
    engine: Engine, webhook: Webhook, stream: str, version: int
) -> dict[str, Any] | None:
    stored: list[StoredEvent] = await engine.store.read(stream, after=version - 1, up_to=version)
    if not stored:
        return None
    loaded = _states.get(stream)
    if loaded is None or loaded.version < version:
        # As SSE does: redact against a state at least as new as the event (its options
        # and sides), loaded again only when the stream has passed it.
        try:
            loaded = await engine.load(stream)
        except FrayError:
            return None
        _states[stream] = loaded
        while len(_states) > STATES:
            _states.pop(next(iter(_states)))
    envelope = Envelope.from_body(stored[0].body)
    seen = redacted_envelope(loaded.ruleset, envelope, webhook.actor(), loaded.state)
    if seen is None or not webhook.matches(stream, str(seen.get("type"))):
        return None
    return seen


def _body(ident: str, webhook: Webhook, stream: str, event: dict[str, Any]) -> bytes:
    delivery = {
        "delivery_id": ident,
        "webhook_id": webhook.id,
        "encounter_id": split_stream(stream)[1],
        "event": event,
    }
    body = orjson.dumps(delivery)
    if len(body) > MAX_BODY:
        # Too large to send: the receiver reads it from GET .../events.
        stub = {k: event.get(k) for k in ("version", "type", "at")}
        body = orjson.dumps({**delivery, "event": {**stub, "truncated": True}})
    return body


async def _send(courier: Any, webhook: Webhook, ident: str, body: bytes) -> Answer:
    try:
        # Checked again now: the host may resolve elsewhere than when it was registered.
        target = await resolve(webhook.url, courier.webhooks.allow_private)
    except FrayError as error:
        return Answer(None, f"{error.code}: {error.message}")
    signed = signature(webhook.secret, int(time.time()), body)
    answer: Answer = await courier.sender.post(target, body, signed, ident)
    return answer


def _backoff(schedule: tuple[float, ...], attempts: int) -> float:
    base = schedule[min(attempts, len(schedule)) - 1]
    return float(base * random.uniform(1 - JITTER, 1 + JITTER))


def _iso(moment: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))

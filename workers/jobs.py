"""The job RQ runs at a deadline: one system command through the same pipeline as every
client's, or nothing if the deadline has moved or gone.

Firing twice is harmless: the command id is the deadline's id, so a second firing is the
engine's duplicate (nothing appended), and a firing after the rules have moved on (the
clock restarted, the window already closed) is decided as a no-op by the rules.

Deadlines fall due together (a round's clocks, a thousand tables at the top of the hour):
one job per deadline through RQ costs milliseconds of RQ's own bookkeeping each, so the
job that runs first also fires every other deadline already due in the outbox, up to
`DRAIN` of them, `CONCURRENT` at a time; their own jobs then find them gone and do nothing.
A worker process keeps one event loop, one Redis client and one engine (with its cache of
encounters) for all the jobs it runs, and drains one at a time. Its engine schedules the
deadlines its own firings record (the next turn's clock after a timeout), like the API's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Coroutine
from contextlib import suppress
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

import orjson
import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from service.app.encounters import Encounters
from service.app.webhooks import Webhooks
from service.config import Settings
from service.deadline_metrics import DeadlineMetrics
from service.deciding import CommandRequest
from service.dispatch import Dispatcher, job_id
from service.domain.deadlines import fires_command
from service.domain.errors import FrayError
from service.domain.timefmt import iso, parse_iso
from service.engine import Engine
from service.store.clients import redis_client
from service.store.events import Deadline, score_text
from service.store.protocol import Store
from service.store.redis_store import EventStore
from service.store.webhooks import WebhookStore
from service.webhook_metrics import WebhookMetrics

Fired = Literal["fired", "duplicate", "refused", "postponed", "moved", "early", "taken", "armed"]
MAX_EARLY = 5.0  # seconds a job waits for its deadline; jobs start up to LEAD + 1 s early
LEASE_MS = 10_000  # a firing takes milliseconds; a killed worker's lease lapses after this
HOLD = 10.0  # seconds an early job waits at most for the firings under way
T = TypeVar("T")

_log = logging.getLogger("fray.workers")
# Refusals that may pass: RQ runs the job again (the sweeper is the backstop).
PASSING = frozenset({"store/unavailable", "internal/unrecordable", "encounter/busy"})
# Refusals that mean "not now": a command is held for dice (`dice: prompt`), and the
# encounter takes nothing but the dice until they are in or their own deadline passes. The
# deadline stays in the outbox, overdue, and the sweeper sends it again (every
# REPEAT_AFTER seconds) until the encounter takes it: a turn clock that runs out during a
# roll request fires once the request is settled, never lost.
POSTPONING = frozenset({"dice/roll-pending"})


DRAIN = 500  # other due deadlines one job fires at most
CONCURRENT = 32  # firings in flight at once


class Released(Exception):
    """The worker stopped before the job finished (its grace period ran out): the job's
    lease is released, RQ runs it again (`Retry`), and the outbox still holds its work."""

    def __init__(self) -> None:
        super().__init__(
            "released: the worker stopped before the job finished; it runs again elsewhere"
        )


def fire_deadline(encounter_id: str, key: str, due: float) -> str:
    """RQ's entry point: ids and a time in, the outcome's name out (kept as the result)."""
    return _Runner.get().run(encounter_id, key, due)


def runner() -> _Runner:
    """This process's event loop, Redis client and engine (the audit jobs share them)."""
    return _Runner.get()


def current_runner() -> _Runner | None:
    """This process's runner if a job has made one (a worker that ran none has nothing to
    finish when it stops)."""
    return _Runner.current()


class _Runner:
    """This process's event loop (in a thread), Redis client, engine and metrics."""

    _instance: _Runner | None = None
    _guard = threading.Lock()

    def __init__(self, settings: Settings) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._client = redis_client(settings.redis_url, settings.redis_cluster)
        # A firing's own append may start a clock (the next turn's, after a timeout): it is
        # scheduled like any client's, or it would wait for the sweeper.
        self._dispatcher = Dispatcher(settings.queue_redis_url)
        self._settings = settings
        # Its firings' events owe webhook deliveries as a client's do (a timeout starts the
        # next turn: `turn-started`).
        store = EventStore(self._client, retention=settings.retention)
        self._webhooks = Webhooks(
            WebhookStore(self._client),
            outbox=store,
            allow_private=settings.webhook_allow_private,
            disable_after=settings.webhook_disable_after,
            schedule=self._dispatcher.schedule,
            metrics=WebhookMetrics(self._client),
        )
        self._engine = Engine(
            store,
            on_deadlines=self._webhooks.scheduling(self._dispatcher.schedule),
            deliveries=self._webhooks.outbox_entries,
        )
        self._metrics = DeadlineMetrics(self._client)
        self._leases = Leases(self._client)
        self._draining = False
        self._drain_again = False
        self._firing = 0  # firings (and their drains) under way in the loop
        self._idle = asyncio.Event()
        self._idle.set()
        self._timers: set[asyncio.Task[None]] = set()
        self._pid = os.getpid()
        # Told to stop (`workers.stopping`): what is under way goes on, nothing new starts
        # (a webhook run hands over at its next delivery).
        self.stopping = False

    @classmethod
    def current(cls) -> _Runner | None:
        """This process's runner if a job has made one (nothing to stop otherwise)."""
        instance = cls._instance
        return instance if instance is not None and instance._pid == os.getpid() else None

    @classmethod
    def get(cls) -> _Runner:
        with cls._guard:
            if cls._instance is None or cls._instance._pid != os.getpid():
                cls._instance = cls(Settings.from_env())
            return cls._instance

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def client(self) -> aioredis.Redis:
        return self._client

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def webhooks(self) -> Webhooks:
        return self._webhooks

    @property
    def dispatcher(self) -> Dispatcher:
        return self._dispatcher

    def call(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` in this process's event loop (RQ's thread waits for it); `Released`
        if the worker stopped before it finished (`cancel_all`)."""
        try:
            return asyncio.run_coroutine_threadsafe(work, self._loop).result()
        except concurrent.futures.CancelledError:
            raise Released() from None

    def wait_idle(self, timeout: float) -> bool:
        """Until no task runs in this process's loop (the jobs' work, the firings armed
        early, webhook runs), or `timeout` seconds; whether it is idle."""
        future = asyncio.run_coroutine_threadsafe(_idle(), self._loop)
        try:
            future.result(max(timeout, 0.0))
        except TimeoutError:
            future.cancel()
            return False
        return True

    def cancel_all(self) -> None:
        """Cancel every task in this process's loop: a job waiting on one fails (RQ retries
        it) and each lease is released on the way out (the `finally` of `fire`, of an
        audit, of a webhook run), so another worker takes the work up at once."""
        self._loop.call_soon_threadsafe(_cancel_all)

    def run(self, encounter_id: str, key: str, due: float) -> Fired:
        early = due - time.time()
        if 0 < early <= MAX_EARLY:
            # Jobs are scheduled to start before their deadline (`service.dispatch.LEAD`).
            # Waiting here would hold up the jobs behind this one: the loop fires it on time
            # instead. Should this process die first, the deadline is still in the outbox
            # for the sweeper.
            arm = self._arm(early, encounter_id, key, due)
            self.call(arm)
            return "armed"
        return self.call(self._fire_and_drain(encounter_id, key, due))

    async def _arm(self, delay: float, encounter_id: str, key: str, due: float) -> None:
        """Set the timer, then hold RQ's thread (this job) while deadlines that are due now
        are being fired. In a burst every job starts early, and RQ's bookkeeping of each
        (a few milliseconds of this process's CPU) would otherwise go on beside the firings
        and make them late: what is due comes first, as when a job runs late and fires."""
        timer = asyncio.create_task(self._later(delay, encounter_id, key, due))
        self._timers.add(timer)
        timer.add_done_callback(self._timers.discard)
        with suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), HOLD)

    async def _later(self, delay: float, encounter_id: str, key: str, due: float) -> None:
        await asyncio.sleep(delay)
        try:
            await self._fire_and_drain(encounter_id, key, due)
        except Exception:
            _log.exception("firing deadline %s of %s failed", key, encounter_id)

    async def _fire_and_drain(self, encounter_id: str, key: str, due: float) -> Fired:
        self._firing += 1
        self._idle.clear()
        try:
            outcome = await fire(
                self._engine, encounter_id, key, due, metrics=self._metrics, leases=self._leases
            )
            if outcome != "early":
                await self._drain()
            return outcome
        finally:
            self._firing -= 1
            if self._firing == 0:
                self._idle.set()

    async def _drain(self) -> None:
        """Fire whatever else is due, one drain at a time in this process. Timers armed for
        a burst fire together (a thousand in the same seconds); were each to drain, each
        would scan and fire the whole burst at once. A firing that finds a drain running
        has it go round once more instead, so what fell due meanwhile is not left over."""
        if self._draining:
            self._drain_again = True
            return
        self._draining = True
        try:
            again = True
            while again:
                self._drain_again = False
                await drain(self._engine, time.time(), self._metrics, self._leases)
                again = self._drain_again
        finally:
            self._draining = False


async def _idle() -> None:
    me = asyncio.current_task()
    while others := [task for task in asyncio.all_tasks() if task is not me]:
        await asyncio.wait(others)


def _cancel_all() -> None:
    for task in asyncio.all_tasks():
        task.cancel()


class Leases:
    """Who is firing a deadline right now: two workers (or a job and another's drain) never
    fire one deadline at once. A lease outlives a killed worker by `LEASE_MS` at most.

    Each take writes a token of its own, and a release deletes the lease only if it still
    holds that token: a worker that hung past its lease never frees the lease another
    worker has taken since. One instance serves a whole process, which never holds one
    deadline twice.
    """

    def __init__(self, client: aioredis.Redis, ttl_ms: int = LEASE_MS) -> None:
        self._client = client
        self._ttl_ms = ttl_ms
        self._held: dict[str, str] = {}
        self._release = client.register_script(RELEASE)

    async def take(self, job_id: str) -> bool:
        if job_id in self._held:
            return False  # this process is firing it already
        token = secrets.token_hex(16)
        self._held[job_id] = token  # before the await: a concurrent take here sees it
        try:
            taken = bool(await self._client.set(lease_key(job_id), token, nx=True, px=self._ttl_ms))
        except BaseException:
            del self._held[job_id]
            raise
        if not taken:
            del self._held[job_id]
        return taken

    def renew_in(self, pipe: Pipeline, job_id: str) -> None:
        """Queue a renewal of a lease this process holds on a pipeline its caller sends (its
        reply there: 1 if still held, now for the whole ttl again; 0 if it lapsed)."""
        pipe.eval(RENEW, 1, lease_key(job_id), self._held[job_id], self._ttl_ms)

    async def release(self, job_id: str) -> None:
        token = self._held.pop(job_id, None)
        if token is not None:
            await self._release(keys=[lease_key(job_id)], args=[token])


# KEYS: the lease; ARGV: the token its holder wrote, the ttl (ms). Compare and extend.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# KEYS: the lease; ARGV: the token its holder wrote. Compare and delete in one step.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def lease_key(job_id: str) -> str:
    return f"fray:firing:{job_id}"


async def drain(
    engine: Engine,
    now: float,
    metrics: DeadlineMetrics | None = None,
    leases: Leases | None = None,
    skip: tuple[str, str] | None = None,
    limit: int = DRAIN,
) -> int:
    """Fire the deadlines already due in the outbox; how many were fired."""
    gate = asyncio.Semaphore(CONCURRENT)

    async def one(encounter_id: str, key: str, due: float) -> Fired:
        async with gate:
            try:
                return await fire(engine, encounter_id, key, due, lambda: now, metrics, leases)
            except Exception:  # its own job (or the sweeper) tries again
                _log.exception("firing deadline %s of %s failed", key, encounter_id)
                return "refused"

    due_now = await engine.store.due_deadlines(now, limit=limit)
    # Audits and webhook deliveries wait in the outbox too, but are their own queues'
    # (`workers.audits`, `workers.webhooks`).
    outcomes = await asyncio.gather(
        *(one(e, d.key, d.due) for e, d in due_now if (e, d.key) != skip and fires_command(d.key))
    )
    return outcomes.count("fired")


async def fire(
    engine: Engine,
    encounter_id: str,
    key: str,
    due: float,
    clock: Callable[[], float] = time.time,
    metrics: DeadlineMetrics | None = None,
    leases: Leases | None = None,
) -> Fired:
    # Never expire a clock early: wait for the deadline.
    early = due - clock()
    if early > MAX_EARLY:
        # Only a clock running ahead (another host's) starts a job this early. The deadline
        # stays in the outbox; the sweeper enqueues it once it is overdue.
        _log.warning("deadline %s of %s: job started %.1f s early", key, encounter_id, early)
        return "early"
    if early > 0:
        await asyncio.sleep(early)
    # The outbox says which deadline is due now: whichever job fires it (this one, one
    # scheduled for an earlier arming at the same time, another worker's drain) fires it
    # under its own identity, so they take one lease and send one command.
    deadline = await pending(engine.store, encounter_id, key, due)
    if deadline is None:
        await _report(metrics, encounter_id, key, due, None, "moved", None)
        return "moved"
    command_id = job_id(encounter_id, deadline)
    if leases is not None and not await leases.take(command_id):
        return "taken"  # being fired by another job or worker right now
    try:
        outcome, lateness = await _fire(engine, encounter_id, deadline, command_id)
    finally:
        if leases is not None:
            await leases.release(command_id)
    await _report(metrics, encounter_id, key, due, command_id, outcome, lateness)
    return outcome


async def pending(store: Store, encounter_id: str, key: str, due: float) -> Deadline | None:
    """The deadline `key` of the outbox if it is still due at `due`."""
    for deadline in await store.pending_deadlines(encounter_id):
        if deadline.key == key and score_text(deadline.due) == score_text(due):
            return deadline
    return None


async def _fire(
    engine: Engine, encounter_id: str, deadline: Deadline, command_id: str
) -> tuple[Fired, float | None]:
    command = orjson.loads(deadline.payload)["command"]
    request = CommandRequest(command_id=command_id, command=command)
    outcome: Fired
    lateness: float | None = None
    try:
        result = await Encounters(engine).submit_as_system(encounter_id, request)
        outcome = "duplicate" if result.duplicate else "fired"
        if result.events and not result.duplicate:
            lateness = parse_iso(result.events[0]["at"]).timestamp() - deadline.due
    except FrayError as error:
        if error.code in PASSING:
            raise  # passing: RQ retries the job
        if error.code in POSTPONING:
            _log.info("deadline %s of %s postponed: %s", deadline.key, encounter_id, error)
            return "postponed", None  # kept in the outbox: the sweeper sends it again
        # The encounter is gone or the rules refuse (e.g. it ended): nothing to fire.
        _log.warning(
            "deadline %s of %s refused: %s %s", deadline.key, encounter_id, error.code, error
        )
        outcome = "refused"
    # A no-op expiry appends nothing, so nothing cancelled the deadline: clear it here
    # (unless it moved or was armed again meanwhile), or the sweeper would find it again.
    await engine.store.clear_deadline(encounter_id, deadline.key, deadline.due, deadline.payload)
    return outcome, lateness


async def _report(
    metrics: DeadlineMetrics | None,
    encounter_id: str,
    key: str,
    due: float,
    command_id: str | None,
    outcome: Fired,
    lateness: float | None,
) -> None:
    if metrics is not None:
        await metrics.fired(outcome, lateness)
    line = {
        "event": "deadline",
        "encounter_id": encounter_id,
        "key": key,
        "due": iso(datetime.fromtimestamp(due, UTC)),
        "command_id": command_id,
        "outcome": outcome,
        "lateness_s": None if lateness is None else round(lateness, 3),
    }
    _log.info(orjson.dumps(line).decode())

"""The core benchmarks: store appends against raw XADD, cold loads, and the fold.

Targets (the core issue):
  (a) appends through the store at 50 concurrent writers >= 40% of raw XADD at 50;
  (b) a cold load of a 10,000-event stream within 1.5x that of a 10-event stream;
  (c) the fold >= 50,000 events/s on one core.

Everything talks to a private redis-server started here, through one
`redis.asyncio.Redis.from_url` client (hiredis parser). Figures are medians of
interleaved repetitions, so a noisy neighbour hurts every configuration alike.
"""

from __future__ import annotations

import asyncio
import cProfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio
from redis.typing import EncodableT, FieldT

from bench import workload
from bench.report import Row, median, ms, progress, rate, timed, verdict
from service.deciding import CommandRequest
from service.domain.common import EncounterCreated
from service.domain.context import GM
from service.domain.envelope import Envelope
from service.domain.errors import Conflict
from service.domain.fold import replay
from service.domain.ids import stream_id
from service.embedded_redis import RedisServer
from service.engine import Engine
from service.rules.freeform import RULESET
from service.store.errors import VersionConflict
from service.store.events import AppendResult, Deadline, StoredEvent
from service.store.keys import encounter_keys
from service.store.redis_store import EventStore

APPEND_TARGET = 0.40  # store appends at 50 tasks / raw XADD at 50 tasks
LOAD_TARGET = 1.5  # load(10,000 events) / load(10 events)
FOLD_TARGET = 50_000  # events/s
WRITERS = 50
LOAD_SIZES = (10, 1_000, 10_000)
FOLD_EVENTS = 10_000


@dataclass
class Settings:
    seconds: float = 1.0  # length of one timed throughput run
    reps: int = 5  # interleaved repetitions of each throughput configuration
    load_reps: int = 15
    fold_reps: int = 9
    profile: bool = False

    @classmethod
    def quick(cls, profile: bool = False) -> Settings:
        return cls(seconds=0.4, reps=2, load_reps=5, fold_reps=3, profile=profile)


@dataclass
class Outcome:
    rows: list[Row] = field(default_factory=list)
    environment: list[str] = field(default_factory=list)
    profiles: list[tuple[str, cProfile.Profile]] = field(default_factory=list)


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    server = RedisServer().start()
    try:
        progress(f"redis-server {server.version()} on {server.url}")
        outcome.environment.append(
            f"redis-server {server.version()} ({server.binary}), redis-py {redis.__version__}"
        )
        asyncio.run(_with_redis(server.url, settings, outcome))
    finally:
        server.close()
    _fold(settings, outcome)
    return outcome


async def _with_redis(url: str, settings: Settings, outcome: Outcome) -> None:
    client = redis.asyncio.Redis.from_url(url)
    try:
        await _appends(client, settings, outcome)
        await client.flushdb()
        await _engine(client, settings, outcome)
        await client.flushdb()
        await _loads(client, settings, outcome)
    finally:
        await client.aclose()


# --- (a) appends -------------------------------------------------------------------------


@dataclass
class Tally:
    ops: int = 0
    conflicts: int = 0
    busy: int = 0


@dataclass
class Run:
    ops: float  # per second
    conflicts: float  # per second
    busy: float  # per second
    client_cpu_us: float  # client process CPU per successful op
    server_us: float  # redis-server time per successful op (top-level commands)


Worker = Callable[[float, Tally], Awaitable[None]]


async def _drive(
    client: redis.asyncio.Redis,
    workers: Sequence[Worker],
    seconds: float,
    server_commands: Sequence[str],
    tally: Tally | None = None,
) -> Run:
    """Run the workers concurrently until `seconds` pass; the rates of what they did."""
    await client.config_resetstat()
    tally = tally or Tally()
    cpu = time.process_time()
    start = time.perf_counter()
    end = start + seconds
    await asyncio.gather(*(worker(end, tally) for worker in workers))
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    stats: dict[str, Any] = await client.info("commandstats")
    server_usec = sum(stats.get(f"cmdstat_{name}", {}).get("usec", 0) for name in server_commands)
    done = max(tally.ops, 1)
    return Run(
        ops=tally.ops / elapsed,
        conflicts=tally.conflicts / elapsed,
        busy=tally.busy / elapsed,
        client_cpu_us=cpu / done * 1e6,
        server_us=server_usec / done,
    )


def _raw_xadd(client: redis.asyncio.Redis, key: str, sample: Envelope) -> Worker:
    fields: dict[FieldT, EncodableT] = {b"e": sample.body(), b"h": sample.hash}

    async def worker(end: float, tally: Tally) -> None:
        while time.perf_counter() < end:
            await client.xadd(key, fields)
            tally.ops += 1

    return worker


def _store_writer(
    store: EventStore,
    encounter_id: str,
    name: str,
    sample: Envelope,
    shared: _Serialized | None = None,
) -> Worker:
    """An optimistic writer: append at the version it knows, re-read head on a conflict.

    With `shared`, the writers of this process take turns on a per-encounter asyncio.Lock
    and share the last version written (the proposed in-process serialization).
    """
    body, digest = sample.body(), sample.hash

    async def worker(end: float, tally: Tally) -> None:
        head = await store.head(encounter_id)
        assert head is not None
        version = head.version
        sent = 0
        while time.perf_counter() < end:
            sent += 1
            command_id = f"{name}-{sent}"
            try:
                if shared is None:
                    result = await store.append(
                        encounter_id,
                        version,
                        command_id,
                        "fp",
                        [StoredEvent(version + 1, digest, body)],
                    )
                    version = result.last_version
                else:
                    async with shared.lock:
                        result = await store.append(
                            encounter_id,
                            shared.version,
                            command_id,
                            "fp",
                            [StoredEvent(shared.version + 1, digest, body)],
                        )
                        shared.version = result.last_version
                tally.ops += 1
            except VersionConflict:
                tally.conflicts += 1
                head = await store.head(encounter_id)
                assert head is not None
                version = head.version
                if shared is not None:
                    shared.version = version

    return worker


@dataclass
class _Serialized:
    version: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


async def _new_encounters(store: EventStore, sample: Envelope, count: int) -> list[str]:
    ids = [f"bench-{uuid.uuid4().hex[:12]}" for _ in range(count)]
    for encounter_id in ids:
        await store.create(encounter_id, StoredEvent(1, sample.hash, sample.body()), b"s" * 32)
    return ids


async def _appends(client: redis.asyncio.Redis, settings: Settings, outcome: Outcome) -> None:
    sample = workload.sample_body(workload.harness_stream(200))
    store = EventStore(client)
    size = len(sample.body())
    progress(
        f"(a) appends: {size}-byte {sample.type} bodies, {settings.reps} x {settings.seconds}s"
    )

    async def raw(tasks: int) -> Run:
        key = f"bench-raw:{uuid.uuid4().hex}"
        return await _drive(
            client, [_raw_xadd(client, key, sample)] * tasks, settings.seconds, ["xadd"]
        )

    async def appended(tasks: int, encounters: int = 1, serialized: bool = False) -> Run:
        ids = await _new_encounters(store, sample, encounters)
        shared = {i: _Serialized(version=1) for i in ids} if serialized else {}
        targets = [ids[n % encounters] for n in range(tasks)]
        workers = [
            _store_writer(store, target, f"w{n}", sample, shared.get(target))
            for n, target in enumerate(targets)
        ]
        return await _drive(client, workers, settings.seconds, ["evalsha", "hmget"])

    configs: dict[str, Callable[[], Awaitable[Run]]] = {
        "raw1": lambda: raw(1),
        "raw50": lambda: raw(WRITERS),
        "store1": lambda: appended(1),
        "store50": lambda: appended(WRITERS),
        "store50-lock": lambda: appended(WRITERS, serialized=True),
        "store50x50": lambda: appended(WRITERS, encounters=WRITERS),
    }
    runs = await _interleaved(configs, settings, client)
    med = {name: _median_run(r) for name, r in runs.items()}

    def of_raw(name: str, raw: str) -> float:
        """Median over repetitions of (store rate / raw rate of the same repetition)."""
        return median([s.ops / r.ops for s, r in zip(runs[name], runs[raw], strict=True)])

    def detail(r: Run) -> str:
        text = f"client CPU {r.client_cpu_us:.0f} µs/op, redis {r.server_us:.0f} µs/op"
        return text + (f"; {r.conflicts:,.0f} conflicts/s" if r.conflicts else "")

    def appends(name: str, raw: str) -> str:
        ratio = of_raw(name, raw)
        share = f"{ratio:.1%}" if ratio < 0.1 else f"{ratio:.0%}"
        return f"{rate(med[name].ops, 'appends/s')} = {share} of raw"

    ratio50 = of_raw("store50-lock", "raw50")
    outcome.rows += [
        Row("(a) raw XADD, 1 task", rate(med["raw1"].ops, "adds/s"), notes=detail(med["raw1"])),
        Row(
            f"(a) raw XADD, {WRITERS} tasks",
            rate(med["raw50"].ops, "adds/s"),
            notes=detail(med["raw50"]),
        ),
        Row("(a) store append, 1 task", appends("store1", "raw1"), notes=detail(med["store1"])),
        Row(
            f"(a) store append, {WRITERS} tasks, one encounter, serialized per encounter "
            "(as the engine does)",
            appends("store50-lock", "raw50"),
            f"≥ {APPEND_TARGET:.0%} of raw XADD at {WRITERS}",
            verdict(ratio50 >= APPEND_TARGET),
            detail(med["store50-lock"]),
        ),
        Row(
            f"(a) store append, {WRITERS} tasks, one encounter, uncoordinated optimistic writers",
            appends("store50", "raw50"),
            notes=detail(med["store50"]) + " (why the engine serializes per encounter)",
        ),
        Row(
            f"(a) store append, {WRITERS} tasks over {WRITERS} encounters",
            appends("store50x50", "raw50"),
            notes=detail(med["store50x50"]),
        ),
    ]
    if settings.profile:
        profile = cProfile.Profile()
        profile.enable()
        await appended(WRITERS)
        profile.disable()
        outcome.profiles.append((f"store append, {WRITERS} tasks, one encounter", profile))


async def _interleaved(
    configs: dict[str, Callable[[], Awaitable[Run]]],
    settings: Settings,
    client: redis.asyncio.Redis,
) -> dict[str, list[Run]]:
    runs: dict[str, list[Run]] = {name: [] for name in configs}
    for name, config in configs.items():  # warm-up: scripts loaded, connections opened
        progress(f"    warm-up {name}")
        await config()
    for rep in range(settings.reps):
        for name, config in configs.items():
            runs[name].append(await config())
        progress(f"    repetition {rep + 1}/{settings.reps}")
        await client.flushdb()
    return runs


def _median_run(runs: list[Run]) -> Run:
    return Run(
        ops=median([r.ops for r in runs]),
        conflicts=median([r.conflicts for r in runs]),
        busy=median([r.busy for r in runs]),
        client_cpu_us=median([r.client_cpu_us for r in runs]),
        server_us=median([r.server_us for r in runs]),
    )


# --- the whole Engine pipeline, for context ---------------------------------------------


class CountingStore(EventStore):
    """The event store, counting the version conflicts the engine retries."""

    def __init__(self, client: redis.asyncio.Redis, tally: Tally) -> None:
        super().__init__(client)
        self.tally = tally

    async def append(
        self,
        encounter_id: str,
        expected_version: int,
        command_id: str,
        fingerprint: str,
        events: Sequence[StoredEvent],
        deadlines: Sequence[Deadline] = (),
        cancel: Sequence[str] = (),
        status: str | None = None,
    ) -> AppendResult:
        try:
            return await super().append(
                encounter_id,
                expected_version,
                command_id,
                fingerprint,
                events,
                deadlines,
                cancel,
                status,
            )
        except VersionConflict:
            self.tally.conflicts += 1
            raise


async def _engine(client: redis.asyncio.Redis, settings: Settings, outcome: Outcome) -> None:
    progress(f"(a) engine: add-note commands, {settings.reps} x {settings.seconds}s")

    async def commands(tasks: int, encounters: int = 1, serialized: bool = False) -> Run:
        tally = Tally()
        engine = Engine(CountingStore(client, tally))
        ids = [
            (await engine.create("freeform", {}, actor=GM, title="bench"))[0]
            for _ in range(encounters)
        ]
        locks = {i: asyncio.Lock() for i in ids}

        def writer(encounter_id: str, n: int) -> Worker:
            async def worker(end: float, run_tally: Tally) -> None:
                sent = 0
                while time.perf_counter() < end:
                    sent += 1
                    text = f"note {sent} from writer {n}: the ogre roars"
                    request = CommandRequest(command={"type": "add-note", "text": text})
                    try:
                        if serialized:
                            async with locks[encounter_id]:
                                await engine.execute(encounter_id, request, GM)
                        else:
                            await engine.execute(encounter_id, request, GM)
                        run_tally.ops += 1
                    except Conflict as error:
                        if error.code != "encounter/busy":
                            raise
                        run_tally.busy += 1

            return worker

        workers = [writer(ids[n % encounters], n) for n in range(tasks)]
        commands = ["evalsha", "hmget", "hgetall", "xrange", "get"]
        return await _drive(client, workers, settings.seconds, commands, tally)

    configs: dict[str, Callable[[], Awaitable[Run]]] = {
        "engine1": lambda: commands(1),
        "engine50": lambda: commands(WRITERS),
        "engine50x50": lambda: commands(WRITERS, encounters=WRITERS),
    }
    runs = await _interleaved(configs, settings, client)
    med = {name: _median_run(r) for name, r in runs.items()}

    def detail(r: Run) -> str:
        text = f"client CPU {r.client_cpu_us:,.0f} µs/command"
        if r.conflicts:
            text += f"; {r.conflicts:,.0f} version conflicts/s retried"
        if r.busy:
            text += f"; {r.busy:,.0f} commands/s refused encounter/busy"
        return text

    names = {
        "engine1": "1 task, one encounter",
        "engine50": f"{WRITERS} tasks, one encounter",
        "engine50x50": f"{WRITERS} tasks over {WRITERS} encounters",
    }
    for key, label in names.items():
        outcome.rows.append(
            Row(
                f"(a) engine execute add-note, {label}",
                rate(med[key].ops, "commands/s"),
                notes=detail(med[key]),
            )
        )


# --- (b) loads ---------------------------------------------------------------------------


async def build(engine: Engine, events: int, tenant: str | None = None) -> str:
    """An encounter of about `events` events (at least that many: a command appends one to
    four), played through the engine; its id in the store (`tenant/<id>` with a tenant)."""
    created, _ = await engine.create("freeform", {}, actor=GM, title="bench", tenant=tenant)
    encounter_id = stream_id(tenant, created)
    version = 1
    for command in workload.setup_commands():
        request = CommandRequest(command=command)
        version = (await engine.execute(encounter_id, request, GM)).version
    commands = workload.play_commands()
    while version < events:
        request = CommandRequest(command=next(commands))
        version = (await engine.execute(encounter_id, request, GM)).version
    return encounter_id


async def _loads(client: redis.asyncio.Redis, settings: Settings, outcome: Outcome) -> None:
    store = EventStore(client)
    built: dict[int, str] = {}
    for size in LOAD_SIZES:
        started = time.perf_counter()
        built[size] = await build(Engine(store), size)
        progress(f"(b) built a {size:,}-event stream in {time.perf_counter() - started:.1f}s")

    async def cold_load(encounter_id: str) -> float:
        engine = Engine(store)  # a fresh engine: its cache is cold
        start = time.perf_counter()
        await engine.load(encounter_id)
        return time.perf_counter() - start

    facts: dict[int, str] = {}
    for size, encounter_id in built.items():
        head = await store.head(encounter_id)
        snapshot = await store.load_snapshot(encounter_id)
        assert head is not None
        facts[size] = f"{head.version:,} events; " + (
            f"snapshot at v{snapshot[0]:,} ({len(snapshot[1]) / 1024:.0f} KiB)"
            if snapshot
            else "no snapshot"
        )
        for _ in range(3):  # warm-up
            await cold_load(encounter_id)

    times: dict[int, list[float]] = {size: [] for size in LOAD_SIZES}
    for _ in range(settings.load_reps):
        for size, encounter_id in built.items():
            times[size].append(await cold_load(encounter_id))
    with_snapshot = {size: median(t) for size, t in times.items()}

    # The same loads with the snapshot key gone: a full replay of the stream.
    without: dict[int, float] = {}
    same_state: dict[int, bool] = {}
    for size, encounter_id in built.items():
        snap_key = encounter_keys(encounter_id).snap
        saved = await client.get(snap_key)
        if saved is None:
            continue
        from_snapshot = await Engine(store).load(encounter_id)
        await client.delete(snap_key)
        try:
            runs = max(3, settings.load_reps // (5 if size > 1_000 else 2))
            without[size] = median([await cold_load(encounter_id) for _ in range(runs)])
            same_state[size] = (await Engine(store).load(encounter_id)).state == from_snapshot.state
        finally:
            await client.set(snap_key, saved)

    # Median over repetitions of (large load / small load of the same repetition).
    pairs = zip(times[LOAD_SIZES[-1]], times[LOAD_SIZES[0]], strict=True)
    ratio = median([large / small for large, small in pairs])
    for size in LOAD_SIZES:
        row = Row(f"(b) cold load, {size:,} events", ms(with_snapshot[size]), notes=facts[size])
        if size == LOAD_SIZES[-1]:
            row.measured += f" = {ratio:.2f}x the {LOAD_SIZES[0]}-event load"
            row.target = f"≤ {LOAD_TARGET}x the {LOAD_SIZES[0]}-event load"
            row.result = verdict(ratio <= LOAD_TARGET)
        outcome.rows.append(row)
    for size, seconds in without.items():
        head = await store.head(built[size])
        count = head.version if head else size
        outcome.rows.append(
            Row(
                f"(b) cold load, {size:,} events, snapshot deleted",
                f"{ms(seconds)} = {seconds / with_snapshot[size]:,.0f}x the load with it",
                notes=f"full replay, {count / seconds:,.0f} events/s; state "
                + ("identical to" if same_state[size] else "DIFFERS from")
                + " the snapshot's",
            )
        )
    if settings.profile:
        for size in (LOAD_SIZES[0], LOAD_SIZES[-1]):
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(50):
                await Engine(store).load(built[size])
            profile.disable()
            outcome.profiles.append((f"50 cold loads of the {size:,}-event stream", profile))


# --- (c) the fold ------------------------------------------------------------------------


def _fold(settings: Settings, outcome: Outcome) -> None:
    started = time.perf_counter()
    envelopes = workload.harness_stream(FOLD_EVENTS)
    count = len(envelopes)
    progress(f"(c) fold: decided {count:,} events in {time.perf_counter() - started:.1f}s")
    bodies = [e.body() for e in envelopes]
    created = EncounterCreated.model_validate(envelopes[0].data)
    events = [RULESET.event_from(e.type, e.schema, e.data) for e in envelopes[1:]]
    expected = replay(RULESET, envelopes)

    def evolve_only() -> Any:
        state = RULESET.initial_state(created)
        for event in events:
            state = RULESET.evolve(state, event)
        return state

    def parse_only() -> Any:
        return [RULESET.event_from(e.type, e.schema, e.data) for e in envelopes[1:]]

    def from_bodies() -> Any:
        return replay(RULESET, [Envelope.from_body(body) for body in bodies])

    variants: dict[str, Callable[[], Any]] = {
        "replay": lambda: replay(RULESET, envelopes),
        "bodies": from_bodies,
        "evolve": evolve_only,
        "parse": parse_only,
    }
    for name in ("replay", "bodies", "evolve"):  # the variants that fold agree
        if variants[name]() != expected:
            raise RuntimeError(f"the {name} fold does not reach the replayed state")
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(settings.fold_reps):
        for name, fn in variants.items():
            seconds[name].append(timed(fn))
    per_s = {name: count / median(s) for name, s in seconds.items()}
    folded = per_s["replay"]
    outcome.rows += [
        Row(
            "(c) fold: replay() over envelopes (parse + evolve)",
            rate(folded, "events/s"),
            f"≥ {FOLD_TARGET:,} events/s",
            verdict(folded >= FOLD_TARGET),
            f"{count:,}-event skirmish, {1e6 / folded:.1f} µs/event",
        ),
        Row(
            "(c) fold from stored bodies (orjson + envelope + parse + evolve)",
            rate(per_s["bodies"], "events/s"),
            notes=f"{1e6 / per_s['bodies']:.1f} µs/event",
        ),
        Row(
            "(c) evolve alone (already-parsed event models)",
            rate(per_s["evolve"], "events/s"),
            notes=f"{1e6 / per_s['evolve']:.1f} µs/event",
        ),
        Row(
            "(c) parse alone (event_from: envelope data to event model)",
            rate(per_s["parse"], "events/s"),
            notes=f"{1e6 / per_s['parse']:.1f} µs/event",
        ),
    ]
    if settings.profile:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(3):
            replay(RULESET, envelopes)
        profile.disable()
        outcome.profiles.append((f"3 replays of the {count:,}-event skirmish", profile))

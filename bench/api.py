"""The API benchmarks: commands through REST and GraphQL against minimal baselines, and SSE
fan-out.

Targets (the API issue, item 11):
  REST commands/s >= 40% of (a), a minimal Starlette endpoint that parses the body and
  does one XADD (>= 50% at 16 clients: "One shape for the code", item 8); GraphQL
  commands/s >= 60% of (b), a minimal strawberry mutation (parser and validation caches
  on) that does one XADD; p99 <= 25 ms at 16 clients; fan-out to 200
  subscribers on one encounter with p99 <= 100 ms from the command's response to each
  subscriber's receipt.

Everything runs as real processes on loopback: a private redis-server, `fray serve` (one
uvicorn worker) and the baselines of bench/baselines.py served the same way, each on a
free port. The load generator is wrk (C, two threads (one per core), a Lua script giving
each connection its own encounter and token); it must be installed (`apt-get install
wrk`). Configurations are interleaved, each run lasts `seconds`, and the figures are
medians over repetitions; ratios are taken against the baseline at the same concurrency
in the same repetition.

Commands on one encounter serialize (the engine holds a per-encounter lock), so every
concurrency is measured twice: clients spread over as many encounters (one each, the
targets) and all clients on one encounter (context).
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import marshal
import os
import re
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
import orjson
import redis

from bench.core import Outcome
from bench.report import Row, median, progress, rate, verdict
from service.domain.ids import stream_id
from service.embedded_redis import RedisServer, free_port
from service.store.keys import events_key

REST_TARGET = 0.40  # Fray REST commands/s / baseline (a)
REST_TARGET_AT_16 = 0.50  # the same at 16 clients ("One shape for the code", item 8)
GRAPHQL_TARGET = 0.60  # Fray GraphQL commands/s / baseline (b)
P99_TARGET = 0.025  # seconds, at 16 clients
P99_CLIENTS = 16
FANOUT_TARGET = 0.100  # seconds, p99 from the command's response to each receipt
ROOT = Path(__file__).resolve().parent.parent
NOTE = "bench note: the ogre roars and the torches gutter"
TENANT = "bench"  # the API key's tenant: its encounters live under stream_id(TENANT, id)

FRAY_SUBMIT = (
    "mutation Submit($encounterId: String!, $command: CommandInput!) {"
    " submitCommand(encounterId: $encounterId, command: $command) {"
    " __typename ... on CommandAccepted { commandId version events { version type } }"
    " ... on CommandRejected { code message } } }"
)
BASE_SUBMIT = (
    "mutation Submit($encounterId: String!, $command: CommandInput!) {"
    " submitCommand(encounterId: $encounterId, command: $command) { entryId } }"
)


@dataclass
class Settings:
    seconds: float = 2.0  # one wrk run (whole seconds)
    reps: int = 2  # interleaved repetitions of every configuration
    clients: tuple[int, ...] = (1, 16, 64)
    subscribers: int = 200
    fanout_commands: int = 30
    fanout_interval: float = 0.2  # seconds between fan-out commands
    profile: bool = False

    @classmethod
    def quick(cls, profile: bool = False) -> Settings:
        return cls(seconds=1.0, reps=1, fanout_commands=10, profile=profile)


# --- processes -----------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen[bytes]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _environment(redis_url: str, key: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        FRAY_REDIS_URL=redis_url,
        FRAY_QUEUE_REDIS_URL=redis_url,
        BENCH_REDIS_URL=redis_url,
        FRAY_API_KEYS=f"{TENANT}:{key}",
        FRAY_TOKEN_SECRET=secrets.token_hex(32),
        FRAY_RATE_LIMIT="1000000000",  # counted in Redis as usual, never reached
        PYTHONPATH=str(ROOT),
    )
    return env


def _fray_command() -> list[str]:
    fray = Path(sys.executable).parent / "fray"
    if fray.exists():
        return [str(fray)]
    return [sys.executable, "-c", "import sys; from service.cli import main; sys.exit(main())"]


def _start(name: str, argv: list[str], port: int, env: dict[str, str]) -> Server:
    process = subprocess.Popen(
        argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    server = Server(name, port, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}: {' '.join(argv)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{server.base}/healthz", timeout=1).status_code == 200:
                return server
        time.sleep(0.05)
    server.stop()
    raise RuntimeError(f"{name} did not answer on port {port}")


def start_fray(env: dict[str, str]) -> Server:
    port = free_port()
    return _start("fray", [*_fray_command(), "serve", "--port", str(port)], port, env)


def start_baseline(factory: str, env: dict[str, str]) -> Server:
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", f"bench.baselines:{factory}", "--factory"]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "info"]
    return _start(factory, argv, port, env)


# wrk's threads: one per core, as wrk is meant to run; a thread per connection (16 or 64
# threads on two cores) made the scheduler's queueing the larger part of every p99.
WRK_THREADS = 2

# --- wrk -----------------------------------------------------------------------------------

_LUA = """
local conns = {
%s
}
local threads = %d
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("first", counter)
end
-- Each thread sends, in turn, for the connections (encounters and tokens) first,
-- first + threads, ...: N clients over N encounters with fewer threads than clients.
function init(args)
  reqs = {}
  local i = ((first - 1) %% #conns) + 1
  repeat
    local c = conns[i]
    reqs[#reqs + 1] = wrk.format("POST", c[1], {["Content-Type"] = "application/json",
                                 ["Authorization"] = "Bearer " .. c[2]}, c[3])
    i = i + threads
  until i > #conns
  nxt = 0
end
function request()
  nxt = (nxt %% #reqs) + 1
  return reqs[nxt]
end
function done(summary, latency, requests)
  io.write(string.format("WRKRESULT %%d %%d %%d %%d %%d %%d %%d %%d %%d\\n",
    summary.duration, summary.requests, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def _lua_string(text: str) -> str:
    level = "=" * 4
    assert f"]{level}]" not in text
    return f"[{level}[{text}]{level}]"


@dataclass(frozen=True)
class Conn:
    """What one wrk connection sends, again and again."""

    path: str
    auth: str
    body: bytes


def write_script(conns: Sequence[Conn], directory: str, name: str) -> str:
    lines = ",\n".join(
        f"  {{{_lua_string(c.path)}, {_lua_string(c.auth)}, {_lua_string(c.body.decode())}}}"
        for c in conns
    )
    path = os.path.join(directory, f"{name}.lua")
    Path(path).write_text(_LUA % (lines, WRK_THREADS))
    return path


@dataclass
class Measured:
    rate: float  # successful requests per second
    p50: float  # seconds
    p99: float
    errors: int
    server_cpu_us: float  # per request
    client_cpu_us: float  # wrk, per request
    redis_cpu_us: float  # per request
    appended: int = -1  # events the run added to Fray's streams (-1: not counted)
    requests: int = 0


class CpuInfo(Protocol):
    """Whatever answers INFO cpu: a Redis client, or a stand-in where no one Redis is
    measured (bench/cluster.py)."""

    def info(self, section: str) -> Any: ...


def run_wrk(server: Server, script: str, clients: int, seconds: float, rds: CpuInfo) -> Measured:
    length = f"-d{max(1, round(seconds))}s"  # wrk takes whole seconds
    threads = min(clients, WRK_THREADS)
    argv = ["wrk", f"-t{threads}", f"-c{clients}", length, "--timeout", "10s"]
    argv += ["-s", script, server.base]
    before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    before_server = server.cpu_seconds()
    before_redis = _redis_cpu(rds)
    out = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu = server.cpu_seconds() - before_server
    redis_cpu = _redis_cpu(rds) - before_redis
    client_cpu = (after_children.ru_utime - before_children.ru_utime) + (
        after_children.ru_stime - before_children.ru_stime
    )
    match = re.search(r"WRKRESULT ([\d ]+)", out)
    if match is None:
        raise RuntimeError(f"wrk gave no result:\n{out}")
    numbers = [int(v) for v in match.group(1).split()]
    duration, requests, errors = numbers[0], numbers[1], numbers[2:7]
    p50, p99 = numbers[7], numbers[8]
    failed = sum(errors)
    done = max(requests - failed, 1)
    return Measured(
        rate=(requests - failed) / (duration / 1e6),
        p50=p50 / 1e6,
        p99=p99 / 1e6,
        errors=failed,
        server_cpu_us=server_cpu / done * 1e6,
        client_cpu_us=client_cpu / done * 1e6,
        redis_cpu_us=redis_cpu / done * 1e6,
        requests=requests,
    )


def _redis_cpu(rds: CpuInfo) -> float:
    info: dict[str, Any] = rds.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


# --- the configurations --------------------------------------------------------------------


@dataclass
class Config:
    name: str
    server: Server
    conns: list[Conn]
    streams: list[str] = field(default_factory=list)  # Fray streams to count appends in
    script: str = ""


def _rest_body() -> bytes:
    return orjson.dumps({"command": {"type": "add-note", "text": NOTE}})


def _fray_gql_body(encounter_id: str) -> bytes:
    variables = {"encounterId": encounter_id, "command": {"freeform": {"addNote": {"text": NOTE}}}}
    return orjson.dumps({"query": FRAY_SUBMIT, "variables": variables})


def _base_gql_body(encounter_id: str) -> bytes:
    variables = {"encounterId": encounter_id, "command": {"addNote": {"text": NOTE}}}
    return orjson.dumps({"query": BASE_SUBMIT, "variables": variables})


def create_encounters(fray: Server, key: str, count: int, prefix: str) -> list[tuple[str, str]]:
    """`count` freeform encounters: (encounter id, GM token) each."""
    made = []
    with httpx.Client(base_url=fray.base, headers={"Authorization": f"Bearer {key}"}) as http:
        for n in range(count):
            encounter_id = f"{prefix}-{n}"
            answer = http.post(
                "/v1/encounters",
                json={"ruleset": "freeform", "encounter_id": encounter_id, "title": "bench"},
            )
            answer.raise_for_status()
            made.append((encounter_id, answer.json()["gm_token"]))
    return made


def check(config: Config) -> None:
    """One request per connection, each answered as a success (GraphQL: accepted). It
    also loads every encounter and credential before timing: see `warm_up`."""
    for conn in config.conns:
        answer = httpx.post(
            config.server.base + conn.path,
            content=conn.body,
            headers={"Authorization": f"Bearer {conn.auth}", "Content-Type": "application/json"},
        )
        text = answer.text
        if answer.status_code >= 300 or '"errors"' in text or "CommandRejected" in text:
            raise RuntimeError(f"{config.name}: {answer.status_code} {text[:500]}")


def warm_up(configs: Sequence[Config], clients: int, rds: redis.Redis) -> None:
    """One untimed second of each configuration at `clients`. A fresh process's first
    second of concurrent load had a p99 two to five times its later ones (measured with 16
    clients: 30-54 ms, against 10-16 ms from the second run on; 22-23 ms when each
    encounter had already had a command), for baselines and Fray alike: the first
    commands load each encounter, and the first burst warms the process."""
    for config in configs:
        progress(f"warm-up: {config.name}, {clients} clients")
        run_wrk(config.server, config.script, clients, 1.0, rds)


# --- fan-out -------------------------------------------------------------------------------

_ID = re.compile(rb"(?:^|\n)id: (\d+)\r?\n")


@dataclass
class FanOut:
    latencies: list[float]  # seconds, one per (command, subscriber)
    missing: int  # receipts that never came
    commands: int
    subscribers: int
    client_cpu_us: float  # this process, per (command, subscriber) delivery
    server_cpu_us: float  # fray, per delivery
    complete: int = 0  # subscribers that received every measured command's event


async def _subscriber(
    port: int, path: str, token: str, receipts: dict[int, float], ready: asyncio.Event
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    )
    writer.write(request.encode())
    tail = b""
    try:
        while True:
            chunk = await reader.read(65536)
            now = time.perf_counter()
            if not chunk:
                return
            ready.set()
            buffer = tail + chunk
            for match in _ID.finditer(buffer):
                receipts.setdefault(int(match.group(1)), now)
            tail = buffer[-64:]
    finally:
        writer.close()


async def fan_out(fray: Server, encounter_id: str, token: str, settings: Settings) -> FanOut:
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=fray.base, headers=auth, timeout=30) as http:
        path = f"/v1/encounters/{encounter_id}/commands"

        async def command() -> tuple[int, float]:
            answer = await http.post(path, json={"command": {"type": "add-note", "text": NOTE}})
            done = time.perf_counter()
            answer.raise_for_status()
            version: int = answer.json()["version"]
            return version, done

        version, _ = await command()
        receipts: list[dict[int, float]] = [{} for _ in range(settings.subscribers)]
        events = f"/v1/encounters/{encounter_id}/events?follow=true&after={version}"
        readies = [asyncio.Event() for _ in receipts]
        tasks = [
            asyncio.create_task(_subscriber(fray.port, events, token, r, ready))
            for r, ready in zip(receipts, readies, strict=True)
        ]
        try:
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 30)
            # Every subscriber has its stream open; one command to see they all receive.
            warm, _ = await command()
            deadline = time.monotonic() + 30
            while any(warm not in r for r in receipts) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            cpu, server_cpu = time.process_time(), fray.cpu_seconds()
            sent: dict[int, float] = {}
            for _ in range(settings.fanout_commands):
                version, done = await command()
                sent[version] = done
                await asyncio.sleep(settings.fanout_interval)
            last = max(sent)
            deadline = time.monotonic() + 5
            while any(last not in r for r in receipts) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            cpu, server_cpu = time.process_time() - cpu, fray.cpu_seconds() - server_cpu
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    latencies = [max(r[v] - t, 0.0) for v, t in sent.items() for r in receipts if v in r]
    deliveries = max(len(latencies), 1)
    return FanOut(
        latencies=latencies,
        missing=len(sent) * len(receipts) - len(latencies),
        commands=len(sent),
        subscribers=len(receipts),
        client_cpu_us=cpu / deliveries * 1e6,
        server_cpu_us=server_cpu / deliveries * 1e6,
        complete=sum(all(v in r for v in sent) for r in receipts),
    )


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# --- profiling -----------------------------------------------------------------------------


class LoadedProfile(cProfile.Profile):
    """A profile dumped by another process, in the shape `pstats.Stats` accepts."""

    def __init__(self, path: str) -> None:
        super().__init__()
        with open(path, "rb") as file:  # now: the file's directory goes away
            self._loaded = marshal.load(file)

    def create_stats(self) -> None:
        self.stats = self._loaded


def _profile_serve(out: str, port: int) -> None:
    """`python -m bench.api profile-serve OUT PORT`: Fray's app on uvicorn under cProfile,
    configured as `fray serve` configures it, until SIGINT."""
    import uvicorn

    from service.cli import _log_config

    config = uvicorn.Config(
        "service.api.server:create_app",
        factory=True,
        host="127.0.0.1",
        port=port,
        log_level="info",
        log_config=_log_config(),
    )
    config.load()  # imports outside the profile
    profile = cProfile.Profile()
    # SIGUSR1 starts the profile: after start-up and the warm-up requests.
    signal.signal(signal.SIGUSR1, lambda signum, frame: profile.enable())
    try:
        uvicorn.Server(config).run()
    finally:
        profile.disable()
        profile.dump_stats(out)


def _profiled(
    kind: str, config: Config, env: dict[str, str], directory: str, settings: Settings
) -> tuple[str, cProfile.Profile]:
    port = free_port()
    out = os.path.join(directory, f"{kind}.prof")
    argv = [sys.executable, "-m", "bench.api", "profile-serve", out, str(port)]
    server = _start(f"fray ({kind}, profiled)", argv, port, env)
    try:
        target = Config(config.name, server, config.conns, script=config.script)
        for _ in range(20):
            check(target)
        server.process.send_signal(signal.SIGUSR1)
        clients = min(P99_CLIENTS, len(config.conns))
        measured = run_wrk(server, target.script, clients, max(settings.seconds, 3.0), _NULL)
    finally:
        server.stop()
    keep = os.environ.get("BENCH_PROFILE_DIR")
    if keep:  # for pstats beyond the table's hot spots
        shutil.copy(out, os.path.join(keep, f"{kind.lower()}.prof"))
    title = (
        f"fray serve under cProfile, {kind} commands, {clients} clients over {clients} "
        f"encounters ({measured.rate:,.0f} commands/s with the profiler on)"
    )
    return title, LoadedProfile(out)


class _NoRedis:
    def info(self, section: str) -> dict[str, Any]:
        return {"used_cpu_user": 0, "used_cpu_sys": 0}


_NULL: Any = _NoRedis()


# --- the suite -----------------------------------------------------------------------------


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    if shutil.which("wrk") is None:
        progress("api: wrk is not installed (apt-get install wrk); skipping the suite")
        outcome.rows.append(
            Row("API benchmarks", "not run", "—", "**not run**", "wrk is not installed")
        )
        return outcome
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split()
    redis_server = RedisServer().start()
    servers: list[Server] = []
    try:
        version = redis_server.version()
        progress(f"redis-server {version} on {redis_server.url}")
        outcome.environment.append(f"redis-server {version} ({redis_server.binary})")
        outcome.environment.append(f"load generator wrk {wrk_version[1] if wrk_version else ''}")
        key = secrets.token_urlsafe(18)
        env = _environment(redis_server.url, key)
        fray = start_fray(env)
        servers.append(fray)
        base_a = start_baseline("rest_app", env)
        servers.append(base_a)
        base_b = start_baseline("graphql_app", env)
        servers.append(base_b)
        base_b0 = start_baseline("graphql_nocache_app", env)
        servers.append(base_b0)
        with tempfile.TemporaryDirectory(prefix="fray-bench-api-") as directory:
            _suite(settings, outcome, fray, base_a, base_b, base_b0, key, directory, env)
    finally:
        for server in servers:
            server.stop()
        redis_server.close()
    return outcome


def _suite(
    settings: Settings,
    outcome: Outcome,
    fray: Server,
    base_a: Server,
    base_b: Server,
    base_b0: Server,
    key: str,
    directory: str,
    env: dict[str, str],
) -> None:
    most = max(settings.clients)
    progress(f"creating {most + 2} encounters")
    spread = create_encounters(fray, key, most, "spread")
    (one, one_token), (fan_id, fan_token) = create_encounters(fray, key, 2, "one")
    cmd = "/v1/encounters/{}/commands"

    def configs(clients: int) -> list[Config]:
        ours = spread[:clients]
        made = [
            Config("a", base_a, [Conn(cmd.format(e), t, _rest_body()) for e, t in ours]),
            Config(
                "rest spread",
                fray,
                [Conn(cmd.format(e), t, _rest_body()) for e, t in ours],
                [streams_key(e) for e, _ in ours],
            ),
            Config(
                "rest one",
                fray,
                [Conn(cmd.format(one), one_token, _rest_body())],
                [streams_key(one)],
            ),
            Config("b", base_b, [Conn("/graphql", t, _base_gql_body(e)) for e, t in ours]),
            Config(
                "graphql spread",
                fray,
                [Conn("/graphql", t, _fray_gql_body(e)) for e, t in ours],
                [streams_key(e) for e, _ in ours],
            ),
            Config(
                "graphql one",
                fray,
                [Conn("/graphql", one_token, _fray_gql_body(one))],
                [streams_key(one)],
            ),
        ]
        if clients == P99_CLIENTS:
            made.append(
                Config("b0", base_b0, [Conn("/graphql", t, _base_gql_body(e)) for e, t in ours])
            )
        for config in made:
            config.script = write_script(
                config.conns, directory, f"{config.name.replace(' ', '-')}-{clients}"
            )
        return made

    grid = {clients: configs(clients) for clients in settings.clients}
    for made in grid.values():
        for config in made:
            check(config)
    results: dict[tuple[int, str], list[Measured]] = {}
    rds = redis.Redis.from_url(_redis_url(env))
    try:
        warm_up(grid[most], most, rds)
        for rep in range(settings.reps):
            order = list(grid.items())
            for clients, made in order if rep % 2 == 0 else order[::-1]:
                for config in made if rep % 2 == 0 else made[::-1]:
                    progress(f"rep {rep + 1}/{settings.reps}: {config.name}, {clients} clients")
                    before = _appended(rds, config.streams)
                    measured = run_wrk(config.server, config.script, clients, settings.seconds, rds)
                    if config.streams:
                        measured.appended = _appended(rds, config.streams) - before
                    results.setdefault((clients, config.name), []).append(measured)
        progress(f"fan-out: {settings.subscribers} SSE subscribers on one encounter")
        fan = asyncio.run(fan_out(fray, fan_id, fan_token, settings))
    finally:
        rds.close()
    _rows(settings, outcome, results, fan)
    if settings.profile:
        for kind, name in (("REST", "rest spread"), ("GraphQL", "graphql spread")):
            progress(f"profiling fray serve: {kind}")
            config = next(c for c in grid[P99_CLIENTS] if c.name == name)
            outcome.profiles.append(_profiled(kind, config, env, directory, settings))


def _redis_url(env: dict[str, str]) -> str:
    return env["FRAY_REDIS_URL"]


def streams_key(encounter_id: str) -> str:
    """The events key of the bench tenant's encounter (ids are per tenant in the store)."""
    return events_key(stream_id(TENANT, encounter_id))


def _appended(rds: redis.Redis, streams: Sequence[str]) -> int:
    if not streams:
        return 0
    pipe = rds.pipeline(transaction=False)
    for stream in streams:
        pipe.xlen(stream)
    return sum(int(n) for n in pipe.execute())


def _median(runs: Sequence[Measured]) -> Measured:
    return Measured(
        rate=median([r.rate for r in runs]),
        p50=median([r.p50 for r in runs]),
        p99=median([r.p99 for r in runs]),
        errors=sum(r.errors for r in runs),
        server_cpu_us=median([r.server_cpu_us for r in runs]),
        client_cpu_us=median([r.client_cpu_us for r in runs]),
        redis_cpu_us=median([r.redis_cpu_us for r in runs]),
        appended=sum(r.appended for r in runs) if all(r.appended >= 0 for r in runs) else -1,
        requests=sum(r.requests for r in runs),
    )


def _latency(m: Measured) -> str:
    return f"p50 {m.p50 * 1000:.1f} ms, p99 {m.p99 * 1000:.1f} ms"


def _cpu(m: Measured) -> str:
    text = (
        f"CPU per request: server {m.server_cpu_us:,.0f} µs, wrk {m.client_cpu_us:,.0f} µs, "
        f"redis {m.redis_cpu_us:,.0f} µs"
    )
    if m.errors:
        text += f"; **{m.errors} errors**"
    if m.appended >= 0 and m.appended < m.requests - m.errors:
        text += f"; **only {m.appended:,} events appended for {m.requests - m.errors:,} answers**"
    if m.requests == m.errors:
        text += "; **no request completed within the run**"
    return text


def _clients(n: int) -> str:
    return f"{n} client{'s' if n != 1 else ''}"


def _rows(
    settings: Settings,
    outcome: Outcome,
    results: dict[tuple[int, str], list[Measured]],
    fan: FanOut,
) -> None:
    def ratio(clients: int, name: str, baseline: str) -> float:
        pairs = zip(results[(clients, name)], results[(clients, baseline)], strict=True)
        return median([ours.rate / max(theirs.rate, 1e-9) for ours, theirs in pairs])

    rows = outcome.rows
    for api, baseline, label, target in (
        ("rest", "a", "(a) minimal Starlette + XADD", REST_TARGET),
        ("graphql", "b", "(b) minimal strawberry mutation + XADD, caches on", GRAPHQL_TARGET),
    ):
        title = "REST" if api == "rest" else "GraphQL"
        for clients in settings.clients:
            base = _median(results[(clients, baseline)])
            rows.append(
                Row(
                    f"{label}, {_clients(clients)}",
                    f"{rate(base.rate, 'req/s')}; {_latency(base)}",
                    notes=_cpu(base),
                )
            )
            if baseline == "b" and (clients, "b0") in results:
                b0 = _median(results[(clients, "b0")])
                rows.append(
                    Row(
                        f"(b) without parser/validation caches, {_clients(clients)}",
                        f"{rate(b0.rate, 'req/s')} = {ratio(clients, 'b0', 'b'):.0%} of (b); "
                        + _latency(b0),
                        notes=_cpu(b0),
                    )
                )
            spread = _median(results[(clients, f"{api} spread")])
            share = ratio(clients, f"{api} spread", baseline)
            needed = REST_TARGET_AT_16 if api == "rest" and clients == P99_CLIENTS else target
            rows.append(
                Row(
                    f"Fray {title} add-note, {_clients(clients)} over {clients} encounter"
                    + ("s" if clients != 1 else ""),
                    f"{rate(spread.rate, 'commands/s')} = {share:.0%} of ({baseline}); "
                    + _latency(spread),
                    f"≥ {needed:.0%} of ({baseline})",
                    verdict(share >= needed),
                    _cpu(spread),
                )
            )
            if clients == P99_CLIENTS:
                rows.append(
                    Row(
                        f"Fray {title} p99 latency, {clients} clients over {clients} encounters",
                        f"{spread.p99 * 1000:.1f} ms",
                        f"≤ {P99_TARGET * 1000:.0f} ms",
                        verdict(spread.p99 <= P99_TARGET),
                    )
                )
            if clients > 1:
                single = _median(results[(clients, f"{api} one")])
                rows.append(
                    Row(
                        f"Fray {title} add-note, {_clients(clients)} on one encounter",
                        f"{rate(single.rate, 'commands/s')} = "
                        f"{ratio(clients, f'{api} one', baseline):.0%} of ({baseline}); "
                        + _latency(single),
                        notes=_cpu(single),
                    )
                )
    p50, p99 = percentile(fan.latencies, 0.5), percentile(fan.latencies, 0.99)
    rows.append(
        Row(
            f"SSE fan-out: {fan.subscribers} subscribers on one encounter, "
            f"{fan.commands} commands {settings.fanout_interval * 1000:.0f} ms apart",
            f"p99 {p99 * 1000:.1f} ms (p50 {p50 * 1000:.1f} ms, max "
            f"{max(fan.latencies, default=float('nan')) * 1000:.1f} ms) from the command's "
            "response to each subscriber's receipt",
            f"p99 ≤ {FANOUT_TARGET * 1000:.0f} ms",
            verdict(p99 <= FANOUT_TARGET and fan.missing == 0),
            f"{len(fan.latencies):,} receipts, {fan.missing:,} missing "
            f"({fan.complete} of {fan.subscribers} subscribers got every event); "
            "CPU per delivery: "
            f"fray {fan.server_cpu_us:,.0f} µs, client (Python, same machine) "
            f"{fan.client_cpu_us:,.0f} µs",
        )
    )


def _main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "profile-serve":
        _profile_serve(argv[1], int(argv[2]))
        return 0
    print("usage: python -m bench.api profile-serve OUT PORT (run by `python -m bench api`)")
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))

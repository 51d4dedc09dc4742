"""`fray worker` as a real process: deadlines fire through RQ, once, whatever dies."""

from __future__ import annotations

import signal
import time
from typing import Any

import httpx
import orjson
import pytest
import redis

from service.deciding import CommandRequest
from service.domain.context import GM
from service.domain.ids import stream_id
from service.domain.timefmt import parse_iso
from service.embedded_redis import RedisServer, free_port
from service.engine import Engine
from tests.api.conftest import KEY
from tests.api.process import fray_serve_process
from tests.engine_helpers import COMBATANTS, skirmish
from tests.workers.conftest import fray_worker, of_type, stop, wait_until, with_engine
from workers.audits import audit_encounter
from workers.jobs import fire_deadline
from workers.main import warm_up
from workers.webhooks import deliver_webhook

ONE_SECOND_TURNS = {"turn_time_limit": 1, "on_turn_timeout": "record"}


def start_fight(
    store_url: str, encounter_id: str, queue_url: str | None, options: dict[str, Any]
) -> float:
    """A started freeform fight whose turn clock runs; the clock's due time."""

    async def body(engine: Engine) -> float:
        await skirmish(engine, encounter_id, options)
        (deadline,) = await engine.store.pending_deadlines(encounter_id)
        return deadline.due

    return float(with_engine(store_url, queue_url, body))


def jobs_waiting(queue_url: str) -> int:
    """Jobs scheduled or on the queue (one due within `LEAD` goes on the queue at once)."""
    connection = redis.Redis.from_url(queue_url)
    return int(connection.zcard("rq:scheduled:fray-deadlines")) + int(
        connection.llen("rq:queue:fray-deadlines")
    )


def expired(store_url: str, encounter_id: str) -> list[dict[str, Any]]:
    return of_type(store_url, encounter_id, "clock-expired")


def test_a_turn_timer_runs_out_through_the_worker(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    with fray_worker(redis_url, queue_url) as worker:
        due = start_fight(redis_url, encounter_id, queue_url, ONE_SECOND_TURNS)
        (event,) = wait_until(lambda: expired(redis_url, encounter_id))
        time.sleep(3)  # the sweeper's grace and a sweep: nothing fires again
        log = worker.log()
    assert expired(redis_url, encounter_id) == [event]
    assert event["actor"]["id"] == "system" and event["command_id"].startswith("fray-")
    lateness = parse_iso(event["at"]).timestamp() - due
    assert lateness >= 0  # never early
    # One JSON line per job: encounter, deadline, outcome and lateness. Under load the
    # sweeper may also reach the deadline: its job then finds it fired ("duplicate": the
    # same command id) or cleared ("moved"), and only one job fires.
    lines = [orjson.loads(line.split(" fray.workers ", 1)[1])
             for line in log.splitlines() if " fray.workers {" in line]  # fmt: skip
    mine = [x for x in lines if x["encounter_id"] == encounter_id]
    (line,) = [x for x in mine if x["outcome"] == "fired"]
    assert {x["outcome"] for x in mine} <= {"fired", "duplicate", "moved"}
    assert line["key"] == "clock:turn" and line["outcome"] == "fired"
    assert parse_iso(line["due"]).timestamp() == pytest.approx(due, abs=0.001)
    assert line["lateness_s"] == pytest.approx(lateness, abs=0.001)


def test_a_deadline_nobody_scheduled_is_found_in_the_outbox(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    start_fight(redis_url, encounter_id, None, ONE_SECOND_TURNS)
    with fray_worker(redis_url, queue_url):
        wait_until(lambda: expired(redis_url, encounter_id))
        time.sleep(3)
    assert len(expired(redis_url, encounter_id)) == 1


def test_the_api_killed_between_append_and_scheduling_loses_nothing(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    # `fray serve` appends the clock's deadline, but its queue is unreachable, so the job
    # is never scheduled; then the process is killed (SIGKILL). A worker started
    # afterwards finds the deadline in the outbox and fires it.
    dead_queue = f"redis://127.0.0.1:{free_port()}/0"
    key = {"Authorization": f"Bearer {KEY}"}
    with fray_serve_process(redis_url, FRAY_QUEUE_REDIS_URL=dead_queue) as (url, serve):
        body = {"ruleset": "freeform", "encounter_id": encounter_id, "options": ONE_SECOND_TURNS}
        assert httpx.post(f"{url}/v1/encounters", json=body, headers=key).status_code == 201
        commands = [
            *({"type": "add-combatant", **c} for c in COMBATANTS),
            {"type": "roll-initiative"},
            {"type": "start-encounter"},
        ]
        for command in commands:
            answer = httpx.post(
                f"{url}/v1/encounters/{encounter_id}/commands",
                json={"command": command},
                headers=key,
            )
            assert answer.status_code == 201, answer.text
        serve.kill()
        serve.wait(timeout=20)
    stored_as = stream_id("acme", encounter_id)  # KEY's tenant
    assert of_type(redis_url, stored_as, "clock-started")
    assert redis.Redis.from_url(queue_url).keys("rq:job:*") == []  # nothing was scheduled
    with fray_worker(redis_url, queue_url):
        wait_until(lambda: expired(redis_url, stored_as))


def test_two_workers_with_schedulers_fire_each_deadline_once(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    encounters = [f"{encounter_id}-{n}" for n in range(5)]
    with fray_worker(redis_url, queue_url), fray_worker(redis_url, queue_url):
        for other in encounters:
            start_fight(redis_url, other, queue_url, ONE_SECOND_TURNS)
        for other in encounters:
            wait_until(lambda other=other: expired(redis_url, other))
        time.sleep(4)
    assert [len(expired(redis_url, other)) for other in encounters] == [1] * 5


def test_a_worker_killed_mid_job_leaves_the_deadline_to_the_next(
    queue_url: str, encounter_id: str
) -> None:
    # A store of its own: the suite's shared one holds other tests' deadlines, which the
    # sweeper would queue ahead of this one, to block on the pause in its place.
    with RedisServer() as server:
        killed_mid_job(server.url, queue_url, encounter_id)


def killed_mid_job(redis_url: str, queue_url: str, encounter_id: str) -> None:
    store = redis.Redis.from_url(redis_url)
    with fray_worker(redis_url, queue_url) as worker:
        # The worker is up before writes pause, so that only the job meets the pause (a
        # worker started into it, on a loaded machine, could outwait it).
        wait_until(lambda: "Listening on" in worker.log())
        # Three-second turns: the deadline falls due after the pause has begun, however
        # slowly a loaded machine gets there.
        turns = {**ONE_SECOND_TURNS, "turn_time_limit": 3}
        due = start_fight(redis_url, encounter_id, queue_url, turns)
        # Writes to the event store hang while paused: the firing reads the outbox, then
        # blocks on its lease or append, and the worker is killed there. The firing runs in
        # the job, or in the worker's timer when RQ's scheduler hands the job over a moment
        # before it is due (the job then ends at once): either way within a second of the
        # job's start, and the kill comes two seconds after it.
        store.execute_command("CLIENT", "PAUSE", 20_000, "WRITE")
        try:
            wait_until(lambda: f"deadline clock:turn of {encounter_id}" in worker.log())
            time.sleep(2)
            assert expired(redis_url, encounter_id) == []  # reads go on while writes wait
            stop(worker.process, signal.SIGKILL)
        finally:
            store.execute_command("CLIENT", "UNPAUSE")
    assert expired(redis_url, encounter_id) == []
    with fray_worker(redis_url, queue_url):
        wait_until(lambda: expired(redis_url, encounter_id))
        time.sleep(3)
    assert len(expired(redis_url, encounter_id)) == 1
    assert parse_iso(expired(redis_url, encounter_id)[0]["at"]).timestamp() >= due


def test_pending_deadlines_survive_a_redis_restart(encounter_id: str) -> None:
    # One Redis for events and jobs, the default deployment, with persistence on; killed
    # (SIGKILL) after the deadline was appended and scheduled, then started again.
    with RedisServer(appendonly=True) as server:
        due = start_fight(server.url, encounter_id, server.url, ONE_SECOND_TURNS)
        assert jobs_waiting(server.url) == 1
        server.restart(hard=True)
        assert jobs_waiting(server.url) == 1
        with fray_worker(server.url, server.url):
            (event,) = wait_until(lambda: expired(server.url, encounter_id))
        assert parse_iso(event["at"]).timestamp() >= due


def test_a_table_break_pauses_every_clock_and_resuming_restarts_the_rest(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    options = {"turn_time_limit": 2, "on_turn_timeout": "record"}

    async def pause(engine: Engine) -> list[Any]:
        await engine.execute(encounter_id, CommandRequest(command={"type": "pause-clocks"}), GM)
        return await engine.store.pending_deadlines(encounter_id)

    async def resume(engine: Engine) -> float:
        await engine.execute(encounter_id, CommandRequest(command={"type": "resume-clocks"}), GM)
        (deadline,) = await engine.store.pending_deadlines(encounter_id)
        return deadline.due

    with fray_worker(redis_url, queue_url):
        start_fight(redis_url, encounter_id, queue_url, options)
        assert with_engine(redis_url, queue_url, pause) == []  # the break cancels the deadline
        time.sleep(4)  # longer than the clock had left: it does not run out
        assert expired(redis_url, encounter_id) == []
        due = with_engine(redis_url, queue_url, resume)
        (event,) = wait_until(lambda: expired(redis_url, encounter_id))
    assert parse_iso(event["at"]).timestamp() >= due
    (paused,) = of_type(redis_url, encounter_id, "clock-paused")
    assert 0 < paused["data"]["remaining_ms"] <= 2000


def test_a_worker_imports_what_its_jobs_run_before_it_takes_one() -> None:
    """The names the dispatcher gives RQ are the workers' functions, imported at start."""
    assert warm_up() == [fire_deadline, deliver_webhook, audit_encounter]

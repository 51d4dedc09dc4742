"""The job RQ runs at a deadline: one system command through the same pipeline as every
client's, or nothing if the deadline has moved or gone.

Firing twice is harmless: the command id is the deadline's id, so a second firing is the
engine's duplicate (nothing appended), and a firing after the rules have moved on (the
clock restarted, the window already closed) is decided as a no-op by the rules.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

import orjson

from service.config import DEFAULT_REDIS_URL
from service.domain.context import SYSTEM
from service.domain.errors import FrayError
from service.domain.timefmt import iso, parse_iso
from service.engine import CommandRequest, Engine
from service.store.clients import redis_client
from service.store.events import score_text
from service.store.redis_store import EventStore
from workers.dispatch import deadline_id
from workers.metrics import DeadlineMetrics

Fired = Literal["fired", "duplicate", "refused", "moved", "early"]
MAX_EARLY = 5.0  # seconds a job waits for its deadline; RQ starts jobs up to 1 s early

_log = logging.getLogger("fray.workers")


def fire_deadline(encounter_id: str, key: str, due: float) -> str:
    """RQ's entry point: ids and a time in, the outcome's name out (kept as the result)."""
    url = os.environ.get("FRAY_REDIS_URL", DEFAULT_REDIS_URL)
    return asyncio.run(_fire_with(url, encounter_id, key, due))


async def _fire_with(url: str, encounter_id: str, key: str, due: float) -> Fired:
    client = redis_client(url)
    try:
        engine = Engine(EventStore(client))
        return await fire(engine, encounter_id, key, due, metrics=DeadlineMetrics(client))
    finally:
        await client.aclose()


async def fire(
    engine: Engine,
    encounter_id: str,
    key: str,
    due: float,
    clock: Callable[[], float] = time.time,
    metrics: DeadlineMetrics | None = None,
) -> Fired:
    # RQ's scheduler keeps due times in whole seconds (it truncates), so a job can start
    # up to a second before its deadline: wait for it, rather than expire a clock early.
    early = due - clock()
    if early > MAX_EARLY:
        # Only a clock running ahead (another host's) starts a job this early. The deadline
        # stays in the outbox; the sweeper enqueues it once it is overdue.
        _log.warning("deadline %s of %s: job started %.1f s early", key, encounter_id, early)
        return "early"
    if early > 0:
        await asyncio.sleep(early)
    store = engine.store
    pending = {d.key: d for d in await store.pending_deadlines(encounter_id)}
    deadline = pending.get(key)
    command_id = deadline_id(encounter_id, key, due)
    outcome: Fired
    lateness: float | None = None
    if deadline is None or score_text(deadline.due) != score_text(due):
        outcome = "moved"
    else:
        command = orjson.loads(deadline.payload)["command"]
        request = CommandRequest(command_id=command_id, command=command)
        try:
            result = await engine.execute(encounter_id, request, SYSTEM)
            outcome = "duplicate" if result.duplicate else "fired"
            if result.events and not result.duplicate:
                lateness = parse_iso(result.events[0].at).timestamp() - due
        except FrayError as error:
            if error.status >= 500 or error.code == "encounter/busy":
                raise  # passing: RQ retries the job
            # The encounter is gone or the rules refuse (e.g. it ended): nothing to fire.
            _log.warning("deadline %s of %s refused: %s %s", key, encounter_id, error.code, error)
            outcome = "refused"
        # A no-op expiry appends nothing, so nothing cancelled the deadline: clear it here
        # (unless it moved meanwhile), or the sweeper would find it again.
        await store.clear_deadline(encounter_id, key, due)
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
    return outcome

"""Killing the worker mid-delivery loses nothing (issue 28): `fray worker` is SIGKILLed
while a receiver holds a delivery's request open, and a new worker (its sweeper) sends it
again once the dead worker's lease lapses; every event still arrives, in order, the one
in flight twice with the same `delivery_id`. Stopped with SIGTERM instead, the worker
finishes the delivery in flight first, so it is sent once."""

from __future__ import annotations

import signal
import threading
import uuid

from tests.api.process import fray_serve
from tests.e2e.receiver import receiving
from tests.e2e.test_webhooks_e2e import DEV, Service, eventually, verify, versions_of
from tests.workers.conftest import fray_worker, stop


def test_killing_the_worker_mid_delivery_loses_nothing(redis_url: str, queue_url: str) -> None:
    key = f"hooks-{uuid.uuid4().hex[:8]}"
    keys = f"t{uuid.uuid4().hex[:8]}:{key}"
    # The first worker waits long for an answer, so it is surely mid-delivery when killed.
    patient = {**DEV, "FRAY_WEBHOOK_TIMEOUT": "10"}
    with (
        receiving(hang=20.0) as receiver,
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url, FRAY_API_KEYS=keys, **DEV) as url,
    ):
        fray = Service(url, key)
        arrived = threading.Event()
        receiver.on_request = arrived.set
        receiver.fail_first("/gm", "timeout")
        hook = fray.webhook(f"{receiver.url}/gm", view="gm")
        with fray_worker(redis_url, queue_url, **patient) as worker:
            events = fray.fight("killed")
            assert arrived.wait(60), "no delivery reached the receiver"
            stop(worker.process, signal.SIGKILL)
        (in_flight,) = receiver.all("/gm")
        assert in_flight.outcome == "timeout"
        with fray_worker(redis_url, queue_url, **DEV):
            expected = {"killed": [e["version"] for e in events]}
            eventually(lambda: versions_of(receiver.ok("/gm")), lambda found: found == expected)
        first = receiver.ok("/gm")[0]
        assert first.delivery["delivery_id"] == in_flight.delivery["delivery_id"]
        assert all(verify(hook["secret"], r) for r in receiver.all("/gm"))


def test_a_worker_told_to_stop_mid_delivery_finishes_it_and_leaves_the_rest(
    redis_url: str, queue_url: str
) -> None:
    """SIGTERM where SIGKILL was: the delivery in flight is answered and settled before the
    worker exits (0), so it is sent once; what the webhook is still owed goes to the next
    worker, in order."""
    key = f"hooks-{uuid.uuid4().hex[:8]}"
    keys = f"t{uuid.uuid4().hex[:8]}:{key}"
    patient = {**DEV, "FRAY_WEBHOOK_TIMEOUT": "10", "FRAY_SHUTDOWN_GRACE": "20"}
    with (
        receiving(hang=3.0) as receiver,
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url, FRAY_API_KEYS=keys, **DEV) as url,
    ):
        fray = Service(url, key)
        arrived = threading.Event()
        receiver.on_request = arrived.set
        receiver.fail_first("/gm", "timeout")  # answered 200, three seconds late
        hook = fray.webhook(f"{receiver.url}/gm", view="gm")
        with fray_worker(redis_url, queue_url, **patient) as worker:
            events = fray.fight("stopped")
            assert arrived.wait(60), "no delivery reached the receiver"
            worker.process.send_signal(signal.SIGTERM)
            assert worker.process.wait(timeout=20) == 0
        # The first delivery was answered (late, but 200) and settled: not sent again.
        (in_flight,) = receiver.all("/gm")
        assert in_flight.outcome == "timeout"
        first, *rest = [e["version"] for e in events]
        assert in_flight.delivery["event"]["version"] == first
        with fray_worker(redis_url, queue_url, **DEV):
            expected = {"stopped": rest}
            eventually(lambda: versions_of(receiver.ok("/gm")), lambda found: found == expected)
        sent = [r.delivery["delivery_id"] for r in receiver.all("/gm")]
        assert sent.count(in_flight.delivery["delivery_id"]) == 1
        assert all(verify(hook["secret"], r) for r in receiver.all("/gm"))

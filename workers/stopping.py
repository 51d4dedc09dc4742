"""`fray worker` told to stop (SIGTERM, SIGINT): it finishes its job, or releases it, and
exits within the grace period (FRAY_SHUTDOWN_GRACE).

RQ's own warm shutdown (the first SIGTERM or SIGINT) takes no new job, lets the one under
way finish, and returns from `work()`; a second signal is its cold shutdown, at once. But
a Fray job may leave work in this process's event loop when it returns, which RQ knows
nothing of: a firing armed a few seconds before its deadline, a webhook run. So, on top:

- the runner is told it is stopping: a webhook run hands what its pair is still owed to a
  job of its own, for another worker, at its next delivery;
- once `work()` returns, the worker waits for the loop's work to end;
- when the grace period (less a second) runs out, whatever still runs, the job included,
  is cancelled: each lease is released on the way out (the `finally` of a firing, an audit,
  a webhook run), the job fails and RQ runs it again (`Retry`) on another worker, and the
  deadline, delivery or audit is still in the outbox for the sweepers. Nothing is lost: it
  is late by a retry.
"""

from __future__ import annotations

import logging
import threading
import time
from types import FrameType
from typing import Any

from rq import SimpleWorker

from service.config import DEFAULT_SHUTDOWN_GRACE, TEARDOWN
from workers.jobs import current_runner

_log = logging.getLogger("fray.workers")


class StoppingWorker(SimpleWorker):
    """RQ's `SimpleWorker`, which also ends (or releases) the work its jobs left in this
    process's loop within `work_time` seconds of the signal (`settle`, after `work()`)."""

    def __init__(self, *args: Any, work_time: float = DEFAULT_SHUTDOWN_GRACE, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.work_time = work_time
        self._stop_by: float | None = None  # monotonic
        self._cold = False

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        if self._stop_by is None:
            self._stop_by = time.monotonic() + self.work_time
            _log.info("told to stop: finishing the work in hand, %.1f s at most", self.work_time)
            runner = current_runner()
            if runner is not None:
                runner.stopping = True
            timer = threading.Timer(self.work_time, self._out_of_time)
            timer.daemon = True
            timer.start()
        # RQ's warm shutdown: raises StopRequested when idle, else lets the job finish.
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    def request_force_stop(self, signum: int, frame: FrameType | None) -> None:
        try:
            super().request_force_stop(signum, frame)  # ignored within 1 s of the first
        except SystemExit:
            self._cold = True
            raise

    def _out_of_time(self) -> None:
        runner = current_runner()
        if runner is not None:
            _log.warning("the grace period ran out: releasing the work in hand")
            runner.cancel_all()

    def settle(self) -> None:
        """After `work()`: wait for the loop's work until the grace period runs out (at
        once after a cold shutdown), then release what is left."""
        runner = current_runner()
        if runner is None:
            return
        runner.stopping = True
        stop_by = self._stop_by or time.monotonic() + self.work_time
        if not self._cold and not runner.wait_idle(0):
            _log.info("waiting for the work in this worker's loop (firings, deliveries)")
        if self._cold or not runner.wait_idle(stop_by - time.monotonic()):
            runner.cancel_all()
            runner.wait_idle(TEARDOWN)

"""Draining: this process was told to stop (SIGTERM, SIGINT) and is finishing what it has.

uvicorn, told to stop, closes its listening sockets (a new connection is refused), closes
each websocket with code 1012 (service restart), lets the requests in flight finish, and
only then runs the app's lifespan shutdown. A response that never finishes by itself, an
SSE stream, it would wait for until `timeout_graceful_shutdown` runs out and then cancel
it, with no word to the client. So the app hears of the signal itself: its lifespan hooks
SIGTERM and SIGINT, marks the process as draining and passes the signal on to the handler
that was there (uvicorn's). Each SSE stream then ends with a retry hint
(`service.api.events`), and `/readyz` answers 503.

The hook is installed from the lifespan because uvicorn installs its own handlers just
before it starts the lifespan, in each of its worker processes (`--workers N`), and puts
back the ones it found when it stops.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from service.domain.errors import FrayError

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_log = logging.getLogger("fray.api")


class ShuttingDown(FrayError):
    """This instance is shutting down: `/readyz` while it drains, and the last frame of each
    SSE stream it ends. Another instance (or this one restarted) serves the same
    encounters: reconnect and resume."""

    code = "server/shutting-down"

    def __init__(self) -> None:
        super().__init__(
            "this instance is shutting down; reconnect (an SSE stream resumes from its "
            "Last-Event-ID) and another instance serves you"
        )


class Draining:
    """Whether this process has begun to shut down. Set from a signal handler, read by the
    streams at each of their idle ticks: a flag is all either needs."""

    def __init__(self) -> None:
        self._began = False

    @property
    def began(self) -> bool:
        return self._began

    def begin(self) -> None:
        if not self._began:
            self._began = True
            _log.info("shutting down: streams end with a retry hint, /readyz answers 503")


@contextmanager
def on_stop_signals(draining: Draining) -> Iterator[None]:
    """While the block runs, SIGTERM and SIGINT begin `draining`, then go on to the
    handler installed before. Outside the main thread (where no signal handler can be
    set) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}

    def handler(sig: int, frame: FrameType | None) -> None:
        draining.begin()
        _pass_on(previous[signal.Signals(sig)], sig, frame)

    for sig in STOP_SIGNALS:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, was in previous.items():
            if signal.getsignal(sig) is handler:  # not replaced since: put back
                signal.signal(sig, was)


def _pass_on(previous: Any, sig: int, frame: FrameType | None) -> None:
    if previous is signal.SIG_IGN:
        return
    if callable(previous):
        handle: Callable[[int, FrameType | None], Any] = previous
        handle(sig, frame)
        return
    # The default action (or a handler set outside Python): take it.
    signal.signal(sig, signal.SIG_DFL)
    signal.raise_signal(sig)

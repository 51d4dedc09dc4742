"""The stop-signal hook of `fray serve`'s lifespan (service.api.draining): a signal marks the
process draining and goes on to the handler that was there (uvicorn's, in a server), which
is put back when the hook ends. (tests/e2e/test_shutdown.py signals real servers.)"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest

from service.api.draining import Draining, on_stop_signals


@pytest.fixture
def received() -> Iterator[list[int]]:
    """SIGTERM's handler while the test runs: it records the signals it is given."""
    seen: list[int] = []

    def record(sig: int, frame: FrameType | None) -> None:
        seen.append(sig)

    before = signal.signal(signal.SIGTERM, record)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_stop_signal_begins_draining_and_reaches_the_handler_before(
    received: list[int],
) -> None:
    draining = Draining()
    with on_stop_signals(draining):
        assert not draining.began
        signal.raise_signal(signal.SIGTERM)
        assert draining.began
    assert received == [signal.SIGTERM]


def test_the_handler_before_is_put_back_when_the_hook_ends(received: list[int]) -> None:
    first, later = Draining(), Draining()
    with on_stop_signals(first):
        pass
    with on_stop_signals(later):
        signal.raise_signal(signal.SIGTERM)
    signal.raise_signal(signal.SIGTERM)
    assert not first.began and later.began
    assert received == [signal.SIGTERM, signal.SIGTERM]

"""A made-up earlier version of a ruleset, and the registry as a Fray of that time had it:
for the tests of version pinning (which version decides a stored encounter)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.rules import registry
from service.rules.freeform.commands import Delay
from service.rules.freeform.state import FreeformState
from service.rules.freeform.v1_0 import FreeformV1_0

EARLIER_VERSION = "0.9.0"


class EarlierFreeform(FreeformV1_0):
    """freeform as it decided at 0.9.0: it had no `delay` (1.0.0 added it)."""

    version = EARLIER_VERSION

    def decide_own(self, state: FreeformState, command: Command, ctx: DecideContext) -> list[Event]:
        if isinstance(command, Delay):
            raise RuleViolation("turn/cannot-delay", "freeform 0.9.0 has no delaying")
        return super().decide_own(state, command, ctx)


EARLIER = EarlierFreeform()


@contextmanager
def before_the_upgrade(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry of a Fray whose newest freeform was 0.9.0; on leaving, the upgrade:
    today's freeform is the newest again and 0.9.0 stays registered (until a test removes
    it with `drop_earlier`)."""
    newest = registry.RULESETS["freeform"]
    monkeypatch.setitem(registry.RULESETS, "freeform", EARLIER)
    monkeypatch.setitem(registry.VERSIONS, ("freeform", EARLIER_VERSION), EARLIER)
    try:
        yield
    finally:
        registry.RULESETS["freeform"] = newest


def drop_earlier() -> None:
    """A Fray that no longer registers freeform 0.9.0."""
    del registry.VERSIONS[("freeform", EARLIER_VERSION)]

"""Folding a stream into state, honouring rewinds.

`rewound(to_version=k)` makes the fold skip what came after k: the state after the rewind
is exactly the state as of version k. Nothing is deleted; events after a rewind continue
from that state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from service.domain.common import EncounterCreated
from service.domain.envelope import Envelope
from service.domain.ruleset import EncounterState, RulesetBase


class StreamError(ValueError):
    """A stream that cannot be folded: it does not start with encounter-created."""


def rewind_targets(envelopes: Iterable[Envelope]) -> set[int]:
    return {int(e.data["to_version"]) for e in envelopes if e.type == "rewound"}


def replay(ruleset: RulesetBase[Any], envelopes: Sequence[Envelope]) -> EncounterState:
    """The state after every envelope, from version 1."""
    if not envelopes or envelopes[0].type != "encounter-created":
        raise StreamError("a stream starts with encounter-created")
    state: EncounterState = ruleset.initial_state(
        EncounterCreated.model_validate(envelopes[0].data)
    )
    return advance(ruleset, state, envelopes[1:], {1: state})


def advance(
    ruleset: RulesetBase[Any],
    state: EncounterState,
    envelopes: Sequence[Envelope],
    saved: dict[int, EncounterState] | None = None,
) -> EncounterState:
    """Apply envelopes to a state; `saved` holds the states that rewinds in them return to."""
    saved = dict(saved or {})
    targets = rewind_targets(envelopes)
    for envelope in envelopes:
        if envelope.type == "rewound":
            state = saved[int(envelope.data["to_version"])]
        else:
            event = ruleset.event_from(envelope.type, envelope.schema, envelope.data)
            state = ruleset.evolve(state, event)
        if envelope.version in targets:
            saved[envelope.version] = state
    return state


def needs_history(envelopes: Sequence[Envelope], from_version: int) -> bool:
    """Whether a tail after `from_version` rewinds to before it (so a snapshot is not enough)."""
    return any(target <= from_version for target in rewind_targets(envelopes))

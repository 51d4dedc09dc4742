"""What a viewer sees of an encounter: shared by REST, SSE, exports and GraphQL."""

from __future__ import annotations

from typing import Any

from service.deciding import Loaded
from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.domain.redaction import sees_everything, unsalted
from service.domain.ruleset import EncounterState, RulesetBase


def redacted_envelope(
    ruleset: RulesetBase[Any], envelope: Envelope, actor: Actor, state: EncounterState
) -> dict[str, Any] | None:
    """The envelope as `actor` may see it, or None when the actor is not told of it: without
    its `salt` when any part of it is hidden (`unsalted`), whatever hid it (the shared
    redaction, or a ruleset's own, as fifty-two's sealed pool)."""
    return unsalted(envelope, ruleset.redact_event(envelope, actor, state))


def redacted_envelopes(
    loaded: Loaded, envelopes: list[Envelope], actor: Actor
) -> list[dict[str, Any]]:
    seen = (redacted_envelope(loaded.ruleset, e, actor, loaded.state) for e in envelopes)
    return [e for e in seen if e is not None]


def encounter_view(loaded: Loaded, actor: Actor, encounter_id: str) -> dict[str, Any]:
    return {
        "encounter_id": encounter_id,
        "ruleset": loaded.ruleset.name,
        "version": loaded.version,
        "summary": loaded.ruleset.summary(loaded.state, actor, loaded.version).model_dump(
            mode="json"
        ),
        "state": loaded.ruleset.redact_state(loaded.state, actor),
        "viewer": actor.to_dict(),
    }


def sees_raw_events(loaded: Loaded, actor: Actor) -> bool:
    """Whether the actor may be sent stored envelopes unredacted (a shortcut, not a rule)."""
    sealed = loaded.ruleset.seed_sealed and loaded.state.table.phase != "ended"
    return sees_everything(actor) and not sealed


def may_see_seed(actor: Actor, ruleset: RulesetBase[Any]) -> bool:
    """The seed before the end: auditors and GMs only (DESIGN.md, audit trail), and nobody
    where the seed orders hidden cards (fifty-two's face-down pool)."""
    return sees_everything(actor) and not ruleset.seed_sealed

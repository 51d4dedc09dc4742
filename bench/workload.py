"""A realistic freeform skirmish: the command mix every core benchmark folds or stores.

Three combatants, initiative rolled, the encounter started; then, round after round, an
attack roll, a hit-point adjustment (damage and healing alternate, so nobody stays down),
a one-round condition, a GM note and two ends of turn. The events it yields are mostly
turn-started/turn-ended, then dice-rolled, resource-adjusted, condition-applied,
note-added, condition-expired and round-started.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from service.domain.envelope import Envelope
from service.rules.freeform import RULESET

COMBATANTS: list[dict[str, Any]] = [
    {"combatant_id": "bramli", "name": "Bramli", "side": "heroes",
     "stats": {"initiative_modifier": 3, "hp": 30}},
    {"combatant_id": "ash", "name": "Ash", "side": "heroes",
     "stats": {"initiative_modifier": 1, "hp": 25}},
    {"combatant_id": "ogre", "name": "Ogre", "side": "monsters",
     "stats": {"initiative_modifier": 0, "hp": 40}},
]  # fmt: skip
IDS = [c["combatant_id"] for c in COMBATANTS]


def setup_commands() -> list[dict[str, Any]]:
    """Combatants, initiative, start: with encounter-created, exactly 10 events."""
    return [
        *({"type": "add-combatant", **c} for c in COMBATANTS),
        {"type": "roll-initiative"},
        {"type": "start-encounter"},
    ]


def play_command(k: int) -> dict[str, Any]:
    """The k-th command of the fight (k = 0, 1, 2, ...)."""
    target = IDS[(k * 2) % len(IDS)]
    step = k % 6
    if step == 0:
        return {
            "type": "roll",
            "combatant_id": IDS[k % len(IDS)],
            "expression": "1d20+5",
            "purpose": f"attack on {target}",
        }
    if step == 1:
        delta = -3 if k % 12 == 1 else 3
        return {
            "type": "adjust-resource",
            "combatant_id": target,
            "delta": delta,
            "reason": "a solid hit" if delta < 0 else "a healing draught",
        }
    if step == 2:
        return {
            "type": "apply-condition",
            "combatant_id": target,
            "condition": "frightened",
            "rounds": 1,
        }
    if step == 3:
        return {
            "type": "add-note",
            "text": f"round note {k}: the ogre roars and the torches gutter",
        }
    return {"type": "end-turn"}


def play_commands() -> Iterator[dict[str, Any]]:
    return (play_command(k) for k in itertools.count())


def harness_stream(min_events: int) -> list[Envelope]:
    """Sealed envelopes of the skirmish, decided without Redis (tests/rules/harness.py)."""
    from tests.rules.harness import Table  # the repository root is on sys.path under -m

    table = Table(RULESET, {})
    for command in setup_commands():
        table.send(command)
    commands = play_commands()
    while len(table.envelopes) < min_events:
        table.send(next(commands))
    return table.envelopes


def sample_body(envelopes: list[Envelope], low: int = 400, high: int = 600) -> Envelope:
    """A representative sealed envelope: a resource-adjusted one of 400-600 bytes."""
    for preferred in ("resource-adjusted", "condition-applied", "note-added"):
        for envelope in envelopes:
            if envelope.type == preferred and low <= len(envelope.body()) <= high:
                return envelope
    return max(envelopes, key=lambda e: len(e.body()))

"""Every legal action carries the JSON Schema of its command's parameters: at every version
of every golden stream, for the GM and for each combatant's player."""

from __future__ import annotations

from pathlib import Path

import jsonschema_rs
import pytest

from service.domain.common import EncounterCreated
from service.domain.context import Actor
from service.domain.schemas import DIALECT
from service.rules.registry import ruleset_at
from tests.fixtures.streams.golden import fixture_files, read_export


def viewers(combatants: list[str]) -> list[Actor]:
    players = [Actor(f"player-{c}", "player", frozenset({c})) for c in combatants]
    return [Actor("gm", "gm"), *players]


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: p.stem)
def test_every_legal_action_says_its_commands_parameters(path: Path) -> None:
    envelopes = read_export(path)
    first = EncounterCreated.model_validate(envelopes[0].data)
    ruleset = ruleset_at(first.ruleset, first.ruleset_version)
    commands = ruleset.json_schemas()["commands"]
    state = ruleset.initial_state(first)
    offered = 0
    for envelope in envelopes[1:]:
        event = ruleset.event_from(envelope.type, envelope.schema, envelope.data)
        state = ruleset.evolve(state, event)
        for viewer in viewers(sorted(state.table.combatants)):
            for action in ruleset.actions(state, viewer):
                schema = action.params_schema
                assert schema is not None and schema["$schema"] == DIALECT
                ref = commands["discriminator"]["mapping"][action.type]
                command = commands["$defs"][ref.removeprefix("#/$defs/")]
                assert set(schema["properties"]) == set(command["properties"]) - {"type"}
                assert set(schema.get("required", [])) == set(command["required"]) - {"type"}
                jsonschema_rs.validator_for(schema)  # a schema a validator reads
                offered += 1
    assert offered

"""Each ruleset's JSON Schemas: served at GET /v1/rulesets/{name}, checked in under
schema/<ruleset>/, true to what the rules accept and record (every command and event of the
golden streams validates), typing the OpenAPI command envelope, and carried by each legal
action for its command's parameters."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from service.api.openapi import build_openapi
from service.cli import main, schema_files
from service.rules.registry import RULESETS
from tests.api.conftest import Api
from tests.fixtures.streams.golden import HERE as STREAMS

pytestmark = pytest.mark.anyio

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def checked_in() -> dict[str, str]:
    return {
        str(path.relative_to(SCHEMA_DIR)): path.read_text()
        for path in sorted(SCHEMA_DIR.glob("*/*.json"))
    }


def test_the_checked_in_json_schemas_are_the_generated_ones() -> None:
    assert checked_in() == schema_files(), "schema/ drifted: run `fray schemas schema/`"


def test_fray_schemas_writes_every_rulesets_four_documents(tmp_path: Path) -> None:
    with redirect_stdout(io.StringIO()):
        assert main(["schemas", str(tmp_path)]) == 0

    written = {
        str(path.relative_to(tmp_path)): path.read_text() for path in tmp_path.glob("*/*.json")
    }
    assert written == schema_files()
    assert sorted(written) == sorted(
        f"{name}/{kind}.json"
        for name in RULESETS
        for kind in ("commands", "events", "options", "stats")
    )


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_the_command_and_event_unions_name_every_type_and_require_it(name: str) -> None:
    ruleset = RULESETS[name]
    schemas = ruleset.json_schemas()
    for kind, models in (("commands", ruleset.command_models), ("events", ruleset.event_models)):
        schema = schemas[kind]
        assert schema["$schema"] == DIALECT
        mapping = schema["discriminator"]["mapping"]
        assert schema["discriminator"]["propertyName"] == "type"
        assert sorted(mapping) == sorted(models), kind
        assert len(schema["oneOf"]) == len(models)
        for ref in mapping.values():
            member = schema["$defs"][ref.removeprefix("#/$defs/")]
            assert member["required"][0] == "type"
            assert member["additionalProperties"] is False


def golden_streams() -> list[Path]:
    return sorted(STREAMS.glob("*.jsonl"))


def recorded(path: Path) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """A golden stream's ruleset, the commands clients sent, and its events."""
    envelopes = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    commands: dict[str, dict[str, Any]] = {}
    for envelope in envelopes:
        if envelope["command"] is not None:
            commands.setdefault(envelope["command_id"], envelope["command"])
    events = [{"type": e["type"], **e["data"]} for e in envelopes]
    return envelopes[0]["data"]["ruleset"], list(commands.values()), events


@pytest.mark.parametrize("path", golden_streams(), ids=lambda p: p.stem)
def test_every_command_and_event_of_a_golden_stream_validates(path: Path) -> None:
    name, commands, events = recorded(path)
    schemas = RULESETS[name].json_schemas()
    commands_ok = jsonschema_rs.validator_for(schemas["commands"])
    events_ok = jsonschema_rs.validator_for(schemas["events"])
    assert commands and events
    for command in commands:
        assert commands_ok.is_valid(command), command
    for event in events:
        assert events_ok.is_valid(event), event["type"]


@pytest.mark.parametrize("path", golden_streams(), ids=lambda p: p.stem)
def test_a_misspelt_field_or_an_unknown_type_does_not_validate(path: Path) -> None:
    name, commands, _ = recorded(path)
    valid = jsonschema_rs.validator_for(RULESETS[name].json_schemas()["commands"])
    for command in commands:
        assert not valid.is_valid({**command, "combatnt_id": "x"}), command
        assert not valid.is_valid({**command, "type": "fly"}), command
        assert not valid.is_valid({k: v for k, v in command.items() if k != "type"}), command


async def test_a_rulesets_schemas_are_served_without_a_credential(api: Api) -> None:
    response = await api.client.get("/v1/rulesets/combat-ii")

    assert response.status_code == 200, response.text
    body = response.json()
    ruleset = RULESETS["combat-ii"]
    assert (body["name"], body["version"], body["title"]) == (
        "combat-ii",
        ruleset.version,
        ruleset.title,
    )
    # combat-ii 1.0.0 and 1.1.0 are still run for the encounters created with them (issue
    # 27's bumps).
    assert body["versions"] == ["1.0.0", "1.1.0", ruleset.version] == ["1.0.0", "1.1.0", "1.2.0"]
    assert body["schemas"] == ruleset.json_schemas()
    assert body["schemas"]["stats"] == json.loads((SCHEMA_DIR / "combat-ii/stats.json").read_text())


async def test_an_unknown_ruleset_is_not_found(api: Api) -> None:
    response = await api.client.get("/v1/rulesets/chess")

    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "ruleset/not-found"
    assert "unknown ruleset 'chess'" in error["message"]
    assert error["details"] == {"valid": sorted(RULESETS)}


def test_the_openapi_command_is_a_union_of_each_rulesets_discriminated_union() -> None:
    schemas = build_openapi()["components"]["schemas"]
    assert schemas["CommandRequest"]["properties"]["command"] == {
        "$ref": "#/components/schemas/Command"
    }
    unions = [ref["$ref"].rsplit("/", 1)[1] for ref in schemas["Command"]["anyOf"]]
    assert sorted(unions) == sorted(
        "".join(part.capitalize() for part in name.split("-")) + "Command" for name in RULESETS
    )
    for name, ruleset in RULESETS.items():
        union = schemas["".join(part.capitalize() for part in name.split("-")) + "Command"]
        mapping = union["discriminator"]["mapping"]
        assert union["discriminator"]["propertyName"] == "type"
        assert sorted(mapping) == ruleset.command_types()
        assert sorted(r["$ref"] for r in union["oneOf"]) == sorted(mapping.values())
        for kind, ref in mapping.items():
            member = schemas[ref.rsplit("/", 1)[1]]
            assert member["properties"]["type"]["const"] == kind


def test_a_rulesets_own_commands_are_prefixed_and_shared_ones_are_not() -> None:
    schemas = build_openapi()["components"]["schemas"]
    attack = {
        name: schemas[f"{prefix}Command"]["discriminator"]["mapping"]["attack"]
        for name, prefix in (("combat-ii", "CombatIi"), ("delvers-deep", "DelversDeep"))
    }
    assert attack == {
        "combat-ii": "#/components/schemas/CombatIiAttack",
        "delvers-deep": "#/components/schemas/DelversDeepAttack",
    }
    assert schemas["CombatIiAttack"]["title"] == "CombatIiAttack"
    rolls = {
        schemas[f"{p}Command"]["discriminator"]["mapping"]["roll"] for p in ("Freeform", "FiftyTwo")
    }
    assert rolls == {"#/components/schemas/Roll"}
    # A cell reads [x, y] too on input; the views write {x, y}.
    assert schemas["PlaceToken"]["properties"]["cell"]["anyOf"][0] == {
        "$ref": "#/components/schemas/CellInput"
    }
    assert schemas["CombatantSummary"]["properties"]["position"]["anyOf"][0] == {
        "$ref": "#/components/schemas/Cell"
    }


async def test_each_legal_action_carries_its_commands_parameter_schema(api: Api) -> None:
    gm = await api.skirmish("schemas-legal")

    response = await api.get("/v1/encounters/schemas-legal/legal-actions", gm)

    assert response.status_code == 200, response.text
    actions = response.json()["actions"]
    assert actions
    commands = RULESETS["freeform"].json_schemas()["commands"]
    for action in actions:
        schema = action["params_schema"]
        assert schema["$schema"] == DIALECT
        assert "type" not in schema["properties"]
        assert "type" not in schema.get("required", [])
        ref = commands["discriminator"]["mapping"][action["type"]]
        command = commands["$defs"][ref.removeprefix("#/$defs/")]
        assert set(schema["properties"]) == set(command["properties"]) - {"type"}


async def test_a_command_made_from_a_legal_actions_schema_is_accepted(api: Api) -> None:
    gm = await api.skirmish("schemas-made")
    actions = (await api.get("/v1/encounters/schemas-made/legal-actions", gm)).json()["actions"]
    (roll,) = [a for a in actions if a["type"] == "roll"]
    params = {"expression": "1d20+3"}
    assert jsonschema_rs.validator_for(roll["params_schema"]).is_valid(params)
    assert not jsonschema_rs.validator_for(roll["params_schema"]).is_valid({"expresion": "1d20"})

    response = await api.send("schemas-made", gm, {"type": roll["type"], **params})

    assert response.status_code == 201, response.text

"""Every combatant file of the examples (service/demos/examples/<ruleset>/*.json) is an
`add-combatant` command as it stands: posted unchanged as the `command` of a request it is
accepted (issue 23 item 7: `epithet` was refused), and its epithet is shown."""

from __future__ import annotations

import json
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

import pytest

from tests.api.conftest import Api

EXAMPLES = files("service.demos") / "examples"
SCRIPT = "encounter.json"  # a `fray demo` script, not an API body: its options are used


def _directories() -> list[Traversable]:
    return sorted((d for d in EXAMPLES.iterdir() if d.is_dir()), key=lambda d: d.name)


def _combatant_files(directory: Traversable) -> list[Traversable]:
    found = [f for f in directory.iterdir() if f.name.endswith(".json") and f.name != SCRIPT]
    return sorted(found, key=lambda f: f.name)


def _options(directory: Traversable) -> dict[str, Any]:
    script = directory / SCRIPT
    if not script.is_file():
        return {}
    options: dict[str, Any] = json.loads(script.read_text())["options"]
    return options


def test_every_ruleset_with_examples_has_combatant_files() -> None:
    names = [d.name for d in _directories()]
    assert names == ["combat-ii", "d20-action-points", "delvers-deep", "fifty-two", "hex-tactical"]
    assert all(_combatant_files(d) for d in _directories())


@pytest.mark.anyio
@pytest.mark.parametrize("directory", _directories(), ids=lambda d: d.name)
async def test_every_combatant_file_posts_as_is_as_an_add_combatant(
    api: Api, directory: Traversable
) -> None:
    encounter_id = f"examples-{directory.name}"
    gm = await api.create(encounter_id, ruleset=directory.name, options=_options(directory))
    blocks = []
    for path in _combatant_files(directory):
        block = json.loads(path.read_text())
        response = await api.send(encounter_id, gm, block)
        assert response.status_code == 201, (path.name, response.text)
        blocks.append(block)
    summary = (await api.get(f"/v1/encounters/{encounter_id}", gm)).json()["summary"]
    shown = {c["id"]: (c["name"], c["epithet"]) for c in summary["combatants"]}
    assert shown == {b["combatant_id"]: (b["name"], b.get("epithet")) for b in blocks}

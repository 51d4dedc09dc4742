"""The tables of docs/rules/<ruleset>.md derived from the models (issue 27): every field of
the options, the stat block and the ruleset's own commands with its type, default and
bounds, so a bound such as combat-ii's `rest.minutes` (at most 1440) or fifty-two's
`initiative_circumstantial` (±30) is on the page and stays true."""

from __future__ import annotations

import pytest

from service.api import ruletables
from service.api.doctables import regions
from service.rules.registry import RULESETS


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_rules_page_has_its_field_tables_rendered_from_the_models(name: str) -> None:
    """`make docs` writes them; run it when this fails."""
    text = ruletables.page_of(name).read_text()
    assert sorted(regions(text)) == sorted(ruletables.TABLES)
    assert ruletables.drifted(name) == {}


def test_rest_minutes_and_initiative_circumstantial_are_documented_with_their_bounds() -> None:
    combat_ii = ruletables.page_of("combat-ii").read_text()
    fifty_two = ruletables.page_of("fifty-two").read_text()

    assert "| `rest` | `minutes` | integer | `0` | 0 to 1440 |" in combat_ii
    assert "| `initiative_circumstantial` | integer | `0` | -30 to 30 |" in fifty_two


def test_a_changed_bound_shows_as_drift() -> None:
    text = ruletables.page_of("combat-ii").read_text()
    tampered = text.replace("| `rest` | `minutes` | integer | `0` | 0 to 1440 |", "| x |")

    fresh = regions(ruletables.rendered(tampered, RULESETS["combat-ii"]))
    assert regions(tampered)["commands"] != fresh["commands"]


def test_nested_models_and_lists_are_walked_with_their_bounds() -> None:
    rows = {path: (kind, default, bounds) for path, kind, default, bounds in ruletables.rows(
        RULESETS["combat-ii"].stats_model
    )}  # fmt: skip

    assert rows["weapons"][2] == "up to 20 items"
    assert rows["weapons[].speed"][2] == "0 to 20"
    assert rows["weapons[].range"] == (
        "[integer, integer, integer] or null",
        "`null`",
        "exactly 3 items",
    )
    assert rows["spells[].name"][2] == "1-60 characters"

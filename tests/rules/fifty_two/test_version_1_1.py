"""fifty-two 1.1.0 (issue 27): an unenchanted shield's score is no longer defensive magic
unless `shield_magic: "always"`; 1.0.0, kept for the streams recorded with it, counted every
shield's, and reads its encounters' options and snapshots (which name no `shield_magic`)
that way."""

from __future__ import annotations

from service.rules.fifty_two import RULESET
from service.rules.fifty_two.v1_0 import RULESET_1_0
from service.rules.fifty_two.v1_1 import RULESET_1_1
from service.rules.fifty_two.v1_2 import RULESET_1_2


def test_the_default_reading_is_the_letter_and_1_0_0_keeps_its_own() -> None:
    assert (RULESET.version, RULESET_1_2.version, RULESET_1_1.version, RULESET_1_0.version) == (
        "1.3.0",
        "1.2.0",
        "1.1.0",
        "1.0.0",
    )
    assert RULESET.parse_options({}).shield_magic == "if-enchanted"
    assert RULESET_1_2.parse_options({}).shield_magic == "if-enchanted"
    assert RULESET_1_1.parse_options({}).shield_magic == "if-enchanted"
    assert RULESET_1_0.parse_options({}).shield_magic == "always"


def test_a_1_0_0_snapshot_without_shield_magic_is_read_with_every_shield_as_magic() -> None:
    state = RULESET_1_0.new_state(RULESET_1_0.parse_options({}))
    dumped = state.model_dump(mode="json")
    del dumped["options"]["shield_magic"]  # as 1.0.0 wrote its snapshots

    restored = RULESET_1_0.state_model.model_validate(dumped)

    assert restored.options.shield_magic == "always"

"""fifty-two 1.3.0: a spell waiting for a Reflex save stops the decision clock, and the
caster gets it afresh once the spell lands (§4.5, §8; test_spells_and_moves.py plays it).
The flag is set when an encounter is created: every earlier version leaves it false, and so
does a snapshot written before it existed, so their encounters go on as they were decided."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.fifty_two import RULESET
from service.rules.fifty_two.v1_0 import RULESET_1_0
from service.rules.fifty_two.v1_1 import RULESET_1_1
from service.rules.fifty_two.v1_2 import RULESET_1_2
from service.rules.registry import EARLIER, RULESETS

VERSIONS = [RULESET, RULESET_1_2, RULESET_1_1, RULESET_1_0]


def test_1_2_0_is_registered_as_an_earlier_version_and_1_3_0_is_the_newest() -> None:
    assert RULESETS["fifty-two"] is RULESET and RULESET.version == "1.3.0"
    assert RULESET_1_2 in EARLIER and RULESET_1_2.version == "1.2.0"


@pytest.mark.parametrize("ruleset", VERSIONS, ids=lambda r: r.version)
def test_only_a_new_encounter_at_1_3_0_holds_the_clock_for_a_save(ruleset: Any) -> None:
    state = ruleset.new_state(ruleset.parse_options({}))
    assert state.saves_hold_clock is (ruleset is RULESET)


@pytest.mark.parametrize("ruleset", VERSIONS, ids=lambda r: r.version)
def test_a_snapshot_from_before_the_flag_reads_with_the_clock_running_on(ruleset: Any) -> None:
    dumped = ruleset.new_state(ruleset.parse_options({})).model_dump(mode="json")
    del dumped["saves_hold_clock"]  # as every snapshot before 1.3.0 was written
    assert ruleset.state_model.model_validate(dumped).saves_hold_clock is False

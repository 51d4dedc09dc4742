"""Issue 27's straight-line tie-break in every ruleset: the versions that take it (freeform
1.1.0, delvers-deep 1.2.0, fifty-two 1.2.0, d20-action-points 1.1.0, hex-tactical 1.1.0,
combat-ii 1.2.0) set `Table.straight_paths` when an encounter is created; the versions kept
for the streams recorded before leave it false, and so do their snapshots, which have no
such field. The golden streams `<ruleset>-tied-paths` (tests/fixtures/streams) were
recorded on both sides of the bump, and today's code re-decides both (test_golden_streams)."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from service.domain.ruleset import RulesetBase
from service.rules.registry import EARLIER, RULESETS

STREAMS = Path(__file__).parents[1] / "fixtures" / "streams"
EVERY_VERSION = [
    *(pytest.param(r, id=f"{r.name} {r.version}") for r in RULESETS.values()),
    *(pytest.param(r, id=f"{r.name} {r.version}") for r in EARLIER),
]
TIED = ["freeform", "fifty-two", "d20-action-points", "delvers-deep", "combat-ii"]
# The first version of each ruleset to take the tie-break (the docstring's list).
FIRST = {"freeform": "1.1.0", "delvers-deep": "1.2.0", "fifty-two": "1.2.0",
         "d20-action-points": "1.1.0", "hex-tactical": "1.1.0", "combat-ii": "1.2.0"}  # fmt: skip
BEFORE = {"freeform": "1.0.0", "fifty-two": "1.1.0", "d20-action-points": "1.0.0",
          "delvers-deep": "1.1.0", "combat-ii": "1.1.0"}  # fmt: skip


@pytest.mark.parametrize("ruleset", EVERY_VERSION)
def test_a_new_encounter_takes_its_versions_tie_break(ruleset: RulesetBase[Any]) -> None:
    state = ruleset.new_state(ruleset.parse_options({}))
    assert state.table.straight_paths is ruleset.straight_paths
    assert ruleset.straight_paths is (number(ruleset.version) >= number(FIRST[ruleset.name]))


def number(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@pytest.mark.parametrize("ruleset", EVERY_VERSION)
def test_a_snapshot_from_before_the_tie_break_reads_without_it(ruleset: RulesetBase[Any]) -> None:
    dumped = ruleset.new_state(ruleset.parse_options({})).model_dump(mode="json")
    del dumped["table"]["straight_paths"]  # as every snapshot before issue 27 was written

    assert ruleset.state_model.model_validate(dumped).table.straight_paths is False


def paths_in(stream: Path) -> list[list[tuple[int, int]]]:
    events = [json.loads(line) for line in stream.read_text().splitlines()]
    return [
        [(c["x"], c["y"]) for c in e["data"]["path"]]
        for e in events
        if e.get("type") in ("token-moved", "moved") and e["data"].get("path")
    ]


def is_straight(path: list[tuple[int, int]]) -> bool:
    steps = {(b[0] - a[0], b[1] - a[1]) for a, b in pairwise(path)}
    return len(steps) == 1


@pytest.mark.parametrize("name", TIED)
def test_the_tied_paths_stream_zig_zagged_before_the_bump_and_goes_straight_after(
    name: str,
) -> None:
    before = paths_in(STREAMS / "older" / f"{name}-{BEFORE[name]}-tied-paths.jsonl")
    after = paths_in(STREAMS / f"{name}-tied-paths.jsonl")

    assert len(before) == len(after) >= 1
    assert not any(is_straight(path) for path in before)
    assert all(is_straight(path) for path in after)
    assert [(p[0], p[-1]) for p in before] == [(p[0], p[-1]) for p in after]

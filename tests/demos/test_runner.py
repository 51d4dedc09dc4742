"""The demo runner: steps through the engine, one narration line per event, pictures placed
by version, refusals that name their step, the audit; and the CLI's table of demos."""

from __future__ import annotations

import pytest

from service.cli import DEMOS
from service.demos import freeform
from service.demos.runner import Demo, Picture, Script, Step, StepRefused, play
from service.demos.scripts import examples
from service.domain.ruleset import EncounterState
from service.rules.registry import RULESETS
from tests.engine_helpers import run_on_redis

BRAMLI = {
    "type": "add-combatant",
    "combatant_id": "bramli",
    "name": "Bramli",
    "side": "heroes",
    "stats": {"hp": 24},
}
GOBLIN = {
    "type": "add-combatant",
    "combatant_id": "goblin",
    "name": "Goblin",
    "side": "goblins",
    "stats": {"hp": 7},
}
END = {"type": "end-encounter", "reason": "enough"}
# version 1 is encounter-created; each of these steps appends one event: versions 2, 3, 4
THREE_STEPS = [Step(BRAMLI), Step(GOBLIN), Step(END)]  # fmt: skip


def _demo(steps: list[Step], pictures=None) -> Demo:
    script = Script("freeform", "A test", steps)
    if pictures is None:
        return Demo(about="a test", script=lambda: script)
    return Demo(about="a test", script=lambda: script, pictures=pictures)


def _count(label: str):
    def draw(state: EncounterState) -> list[str]:
        return [f"{label}: {len(state.table.combatants)} combatants"]

    return draw


def _played(redis_url: str, demo: Demo, **kwargs):
    async def scenario(engine):
        return await play(engine, demo, **kwargs)

    return run_on_redis(redis_url, scenario)


def test_every_demo_in_the_table_plays_the_ruleset_it_is_named_after():
    for name, demo in DEMOS.items():
        assert name in RULESETS
        assert demo.script().ruleset == name


def test_every_seed_ruleset_has_its_examples_in_the_package():
    for name in DEMOS:
        if name != "freeform":  # its demo is a few lines of Python, and it has no seed
            assert (examples(name) / "README.md").is_file(), name


def test_one_line_per_event_and_the_audit(redis_url):
    played = _played(redis_url, _demo(THREE_STEPS))
    assert played.lines == [
        "Bramli joined the heroes.",
        "Goblin joined the goblins.",
        "The encounter ended: enough.",
    ]
    assert played.audit.ok, played.audit.problems


def test_a_step_written_from_the_state_sees_the_steps_before_it(redis_url):
    def note(state: EncounterState) -> dict[str, str]:
        return {"type": "add-note", "text": f"{len(state.table.combatants)} at the table"}

    played = _played(redis_url, _demo([Step(BRAMLI), Step(GOBLIN), Step(note), Step(END)]))
    assert "Note: 2 at the table" in played.lines


def test_a_step_that_writes_none_is_left_out(redis_url):
    played = _played(redis_url, _demo([Step(BRAMLI), Step(lambda state: None), Step(END)]))
    assert played.lines == ["Bramli joined the heroes.", "The encounter ended: enough."]


def test_pictures_go_before_their_versions_line_in_the_order_given(redis_url):
    def pictures(stream):
        last = stream[-1].version
        return [
            Picture(last + 1, _count("end")),
            Picture(3, _count("first")),
            Picture(3, _count("second")),
        ]

    played = _played(redis_url, _demo(THREE_STEPS, pictures))
    assert played.lines == [
        "Bramli joined the heroes.",
        "first: 1 combatants",
        "second: 1 combatants",
        "Goblin joined the goblins.",
        "The encounter ended: enough.",
        "end: 2 combatants",
    ]


def test_a_refused_step_names_its_number_its_actor_and_the_rule(redis_url):
    # Only the GM adjudicates: Bramli's player may not take hit points off the goblin.
    hit = {"type": "adjust-resource", "combatant_id": "goblin", "delta": -3}
    demo = _demo([Step(BRAMLI), Step(GOBLIN), Step(hit, actor="bramli")])
    with pytest.raises(StepRefused, match=r"^step 3 \(bramli: adjust-resource\) was refused: "):
        _played(redis_url, demo)


def test_the_same_seed_rolls_the_same_dice(redis_url):
    seed = bytes(32)
    first = _played(redis_url, freeform.DEMO, seed=seed)
    second = _played(redis_url, freeform.DEMO, seed=seed)
    assert first.encounter_id != second.encounter_id
    assert first.lines == second.lines

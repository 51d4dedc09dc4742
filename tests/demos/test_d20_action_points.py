"""`fray demo d20-action-points`: the scripted fight of
service/demos/examples/d20-action-points/ through the engine."""

from __future__ import annotations

import json
import shutil

import pytest

from service.audit import audit
from service.demos.d20_action_points import DEMO, EXAMPLES
from service.demos.runner import StepRefused, play
from tests.e2e.test_cli import fray
from tests.engine_helpers import Played, check_example_stat_blocks, play_demo, run, scripted_from

KEY_LINES = [
    pytest.param("Marching order of party: Brannoc, Wren / Tamsin, Ysolde.", id="marching order"),
    pytest.param(
        "Surprise check: Grubnak 7 against Tamsin's Notice 12: "
        "the party noticed the monsters first.",
        id="surprise check",
    ),
    pytest.param("The party chooses to ambush.", id="approach"),
    pytest.param("Ambush: hide DC 13, the monsters roll 10: the ambush succeeds.", id="ambush"),
    pytest.param("Combat begins with an ambush.", id="ambush round"),
    pytest.param(
        "Initiative (the ambush round: only the party acts): Tamsin, Brannoc, Wren, Ysolde.",
        id="ambush initiative",
    ),
    pytest.param("Ysolde declares: Flame Lance.", id="declared spell"),
    pytest.param(
        "Tamsin attacks Goblin Archer with the shortbow: d20 13 +3 = 16 against AC 12, "
        "a hit for 6.",
        id="the archer shoots",
    ),
    pytest.param(
        "Wren attacks Grubnak with the dagger: d20 7/16 with advantage +0 = 16 against AC 14, "
        "a hit, backstab x2 for 6.",
        id="backstab",
    ),
    pytest.param(
        "Ysolde casts Flame Lance at Grubnak: d20 11 +5 = 16 against DC 12, it works, 7 damage.",
        id="spell",
    ),
    pytest.param("Grubnak checks morale: d20 15 +7 = 22 against DC 20: holds.", id="morale holds"),
    pytest.param(
        "Goblin 1 checks morale: d20 5 +5 = 10 against DC 20: broken!", id="morale breaks"
    ),
    pytest.param("Goblin 1 flees at 60 feet a move!", id="flees"),
    pytest.param("Tamsin may react (parting-shot).", id="parting shot window"),
    pytest.param(
        "Tamsin attacks Goblin 1 with the shortbow as it flees: d20 16 +3 = 19 against AC 13, "
        "a hit for 5.",
        id="parting shot",
    ),
    pytest.param("Brannoc drops the longsword.", id="drop the sword"),
    pytest.param("Brannoc grapples Goblin 2: 12 against 8, grappled.", id="grapple"),
    pytest.param("Goblin 2 tries to break free of Brannoc: 7 against 13, still held.", id="held"),
    pytest.param("Grubnak is defeated.", id="the boss falls"),
]


@pytest.fixture(scope="module")
def fight() -> Played:
    return play_demo(DEMO)


def test_the_scripted_fight_audits(fight):
    _, stream, _ = fight
    report = audit(stream)
    assert report.ok, report.problems
    assert stream[0].data["ruleset"] == "d20-action-points"
    assert stream[-1].type == "encounter-ended"


def test_one_narration_line_per_event(fight):
    lines, stream, _ = fight
    assert len(lines) == len(stream) - 1  # encounter-created comes before the first step


def test_every_die_comes_from_the_script(fight):
    _, stream, _ = fight
    rolls = [r for e in stream for r in e.rolls]
    assert rolls and all(r.get("source") == "table" for r in rolls)


@pytest.mark.parametrize("line", KEY_LINES)
def test_the_key_lines_are_narrated(fight, line):
    lines, _, _ = fight
    assert line in lines


def test_only_the_party_acts_in_the_ambush_round(fight):
    _, stream, _ = fight
    turns = [(e.data["round"], e.data["combatant_id"]) for e in stream if e.type == "turn-started"]
    assert turns == [
        (1, "tamsin"), (1, "brannoc"), (1, "wren"), (1, "ysolde"),
        (2, "brannoc"), (2, "goblin-2"), (2, "grubnak"), (2, "tamsin"),
    ]  # fmt: skip


def test_the_grappled_goblin_only_tries_to_break_free(fight):
    _, stream, _ = fight
    taken = [e.data["action"] for e in stream if e.type == "action-taken"]
    goblin = [
        e.data["action"]
        for e in stream
        if e.type == "action-taken" and e.data["combatant_id"] == "goblin-2"
    ]
    assert goblin == ["break-free"]
    assert taken.count("grapple") == 1


def test_the_pools_at_the_end(fight):
    _, _, pools = fight
    assert pools["brannoc"] == {"hp": 7}
    assert pools["wren"] == {"hp": 8}
    assert pools["ysolde"] == {"hp": 6, "mana": 6}
    assert pools["tamsin"] == {"hp": 9}
    assert pools["goblin-1"]["hp"] == -2
    assert pools["goblin-2"]["hp"] == 7
    assert pools["goblin-archer"]["hp"] == -1
    assert pools["grubnak"]["hp"] == -2


def test_every_example_stat_block_is_valid():
    check_example_stat_blocks("d20-action-points", EXAMPLES)


def test_a_refused_step_says_which_step(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path, dirs_exist_ok=True)
    script = json.loads((tmp_path / "encounter.json").read_text())
    index = next(i for i, s in enumerate(script["steps"]) if s["command"]["type"] == "break-free")
    # The grappled goblin stabs at Brannoc instead of trying to break free.
    script["steps"][index] = {
        "actor": "gm",
        "command": {
            "type": "attack",
            "combatant_id": "goblin-2",
            "target": "brannoc",
            "weapon": "spear",
        },
        "dice": [20, 6],
    }
    (tmp_path / "encounter.json").write_text(json.dumps(script))
    number = len(script["combatants"]) + index + 1

    async def scenario(engine):
        await play(engine, scripted_from(DEMO, tmp_path))

    with pytest.raises(
        StepRefused, match=rf"step {number} \(gm: attack\).*grapple/must-break-free"
    ):
        run(scenario)


def test_fray_demo_d20_action_points(redis_url):
    result = fray("demo", "d20-action-points", redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert "Goblin 1 flees at 60 feet a move!" in result.stdout
    assert "  ok    rerun: " in result.stdout


def test_fray_demo_lists_d20_action_points():
    result = fray("demo", "--help")
    assert result.returncode == 0 and "d20-action-points" in result.stdout

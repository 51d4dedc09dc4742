"""`fray demo delvers-deep`: the scripted fight of service/demos/examples/delvers-deep/
through the engine."""

from __future__ import annotations

import json
import shutil

import pytest

from service.audit import audit
from service.demos.delvers_deep import DEMO, EXAMPLES
from service.demos.runner import StepRefused, play
from tests.e2e.test_cli import fray
from tests.engine_helpers import Played, check_example_stat_blocks, play_demo, run, scripted_from

SEED_EXAMPLES = [
    pytest.param("Daerion defends: Dodge check 3+.", id="Defend"),
    pytest.param("Daerion dodges Troll's greatclub: rolled 4 against 3+.", id="Dodge"),
    pytest.param("Baldwin encourages Bramli: Sanity check 3+.", id="Encouragement, Bramli"),
    pytest.param("Baldwin encourages Weylan: Sanity check 3+.", id="Encouragement, Weylan"),
    pytest.param("Bramli braces: Health check 2+.", id="Bracing"),
    pytest.param('Weylan sprints 8" for 2 FORT.', id="Movement"),
    pytest.param("Weylan: slams the crypt door and drops the bar.", id="Movement, the door"),
    pytest.param("Ani casts Lance of Dawn at Ghost: rolled 4 against 4+.", id="Focusing"),
]


@pytest.fixture(scope="module")
def fight() -> Played:
    return play_demo(DEMO)


def test_the_scripted_fight_audits(fight):
    _, stream, _ = fight
    report = audit(stream)
    assert report.ok, report.problems
    assert stream[-1].type == "encounter-ended"


def test_one_narration_line_per_event(fight):
    lines, stream, _ = fight
    assert len(lines) == len(stream) - 1  # encounter-created comes before the first step


@pytest.mark.parametrize("line", SEED_EXAMPLES)
def test_the_seed_examples_are_narrated(fight, line):
    lines, _, _ = fight
    assert line in lines


def test_the_combat_order_alternates_and_the_pcs_finish_uninterrupted(fight):
    lines, stream, _ = fight
    assert "The PCs act in this order: Daerion, Baldwin, Bramli, Weylan, Ani." in lines
    slots = [tuple(e.data["combatant_ids"]) for e in stream if e.type == "turn-started"]
    assert slots == [
        ("daerion",), ("troll",), ("baldwin",), ("ghost",), ("bramli",), ("orc-1", "orc-2"),
        ("weylan",), ("ani",), ("daerion",),
    ]  # fmt: skip


def test_the_opportunity_attack_and_the_health_checks(fight):
    lines, _, _ = fight
    assert "Orc 1, Orc 2 may react (opportunity-attack)." in lines
    assert any(line.startswith("Orc 1 strikes back at Bramli with the axe") for line in lines)
    assert "Bramli passes a health check: rolled 2 against 2+." in lines
    assert "Daerion fails to dodge Troll's greatclub: rolled 2 against 3+." in lines


def test_the_pools_at_the_end(fight):
    _, _, pools = fight
    assert pools["daerion"] == {"hp": 7, "fort": 1, "ref": 3, "will": 2}
    assert pools["bramli"]["hp"] == 12
    assert pools["weylan"]["fort"] == 4
    assert pools["ghost"]["hp"] == 3
    assert pools["troll"]["hp"] == 16


def test_every_example_stat_block_is_valid():
    check_example_stat_blocks("delvers-deep", EXAMPLES)


def test_a_refused_step_says_which_step(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path, dirs_exist_ok=True)
    script = json.loads((tmp_path / "encounter.json").read_text())
    script["steps"][4]["command"]["type"] = "brace"  # Daerion braces twice in one turn
    script["steps"].insert(4, script["steps"][4])
    (tmp_path / "encounter.json").write_text(json.dumps(script))

    async def scenario(engine):
        await play(engine, scripted_from(DEMO, tmp_path))

    with pytest.raises(StepRefused, match=r"step 15 \(daerion: brace\).*actions/once-per-turn"):
        run(scenario)


def test_fray_demo_delvers_deep(redis_url):
    result = fray("demo", "delvers-deep", redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert "Daerion dodges Troll's greatclub: rolled 4 against 3+." in result.stdout
    assert "  ok    rerun: " in result.stdout


def test_fray_demo_refuses_an_unknown_ruleset():
    result = fray("demo", "no-such-ruleset")
    assert result.returncode == 2 and "invalid choice" in result.stderr

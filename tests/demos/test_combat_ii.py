"""`fray demo combat-ii`: the seed's archer and orc and its paladin charging a troll
(service/demos/examples/combat-ii/) through the engine, with each phase's half-segment
timeline."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from service.audit import audit
from service.demos.combat_ii import DEMO, EXAMPLES, render_timeline, resolution_starts
from service.demos.runner import StepRefused, play
from service.domain.context import GM
from service.domain.envelope import Envelope
from service.rules.combat_ii.allowance import attacks_left
from tests.e2e.test_cli import fray
from tests.engine_helpers import Played, check_example_stat_blocks, play_demo, run, scripted_from
from tests.rules.combat_ii.given import (
    ARCHER,
    AXE,
    ORC,
    PLAYER,
    add,
    encounter,
    line_map,
    start,
    state_of,
)

TIMELINE = "Timeline of "

PHASE_1 = [
    "Timeline of round 1, phase 1, half-segments 1-6, before it resolves:",
    "   1: -",
    "   2: -",
    "   3: -",
    "   4: Archer's longbow at Orc (SF 8, winner)",
    "   5: -",
    "   6: -",
    "  then movement, winners first: Fighter moves (winner), Paladin charges Troll (winner), "
    "Orc moves (loser)",
    "  still casting: Finchfingle Fuschafeather, cone of cold (5 CT units to go)",
]
PHASE_2 = [
    "Timeline of round 1, phase 2, half-segments 7-12, before it resolves:",
    "   7: -",
    "   8: -",
    "   9: Fighter's long sword at Troll (SF 5, winner); Fighter's short sword at Troll "
    "(SF 5, winner); Finchfingle Fuschafeather's cone of cold goes off at Troll",
    "  10: Archer's longbow at Orc (SF 8, winner)",
    "  11: Orc's axe at Archer (SF 7, loser)",
    "  12: -",
    "  then movement, winners first: Paladin moves (winner)",
]
PHASE_3 = [
    "Timeline of round 1, phase 3, half-segments 13-18, before it resolves:",
    "  13: -",
    "  14: -",
    "  15: Fighter's long sword at Troll (SF 5, winner)",
    "  16: -",
    "  17: -",
    "  18: -",
    "  then movement, winners first: Troll flees (loser)",
]

KEY_LINES = [
    pytest.param("Initiative: monsters 7, party 3; party win.", id="group initiative"),
    pytest.param(
        "half-segment 4: Archer's longbow (SF 8, winner) hits Orc (14 vs 11).",
        id="the archer shoots the closing orc",
    ),
    pytest.param("Orc moves 3 squares (normal).", id="the orc closes"),
    pytest.param(
        "Finchfingle Fuschafeather begins cone of cold; it completes in 1 more phase.",
        id="a CT 5 spell spans two phases",
    ),
    pytest.param("Paladin now moves at 3x MV.", id="the horse is spurred to triple movement"),
    pytest.param("Paladin moves 12 squares (charge).", id="the paladin closes"),
    pytest.param("half-segment 6: Paladin's lance (charge) hits Troll (15 vs 9).", id="the lance"),
    pytest.param(
        "half-segment 6: Troll's left claw (counter) hits Paladin (16 vs 14).",
        id="the troll counterattacks",
    ),
    pytest.param("Paladin moves 5 squares (overrun).", id="the paladin overruns the troll"),
    pytest.param(
        "half-segment 9: Fighter's long sword (SF 5, winner) misses Troll (5 vs 8).",
        id="the long sword at the routine's SF",
    ),
    pytest.param(
        "half-segment 9: Fighter's short sword (SF 5, winner) hits Troll (9 vs 9).",
        id="the short sword at the long sword's SF",
    ),
    pytest.param(
        "half-segment 9: Finchfingle Fuschafeather's cone of cold completes.",
        id="the cone of cold goes off",
    ),
    pytest.param("half-segment 9: cone of cold deals 22 to Troll.", id="the spell's damage"),
    pytest.param(
        "half-segment 10: Archer's longbow (SF 8, winner) hits Orc (12 vs 11).",
        id="the second arrow",
    ),
    pytest.param("Orc is down.", id="the orc falls before its axe"),
    pytest.param(
        "half-segment 15: Fighter's long sword (SF 5, winner) hits Troll (17 vs 8).",
        id="the long sword alone in a later phase",
    ),
    pytest.param("Troll is down.", id="the troll falls before it can flee"),
    pytest.param("Paladin passes a constitution check (keep running).", id="the con check"),
    pytest.param(
        "The encounter ended: the orc and the troll are down; burn the troll before it gets up.",
        id="the gm ends it",
    ),
]


@pytest.fixture(scope="module")
def fight() -> Played:
    return play_demo(DEMO)


def _events(lines: list[str]) -> list[str]:
    """The narration lines, without the timelines."""
    return [line for line in lines if not line.startswith((TIMELINE, "  "))]


def _data(stream: list[Envelope], kind: str, **match: Any) -> list[dict[str, Any]]:
    return [
        e.data
        for e in stream
        if e.type == kind and all(e.data.get(k) == v for k, v in match.items())
    ]


def _index(stream: list[Envelope], kind: str, **match: Any) -> int:
    return next(
        i
        for i, e in enumerate(stream)
        if e.type == kind and all(e.data.get(k) == v for k, v in match.items())
    )


def test_the_scripted_fight_audits(fight):
    _, stream, _ = fight
    report = audit(stream)
    assert report.ok, report.problems
    assert stream[0].data["ruleset"] == "combat-ii"
    assert stream[-1].type == "encounter-ended"


def test_every_die_comes_from_the_script(fight):
    _, stream, _ = fight
    rolls = [r for e in stream for r in e.rolls]
    assert rolls and all(r.get("source") == "table" for r in rolls)


def test_one_narration_line_per_event_around_the_timelines(fight):
    lines, stream, _ = fight
    assert len(_events(lines)) == len(stream) - 1  # encounter-created comes before any step


def test_each_action_phase_shows_its_timeline_before_its_first_half_segment(fight):
    lines, _, _ = fight
    for drawn, first in (
        (PHASE_1, "half-segment 4: Archer's longbow (SF 8, winner) hits Orc (14 vs 11)."),
        (PHASE_2, "half-segment 9: Fighter's long sword (SF 5, winner) misses Troll (5 vs 8)."),
        (PHASE_3, "half-segment 15: Fighter's long sword (SF 5, winner) hits Troll (17 vs 8)."),
    ):
        at = lines.index(drawn[0])
        assert lines[at : at + len(drawn) + 1] == [*drawn, first]
    assert sum(line.startswith(TIMELINE) for line in lines) == 3


def test_the_timeline_comes_after_every_intention_of_its_phase(fight):
    lines, _, _ = fight
    assert lines.index(PHASE_1[0]) > lines.index("Paladin will charge.")
    assert lines.index(PHASE_1[0]) > lines.index(
        "Finchfingle Fuschafeather begins cone of cold; it completes in 1 more phase."
    )
    assert lines.index(PHASE_2[0]) > lines.index("Paladin will move.")


@pytest.mark.parametrize("line", KEY_LINES)
def test_the_key_lines_are_narrated(fight, line):
    lines, _, _ = fight
    assert line in _events(lines)


def test_the_archer_shoots_the_closing_orc_before_it_takes_a_step(fight):
    """combat-ii §1: "if an orc must move into position, he has to wait until the next phase
    to actually swing an axe, while a stationary archer 40 feet away could wreck the
    monster's whole day before it takes a step"."""
    lines, stream, _ = fight
    shot = _index(stream, "attack-rolled", attacker="archer", target="orc")
    step = _index(stream, "moved", combatant_id="orc")
    assert stream[shot].data["half_segment"] == 4 and stream[shot].data["hit"]
    assert shot < step
    assert [(c["x"], c["y"]) for c in stream[step].data["path"]] == [(4, 0), (3, 0), (2, 0), (1, 0)]
    events = _events(lines)
    assert events.index("half-segment 4: Archer's longbow (SF 8, winner) hits Orc (14 vs 11).") < (
        events.index("Orc moves 3 squares (normal).")
    )


def test_the_paladin_strikes_as_he_closes_and_overruns_the_troll(fight):
    """combat-ii §2 D: "The troll is only 130 yards away, so the paladin must overrun his
    target by the full remainder of his movement (180 - 130 = 50 yards) ... he attacks at
    the moment he closes. if the troll survives, it gets to counterattack before the
    paladin moves out of range"."""
    _, stream, _ = fight
    charge, overrun = _data(stream, "moved", combatant_id="paladin")[:2]
    assert (charge["mode"], overrun["mode"]) == ("charge", "overrun")
    assert charge["path"][0] == {"x": 0, "y": 4} and charge["path"][-1] == {"x": 12, "y": 4}
    assert overrun["path"][0] == {"x": 12, "y": 4} and overrun["path"][-1] == {"x": 18, "y": 4}
    closed = _index(stream, "moved", combatant_id="paladin", mode="charge")
    lance = _index(stream, "attack-rolled", attacker="paladin")
    counter = _index(stream, "attack-rolled", attacker="troll")
    passed = _index(stream, "moved", combatant_id="paladin", mode="overrun")
    assert closed < lance < counter < passed
    assert stream[lance].data["kind"] == "charge" and stream[lance].data["hit"]
    assert stream[counter].data["kind"] == "counter" and stream[counter].data["needed"] == 14


def test_the_orc_falls_at_half_segment_10_and_its_axe_never_falls_at_11(fight):
    _, stream, _ = fight
    [arrow] = _data(stream, "attack-rolled", attacker="archer", half_segment=10)
    assert arrow["hit"]
    assert _data(stream, "attack-rolled", attacker="orc") == []
    assert _index(stream, "combatant-downed", combatant_id="orc") > _index(
        stream, "attack-rolled", attacker="archer", half_segment=10
    )


def test_the_fighter_pairs_her_swords_at_sf_5_then_uses_the_long_sword_alone(fight):
    """combat-ii §2 C: "She first attacks with both at a SF of 5--the longsword's, which is
    slower by 2--and in a later phase attacks with longsword only, also at SF 5"."""
    _, stream, _ = fight
    swings = _data(stream, "attack-rolled", attacker="fighter")
    assert [(s["half_segment"], s["weapon"], s["sf"]) for s in swings] == [
        (9, "long sword", 5),
        (9, "short sword", 5),
        (15, "long sword", 5),
    ]


def test_the_ct_5_spell_begun_in_phase_1_goes_off_at_half_segment_9(fight):
    _, stream, _ = fight
    [done] = _data(stream, "spell-completed", combatant_id="finchfingle")
    assert (done["spell"], done["target"], done["half_segment"]) == ("cone of cold", "troll", 9)


def test_the_pools_at_the_end(fight):
    _, _, pools = fight
    assert pools == {
        "archer": {"hp": 16},
        "paladin": {"hp": 41},
        "fighter": {"hp": 52},
        "finchfingle": {"hp": 22},
        "orc": {"hp": -1},
        "troll": {"hp": -4},
    }


def test_every_example_stat_block_is_valid():
    check_example_stat_blocks("combat-ii", EXAMPLES)


def test_the_readme_names_every_stat_block_file():
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for path in EXAMPLES.iterdir():
        if path.name.endswith(".json") and path.name != "encounter.json":
            assert f"`{path.name}`" in readme


def test_a_refused_step_says_which_step(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path, dirs_exist_ok=True)
    script = json.loads((tmp_path / "encounter.json").read_text())
    index = next(
        i
        for i, s in enumerate(script["steps"])
        if s["command"] == {"type": "stand", "combatant_id": "troll"}
    )
    # The archer states her intention before the orc and the troll, the initiative losers.
    script["steps"][index] = {
        "actor": "archer",
        "command": {"type": "attack", "combatant_id": "archer", "targets": ["orc"]},
    }
    (tmp_path / "encounter.json").write_text(json.dumps(script))
    number = len(script["combatants"]) + index + 1

    async def scenario(engine):
        await play(engine, scripted_from(DEMO, tmp_path))

    with pytest.raises(StepRefused, match=rf"step {number} \(archer: attack\).*losers-first"):
        run(scenario)


# --- render_timeline and resolution_starts on small hand-built tables -------------------------


def _archer_and_orc(**options: Any):
    table = encounter(**options)
    line_map(table)
    add(table, "archer", "pcs", ARCHER, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(4, 0))
    start(table, initiative=[7, 3])
    return table


def test_render_timeline_shows_a_phase_with_nothing_declared_yet():
    table = _archer_and_orc()
    assert render_timeline(state_of(table)) == [
        "Timeline of round 1, phase 1, half-segments 1-6, before it resolves:",
        "   1: -",
        "   2: -",
        "   3: -",
        "   4: -",
        "   5: -",
        "   6: -",
        "  then movement, winners first: none",
    ]


def test_render_timeline_names_system_ii_phases_by_letter():
    table = _archer_and_orc(phase_system="II")
    table.send({"type": "move", "combatant_id": "orc", "to": [2, 0]})
    lines = render_timeline(state_of(table))
    assert lines[0] == "Timeline of phase A of cycle 1, half-segments 1-6, before it resolves:"
    assert lines[-1] == "  then movement, winners first: Orc moves (loser)"


def test_render_timeline_shows_a_loser_fleeing_after_the_half_segments():
    table = _archer_and_orc()
    table.send({"type": "move", "combatant_id": "orc", "to": [1, 0]})
    table.send({"type": "attack", "combatant_id": "archer", "targets": ["orc"]}, PLAYER, [2])
    table.send({"type": "move", "combatant_id": "orc", "to": [4, 0], "mode": "flee"})
    lines = render_timeline(state_of(table))
    assert lines[0].startswith("Timeline of round 1, phase 2, half-segments 7-12")
    assert lines[-1] == "  then movement, winners first: Orc flees (loser)"
    assert table.replayed() == table.state


def test_resolution_starts_skip_the_endphase_and_a_phase_still_being_declared():
    table = _archer_and_orc()
    for phase in (1, 2, 3):
        table.send({"type": "stand", "combatant_id": "orc"})
        dice = [5, 4] if phase == 3 else None  # round 2's d10s, orcs then pcs
        # The orcs' die is the GM's to supply (dice/not-yours).
        table.send({"type": "stand", "combatant_id": "archer"}, GM if dice else PLAYER, dice)
    kinds = [e.type for e in table.envelopes]
    starts = resolution_starts(table.envelopes)
    assert [kinds[i] for i in starts] == ["phase-ended"] * 3
    assert state_of(table).round == 2 and state_of(table).phase == 1
    assert table.replayed() == table.state


# --- what the demo found in the rules --------------------------------------------------------

TROLL = {
    "hp": 34, "thac0": 13, "ac": 4, "mv": 12, "size": "large",
    "weapons": [
        {"name": "left claw", "kind": "natural", "damage": "1d4+4"},
        {"name": "right claw", "kind": "natural", "damage": "1d4+4"},
        {"name": "bite", "kind": "natural", "damage": "1d8+4"},
    ],
    "routine": ["left claw", "right claw", "bite"],
}  # fmt: skip
PALADIN = {
    "hp": 48, "thac0": 14, "ac": 1, "mv": 18, "mounted": True,
    "weapons": [{"name": "lance", "speed": 7, "damage": "1d6+1"}],
}  # fmt: skip
AXEMAN = {"hp": 20, "thac0": 16, "ac": 5, "mv": 12, "weapons": [AXE]}


def _charged_troll():
    table = encounter()
    line_map(table, width=40)
    add(table, "paladin", "party", PALADIN, at=(0, 2))
    add(table, "troll", "monsters", TROLL, at=(13, 2))
    add(table, "fighter", "party", AXEMAN, at=(14, 2))
    start(table, initiative=[7, 3])
    table.send({"type": "stand", "combatant_id": "troll"})
    table.send({"type": "stand", "combatant_id": "fighter"}, PLAYER)
    return table


def test_a_charged_troll_counters_with_its_whole_routine():
    """combat-ii §2 C: "All attack components ... will follow-through within the same
    half-segment"; §2 D: "if the troll survives, it gets to counterattack"."""
    table = _charged_troll()
    charge = {"type": "charge", "combatant_id": "paladin", "target": "troll", "speed": 3}
    # The troll's dice are the GM's: the GM sends the command that resolves the phase.
    out = table.send(charge, GM, dice=[10, 15, 5, 16, 15, 14, 3, 2, 2])  # 10: STR to 3x
    rolled = [e.data for e in out if e.type == "attack-rolled"]
    counters = [d["weapon"] for d in rolled if d["kind"] == "counter"]
    assert counters == ["left claw", "right claw", "bite"]
    assert table.replayed() == table.state


def test_a_troll_that_countered_has_no_routine_left_in_the_round():
    """combat-ii §2 C: "one part of the routine may not be 'saved' until later ...
    unattempted component attacks lost for that routine, perhaps for the round"."""
    table = _charged_troll()
    charge = {"type": "charge", "combatant_id": "paladin", "target": "troll", "speed": 3}
    table.send(charge, GM, dice=[10, 15, 5, 16, 9, 12, 3])  # 10: STR to 3x
    assert state_of(table).phase == 2
    assert attacks_left(state_of(table), "troll") == 0
    assert table.replayed() == table.state


# --- the command line ---------------------------------------------------------------------------


def test_fray_demo_combat_ii(redis_url):
    result = fray("demo", "combat-ii", redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert "  Paladin moves 5 squares (overrun)." in result.stdout
    assert "  " + PHASE_2[3] in result.stdout
    assert "  ok    rerun: " in result.stdout


def test_fray_demo_lists_combat_ii():
    result = fray("demo", "--help")
    assert result.returncode == 0 and "combat-ii" in result.stdout

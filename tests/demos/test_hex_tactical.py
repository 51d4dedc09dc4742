"""`fray demo hex-tactical`: the barbarians at the town gate
(service/demos/examples/hex-tactical/) through the engine, and the ASCII hex map it draws."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from service.audit import audit
from service.demos.hex_tactical import DEMO, EXAMPLES, render_map
from service.demos.runner import StepRefused, play
from service.domain.envelope import Envelope
from tests.e2e.test_cli import fray
from tests.engine_helpers import Played, check_example_stat_blocks, play_demo, run, scripted_from
from tests.rules.hex_tactical.given import add, encounter, hex_map, square_map, state_of

START_MAP = (EXAMPLES / "map.txt").read_text(encoding="utf-8").rstrip("\n")
END_MAP = """\
  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
0 . . . . . . . . . . . . . . . .
1  . . . . . . . . . . . . . . . .
2   . . . . . . . . . . . . . . . .
3    # # # # # # # A B # # # # # # #
4     . . . . . . . . * . . . [ R . .
5      . . . . . . . . . . % . d . . .
6       . . . ~ ~ ~ . . . . . . . . . .
7        . k ~ u ~ . . . . . . . . . . .
8         . . ~ ~ . . . . . . . . . . . .
9          . . . . . . . . . . . . . . . .
           0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
  . open  ~ difficult  # impassable  % slippery  & mired
  [ partial cover  X total cover  * down
  defenders: A Alice, B Bram, R Rosa   barbarians: g Gorm (down), d Dag, u Ulf, k Knut"""
BEGINS, ENDS = "The field as the fight begins:", "The field at the end:"

KEY_LINES = [
    pytest.param("Initiative order: Rosa, Knut, Gorm, Dag, Alice, Ulf, Bram.", id="initiative"),
    pytest.param(
        "Rosa tries the shortbow on Knut, band 2: 83 vs 70: failure; misses.",
        id="band 2: two banes pull a hit into a miss",
    ),
    pytest.param(
        "Knut tries the bow on Rosa, band 0: 54 vs 55: success; hits.",
        id="the 60/180 bow, a bane for the table",
    ),
    pytest.param("Rosa tries to dodge: 12 vs 30 hard: success.", id="a boon for the table"),
    pytest.param("Gorm moves 5 cells to (8, 4) (cost 5).", id="gorm charges the gate"),
    pytest.param("Alice tries the pike on Dag: 18 vs 65: success; hits.", id="pike at reach 2"),
    pytest.param("Alice and Dag are in melee.", id="alice and dag in melee"),
    pytest.param("Ulf moves 2 cells to (3, 7) (cost 4).", id="wading the shin-deep mud"),
    pytest.param("Ulf crosses mired ground: 81 vs 45: failure.", id="the sucking hole"),
    pytest.param("Ulf is now stuck.", id="stuck"),
    pytest.param("Rosa tries the shortbow on Ulf, band 1: 47 vs 70: success; hits.", id="band 1"),
    pytest.param(
        "Ulf tries to dodge: 95 vs 8 very-hard: failure.",
        id="very hard dodge with a bane in the mud",
    ),
    pytest.param("The shot meant for Bram strikes Gorm instead.", id="into the melee"),
    pytest.param("Gorm takes 3 damage (4 less 1 armor).", id="the stray arrow"),
    pytest.param("Gorm tries to slip past Bram: 64 vs 22 hard: failure.", id="pass the gate"),
    pytest.param("Dag gives Alice an opening; everything pauses.", id="opportunity raised"),
    pytest.param("Alice may react (opportunity-attack).", id="opportunity window"),
    pytest.param("Alice chose attack.", id="window answered with attack"),
    pytest.param(
        "Alice tries to seize the opening on Dag: 33 vs 60: success.", id="initiative check"
    ),
    pytest.param(
        "Alice tries the pike on Dag (attack of opportunity): 40 vs 65: success; hits.",
        id="attack of opportunity",
    ),
    pytest.param("Dag tries to dodge: 77 vs 40: failure.", id="dodge window"),
    pytest.param("Dag carries on.", id="the move resumes"),
    pytest.param(
        "Alice and Dag are no longer in melee (moved-apart).", id="breaking away ends the melee"
    ),
    pytest.param("Dag crosses slippery ground: 30 vs 45: success.", id="the spilled oil"),
    pytest.param("Gorm's hp went from 5 to -2.", id="the pike fells gorm"),
    pytest.param("Gorm is down.", id="someone downed"),
    pytest.param(
        "The encounter ended: Gorm is down in the gateway; the barbarians drag him off and "
        "the gate holds.",
        id="the gm ends it",
    ),
]


@pytest.fixture(scope="module")
def fight() -> Played:
    return play_demo(DEMO)


def _events(lines: list[str]) -> list[str]:
    """The narration lines, without the two drawings of the map."""
    begins, ends = lines.index(BEGINS), lines.index(ENDS)
    drawn = len(START_MAP.splitlines())
    return lines[:begins] + lines[begins + 1 + drawn : ends]


def _data(stream: list[Envelope], kind: str, **match: Any) -> list[dict[str, Any]]:
    return [
        e.data
        for e in stream
        if e.type == kind and all(e.data.get(k) == v for k, v in match.items())
    ]


def test_the_scripted_fight_audits(fight):
    _, stream, _ = fight
    report = audit(stream)
    assert report.ok, report.problems
    assert stream[0].data["ruleset"] == "hex-tactical"
    assert stream[-1].type == "encounter-ended"


def test_every_die_comes_from_the_script(fight):
    _, stream, _ = fight
    rolls = [r for e in stream for r in e.rolls]
    assert rolls and all(r.get("source") == "table" for r in rolls)


def test_one_narration_line_per_event_around_the_two_maps(fight):
    lines, stream, _ = fight
    assert len(_events(lines)) == len(stream) - 1  # encounter-created comes before any step


def test_the_map_is_drawn_as_the_fight_begins(fight):
    lines, _, _ = fight
    begins = lines.index(BEGINS)
    drawn = START_MAP.splitlines()
    assert lines[begins + 1 : begins + 1 + len(drawn)] == drawn
    assert lines[begins + 1 + len(drawn)] == "The encounter began."


def test_the_lines_end_with_the_map_at_the_end(fight):
    lines, _, _ = fight
    drawn = END_MAP.splitlines()
    assert lines[-len(drawn) - 1 :] == [ENDS, *drawn]


def test_the_readme_shows_both_maps():
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    assert START_MAP in readme
    assert END_MAP in readme


@pytest.mark.parametrize("line", KEY_LINES)
def test_the_key_lines_are_narrated(fight, line):
    lines, _, _ = fight
    assert line in _events(lines)


def test_the_turns_in_initiative_order(fight):
    _, stream, _ = fight
    turns = [(e.data["round"], e.data["combatant_id"]) for e in stream if e.type == "turn-started"]
    order = ["rosa", "knut", "gorm", "dag", "alice", "ulf", "bram"]
    assert turns == [(1, c) for c in order] + [(2, c) for c in order[:5]]


def test_the_upturned_table_gives_a_bane_and_a_boon(fight):
    _, stream, _ = fight
    [placed] = _data(stream, "cover-placed")
    assert placed["cover"] == {
        "cell": {"x": 12, "y": 4}, "name": "upturned table", "kind": "partial",
        "durability": 6, "armor": 1,
    }  # fmt: skip
    [shot] = _data(stream, "attack-rolled", attacker="knut", target="rosa")
    assert (shot["band"], shot["check"]["banes"], shot["check"]["dice"]) == (0, 1, [34, 5])
    assert shot["response"]["dodge"] == "hard" and shot["response"]["dodge_boons"] == 1
    dodge = _data(stream, "defended", combatant_id="rosa", attacker="knut")[0]
    assert dodge["check"]["boons"] == 1 and dodge["check"]["success"]


def test_the_archer_shoots_across_the_bands(fight):
    _, stream, _ = fight
    shots = _data(stream, "attack-rolled", attacker="rosa")
    assert [(s["target"], s["distance_feet"], s["band"]) for s in shots] == [
        ("knut", 65, 2),
        ("ulf", 50, 1),
    ]
    assert [s["check"]["banes"] for s in shots] == [2, 1]


def test_the_shin_deep_mud_costs_double(fight):
    _, stream, _ = fight
    [wade] = _data(stream, "moved", combatant_id="ulf")
    assert [(c["x"], c["y"]) for c in wade["path"]] == [(2, 9), (2, 8), (3, 7)]
    assert wade["cost"] == 4


def test_the_attack_of_opportunity_pauses_the_move_until_it_is_resolved(fight):
    _, stream, _ = fight
    kinds = [e.type for e in stream]
    raised = next(i for i, e in enumerate(stream) if e.type == "opportunity-raised")
    resumed = kinds.index("action-resumed", raised)
    assert stream[raised].data["threateners"] == ["alice"]
    assert [k for k in kinds[raised:resumed] if not k.startswith("reaction-")] == [
        "opportunity-raised",
        "opportunity-checked",
        "attack-rolled",
        "defended",
        "damage-dealt",
        "resource-adjusted",
    ]
    windows = [e.data["trigger"]["kind"] for e in stream[raised:resumed]
               if e.type == "reaction-window-opened"]  # fmt: skip
    assert windows == ["opportunity-attack", "attack"]
    attack = stream[kinds.index("attack-rolled", raised)].data
    assert attack["opportunity"] and attack["hit"]


def test_the_pass_at_the_gate_fails_and_gorm_stays_outside(fight):
    _, stream, _ = fight
    [attempt] = _data(stream, "pass-attempted", combatant_id="gorm")
    assert attempt["enemy"] == "bram" and not attempt["check"]["success"]
    assert [m["path"][-1] for m in _data(stream, "moved", combatant_id="gorm")] == [
        {"x": 8, "y": 4}
    ]


def test_the_pools_at_the_end(fight):
    _, _, pools = fight
    assert pools == {
        "alice": {"hp": 12},
        "bram": {"hp": 7},
        "rosa": {"hp": 5},
        "gorm": {"hp": -2},
        "dag": {"hp": 1},
        "ulf": {"hp": 5},
        "knut": {"hp": 8},
    }


def test_every_example_stat_block_is_valid():
    check_example_stat_blocks("hex-tactical", EXAMPLES)


def test_a_refused_step_says_which_step(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path, dirs_exist_ok=True)
    script = json.loads((tmp_path / "encounter.json").read_text())
    index = next(i for i, s in enumerate(script["steps"]) if s["command"]["type"] == "pass-enemy")
    # Gorm walks through Bram into the town as an ordinary move, without the GM's approval.
    script["steps"][index] = {
        "actor": "gm",
        "command": {"type": "move", "combatant_id": "gorm", "to": [8, 2], "path": [[8, 3], [8, 2]]},
    }
    (tmp_path / "encounter.json").write_text(json.dumps(script))
    number = len(script["combatants"]) + index + 1

    async def scenario(engine):
        await play(engine, scripted_from(DEMO, tmp_path))

    with pytest.raises(StepRefused, match=rf"step {number} \(gm: move\).*move/blocked"):
        run(scenario)


# --- render_map on small hand-built tables ----------------------------------------------------

TERRAIN = [
    {"cell": [1, 0], "terrain": {"kind": "difficult"}},
    {"cell": [2, 0], "terrain": {"kind": "impassable", "tags": ["total-cover"]}},
    {"cell": [3, 0], "terrain": {"tags": ["slippery"]}},
    {"cell": [0, 1], "terrain": {"kind": "difficult", "tags": ["mired"]}},
    {"cell": [1, 1], "terrain": {"tags": ["partial-cover"]}},
    {"cell": [2, 1], "terrain": {"tags": ["total-cover"]}},
]


def _cover(table, cell: list[int], name: str, kind: str) -> None:
    table.send({"type": "place-cover", "cell": cell, "name": name, "kind": kind})


def test_render_map_draws_each_terrain_cover_and_token_on_offset_rows():
    table = encounter()
    hex_map(table, width=4, height=3, terrain=TERRAIN)
    _cover(table, [3, 1], "upturned table", "partial")
    _cover(table, [0, 2], "truck", "total")
    add(table, "alice", (1, 2), side="pcs")
    add(table, "orc", (2, 2))
    add(table, "bob", (3, 2))
    table.send({"type": "adjust-resource", "combatant_id": "bob", "set": 0})
    assert render_map(state_of(table)) == "\n".join(
        [
            "  0 1 2 3",
            "0 . ~ # %",
            "1  & [ X [",
            "2   X A o *",
            "    0 1 2 3",
            "  . open  ~ difficult  # impassable  % slippery  & mired",
            "  [ partial cover  X total cover  * down",
            "  pcs: A Alice   foes: o Orc, b Bob (down)",
        ]
    )


def test_render_map_shows_who_stands_over_a_fallen_token():
    table = encounter()
    hex_map(table, width=2, height=1)
    add(table, "alice", (0, 0), side="pcs")
    add(table, "bob", (1, 0))
    table.send({"type": "adjust-resource", "combatant_id": "bob", "set": 0})
    table.send({"type": "place-token", "combatant_id": "alice", "cell": [1, 0]})
    assert render_map(state_of(table)).splitlines()[1] == "0 . A"


def test_render_map_draws_square_rows_unshifted_and_tokens_off_the_map_in_the_key():
    table = encounter()
    square_map(
        table, width=3, height=2, terrain=[{"cell": [2, 1], "terrain": {"kind": "difficult"}}]
    )
    add(table, "alice", (0, 1), side="pcs")
    table.send(
        {"type": "add-combatant", "combatant_id": "bob", "name": "Bob", "side": "foes",
         "stats": {"hp": 10}}
    )  # fmt: skip
    assert render_map(state_of(table)).splitlines() == [
        "  0 1 2",
        "0 . . .",
        "1 A . ~",
        "  . open  ~ difficult  # impassable  % slippery  & mired",
        "  [ partial cover  X total cover  * down",
        "  pcs: A Alice   foes: b Bob (off the map)",
    ]


def test_render_map_without_a_map():
    assert render_map(state_of(encounter())) == "(no map)"


# --- the command line ---------------------------------------------------------------------------


def test_fray_demo_hex_tactical(redis_url):
    result = fray("demo", "hex-tactical", redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert "  Dag gives Alice an opening; everything pauses." in result.stdout
    assert "  " + ENDS in result.stdout
    assert "  3    # # # # # # # A B # # # # # # #" in result.stdout
    assert "  ok    rerun: " in result.stdout


def test_fray_demo_lists_hex_tactical():
    result = fray("demo", "--help")
    assert result.returncode == 0 and "hex-tactical" in result.stdout

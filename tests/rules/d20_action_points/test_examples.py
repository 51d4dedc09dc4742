"""The worked examples of the d20-action-points seed through the real decide, each a test named
after it: the third-level wizard's 2nd-level spell (Casting Spells), the crossbow's 80/320
(Ranged Attacks), the goblin and the brigand (Check Morale), and the muddy swamp, the dead
tree and the fog (Examples of Environmental Modifiers), set by the GM or by a map's terrain."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.grid import Cell
from tests.rules.d20_action_points.given import (
    CROSSBOW,
    DAGGER,
    PLAYER,
    SWORD,
    act,
    encounter,
    initiative,
    monster,
    only,
    pc,
    pools,
    refused,
    start,
    state_of,
    types,
)
from tests.rules.harness import Table

WEB = {"name": "web", "level": 2}


def wizard_declares_web() -> Table:
    """The seed's wizard: third level, +3 INT, a focus of +2; web declared, the wizard's turn."""
    table = encounter()
    pc(table, "wizard", level=3, intelligence=3, focus=2, mana=6, spells=[WEB])
    monster(table, "foe")
    start(table)
    table.send(
        {"type": "declare", "combatant_id": "wizard", "action": "cast", "spell": "web"},
        actor=PLAYER,
    )
    initiative(table, 15, 5)
    return table


def cast_web(table: Table, d20: int) -> dict[str, Any]:
    sent = table.send(
        {"type": "cast-spell", "combatant_id": "wizard", "spell": "web"}, actor=PLAYER, dice=[d20]
    )
    return only(sent, "spell-cast")[0]


def test_a_3rd_level_wizard_with_3_int_casting_a_2nd_level_spell_rolls_d20_5_vs_dc12() -> None:
    table = wizard_declares_web()

    cast = cast_web(table, 7)

    assert (cast["natural"], cast["modifier"], cast["total"], cast["dc"]) == (7, 5, 12, 12)
    assert cast["outcome"] == "cast"
    assert pools(table, "wizard")["mana"] == 4


def test_the_wizards_roll_of_6_does_not_meet_dc12_the_mana_is_used_and_the_spell_fails() -> None:
    table = wizard_declares_web()

    cast = cast_web(table, 6)

    assert (cast["total"], cast["dc"], cast["outcome"]) == (11, 12, "failed")
    assert cast["mana"] == 2
    assert pools(table, "wizard")["mana"] == 4


# --- Ranged Attacks: "A cross bow has a range of 80/320" -------------------------------------


def crossbowman() -> Table:
    """An archer with the crossbow in hand (DEX +0) facing a foe with AC 12; the archer's turn."""
    table = encounter()
    pc(table, "archer", weapons=[CROSSBOW])
    monster(table, "foe")
    start(table)
    initiative(table, 15, 5)
    return table


@pytest.mark.parametrize(
    ("feet", "penalty"),
    [
        pytest.param(5, 0, id="5 ft: no penalty"),
        pytest.param(80, 0, id="80 ft: no penalty"),
        pytest.param(81, -2, id="81 ft: -2"),
        pytest.param(160, -2, id="160 ft: -2"),
        pytest.param(161, -4, id="161 ft: -4"),
        pytest.param(240, -4, id="240 ft: -4"),
        pytest.param(241, -6, id="241 ft: -6"),
        pytest.param(320, -6, id="320 ft: -6"),
    ],
)
def test_a_crossbow_80_320_shoots_at_0_2_4_6_by_band(feet: int, penalty: int) -> None:
    table = crossbowman()

    shot = act(
        table, {"type": "attack", "combatant_id": "archer", "target": "foe", "feet": feet}, [10]
    )

    rolled = only(shot, "attack-rolled")[0]
    assert (rolled["feet"], rolled["modifier"], rolled["total"]) == (feet, penalty, 10 + penalty)


def test_a_crossbow_80_320_cannot_shoot_past_320_feet() -> None:
    table = crossbowman()

    error = refused(
        table, {"type": "attack", "combatant_id": "archer", "target": "foe", "feet": 321}, dice=[10]
    )

    assert error.code == "attack/out-of-range"
    assert error.details == {"feet": 321, "short": 80, "long": 320}


# --- Check Morale: the goblin and the brigand ----------------------------------------------


def answer(table: Table, window: dict[str, Any], cid: str, option: str, **kw: Any) -> list[Any]:
    return table.send(
        {"type": "answer-reaction", "window_id": window["window_id"], "combatant_id": cid,
         "option": option},
        **kw,
    )  # fmt: skip


def test_the_goblin_hit_for_4_fails_morale_with_5_plus_5_flees_and_the_archer_kills_it() -> None:
    table = encounter()
    pc(table, "hero", weapons=[SWORD])
    pc(table, "archer", weapons=[CROSSBOW])
    monster(table, "goblin", hp=7, ac=12, morale=5, speed=30)
    start(table)
    initiative(table, 15, 12, 5)

    hit = act(table, {"type": "attack", "combatant_id": "hero", "target": "goblin"}, [15, 4, 5])

    assert only(hit, "attack-rolled")[0]["damage"] == 4
    assert pools(table, "goblin")["hp"] == 3
    morale = only(hit, "morale-checked")[0]
    assert (morale["natural"], morale["bonus"], morale["total"], morale["dc"]) == (5, 5, 10, 20)
    assert morale["broken"] is True
    broken = only(hit, "reaction-window-opened")[0]
    assert broken["trigger"]["kind"] == "morale-broken"
    assert broken["eligible"] == {"goblin": ["flee", "surrender", "pass"]}

    fled = answer(table, broken, "goblin", "flee")

    assert only(fled, "fled") == [{"combatant_id": "goblin", "feet": 60}]  # twice its 30 ft
    parting = only(fled, "reaction-window-opened")[0]
    assert parting["trigger"]["kind"] == "parting-shot"
    assert parting["eligible"] == {"archer": ["shoot", "pass"]}  # the hero's sword is no bow

    shot = answer(table, parting, "archer", "shoot", actor=PLAYER, dice=[12, 5])

    arrow = only(shot, "attack-rolled")[0]
    assert (arrow["attacker"], arrow["reaction"], arrow["hit"]) == ("archer", "parting-shot", True)
    assert only(shot, "defeated") == [{"combatant_id": "goblin"}]
    assert pools(table, "goblin")["hp"] == -2
    goblin = state_of(table).table.combatants["goblin"]
    assert goblin.has_condition("defeated") and goblin.out_of_fight


def test_the_brigand_epically_wounded_by_a_critical_strike_surrenders() -> None:
    table = encounter()
    pc(table, "hero", strength=2, weapons=[SWORD])
    shortsword = {"name": "shortsword", "damage": "1d6"}
    monster(table, "brigand", hp=20, ac=13, morale=5, weapons=[shortsword, DAGGER])
    start(table)
    initiative(table, 15, 5)

    # A natural 20: (1d8 4 + STR 2) x 2 = 12, 20 hp to 8; morale 18 (23 would hold) and 3.
    blow = act(
        table, {"type": "attack", "combatant_id": "hero", "target": "brigand"}, [20, 4, 18, 3]
    )

    rolled = only(blow, "attack-rolled")[0]
    assert (rolled["critical_hit"], rolled["damage"]) == (True, 12)
    assert pools(table, "brigand")["hp"] == 8
    morale = only(blow, "morale-checked")[0]
    assert morale["dice"] == [18, 3] and morale["disadvantage"] is True
    assert (morale["natural"], morale["total"], morale["broken"]) == (3, 8, True)
    window = only(blow, "reaction-window-opened")[0]

    surrendered = answer(table, window, "brigand", "surrender")

    assert only(surrendered, "surrendered") == [{"combatant_id": "brigand"}]
    assert "fled" not in types(surrendered)
    state = state_of(table)
    brigand = state.table.combatants["brigand"]
    assert brigand.has_condition("surrendered") and brigand.out_of_fight
    assert state.arms["brigand"].carried == () and state.arms["brigand"].wielding is None
    assert [(g.weapon.name, g.near) for g in state.ground] == [
        ("shortsword", "brigand"),
        ("dagger", "brigand"),
    ]


# --- Examples of Environmental Modifiers, set by the GM ---------------------------------------


def hero_against_foe(**hero: Any) -> Table:
    """The hero (+2 STR, longsword, speed 30) against a foe with AC 12; the hero's turn."""
    table = encounter()
    pc(table, "hero", strength=2, **hero)
    monster(table, "foe", ac=12)
    start(table)
    initiative(table, 15, 5)
    return table


def surround(table: Table, who: str | None, *circumstances: str) -> None:
    table.send(
        {"type": "set-environment", "combatant_id": who, "circumstances": list(circumstances)}
    )


def test_the_muddy_swamp_costs_10_feet_of_movement() -> None:
    table = hero_against_foe(speed=30)
    surround(table, "hero", "mud")

    error = refused(table, {"type": "move", "combatant_id": "hero", "feet": 30})
    moved = act(table, {"type": "move", "combatant_id": "hero", "feet": 20})

    assert error.code == "move/too-far" and error.details == {"allowed": 20}
    assert only(moved, "moved")[0] == {
        "combatant_id": "hero", "how": "move", "feet": 20, "allowed": 20, "path": None
    }  # fmt: skip


def test_the_dead_tree_gives_half_cover_plus_2_ac() -> None:
    table = hero_against_foe()
    surround(table, "foe", "half-cover")

    swing = act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [11])

    rolled = only(swing, "attack-rolled")[0]
    assert (rolled["ac"], rolled["total"], rolled["hit"]) == (14, 13, False)


def test_behind_the_dead_tree_in_the_fog_the_shot_is_at_minus_2_and_cover_still_counts() -> None:
    table = encounter()
    pc(table, "archer", dexterity=1, weapons=[CROSSBOW])
    monster(table, "foe", ac=12, weapons=[CROSSBOW])
    start(table)
    initiative(table, 15, 5)
    surround(table, "archer", "half-cover")
    surround(table, None, "fog")

    shot = act(
        table, {"type": "attack", "combatant_id": "archer", "target": "foe", "feet": 60}, [11]
    )
    table.send({"type": "end-turn", "combatant_id": "archer"}, actor=PLAYER)
    answer_fire = act(
        table, {"type": "attack", "combatant_id": "foe", "target": "archer", "feet": 60}, [11]
    )

    mine = only(shot, "attack-rolled")[0]
    assert (mine["modifier"], mine["total"], mine["ac"]) == (-1, 10, 12)  # DEX +1, fog -2
    theirs = only(answer_fire, "attack-rolled")[0]
    assert (theirs["modifier"], theirs["ac"]) == (-2, 14)  # fog -2; half cover: AC 12 + 2


def test_the_thick_fog_imposes_a_minus_2_penalty_to_the_attack_roll() -> None:
    clear, foggy = hero_against_foe(), hero_against_foe()
    surround(foggy, None, "fog")

    in_clear = act(clear, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [8])
    in_fog = act(foggy, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [8])

    clear_roll, fog_roll = only(in_clear, "attack-rolled")[0], only(in_fog, "attack-rolled")[0]
    assert (clear_roll["modifier"], clear_roll["total"]) == (2, 10)
    assert (fog_roll["modifier"], fog_roll["total"]) == (0, 8)


# --- the same, through a map's terrain tags (cells are 5 feet) --------------------------------


def on_a_map(tagged: dict[tuple[int, int], str]) -> Table:
    """A one-row map with these cells tagged; the hero (+2 STR) at (0, 0), the foe (AC 12) next
    to it at (1, 0); the hero's turn."""
    table = encounter()
    terrain = [{"cell": list(cell), "terrain": {"tags": [tag]}} for cell, tag in tagged.items()]
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 1,
                                           "terrain": terrain}})  # fmt: skip
    pc(table, "hero", strength=2, position=(0, 0))
    monster(table, "foe", ac=12, position=(1, 0))
    start(table)
    initiative(table, 15, 5)
    return table


def test_a_map_cell_tagged_mud_costs_10_feet_of_movement_on_the_way() -> None:
    table = encounter()
    table.send(
        {"type": "set-map", "map": {"kind": "square", "width": 10, "height": 1,
                                    "terrain": [{"cell": [1, 0], "terrain": {"tags": ["mud"]}}]}}
    )  # fmt: skip
    pc(table, "hero", speed=30, position=(0, 0))
    monster(table, "foe")
    start(table)
    initiative(table, 15, 5)

    error = refused(table, {"type": "move", "combatant_id": "hero", "to": [6, 0]})
    moved = act(table, {"type": "move", "combatant_id": "hero", "to": [4, 0]})

    assert error.code == "move/too-far"
    assert error.details == {"allowed": 20, "needed": 30}
    step = only(moved, "moved")[0]
    assert (step["feet"], step["allowed"], step["path"][-1]) == (20, 20, {"x": 4, "y": 0})
    assert state_of(table).table.combatants["hero"].position == Cell(x=4, y=0)


def test_a_map_cell_tagged_half_cover_gives_its_occupant_plus_2_ac() -> None:
    table = on_a_map({(1, 0): "half-cover"})

    swing = act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [11])

    assert only(swing, "attack-rolled")[0]["ac"] == 14


def test_a_map_cell_tagged_fog_puts_minus_2_on_the_attack_from_it() -> None:
    table = on_a_map({(0, 0): "fog"})

    swing = act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, [11])

    rolled = only(swing, "attack-rolled")[0]
    assert (rolled["modifier"], rolled["total"], rolled["ac"]) == (0, 11, 12)

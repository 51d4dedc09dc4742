"""The situations of the hex-tactical seed through the real decide, each a test named after it:
Alice and Bob in melee and Bob breaking away, Charlie slipping past them (Attacks of
Opportunity), the 60/180 ft bands (Ranged Combat), the shin-deep mud (Moving through Terrain
Types), the upturned table and the truck (Cover), and the barbarians at the town gate (Moving
Past an Enemy)."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.rules.hex_tactical import RULESET
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    BOW,
    PLAYER,
    add,
    answer,
    encounter,
    first,
    hex_map,
    position,
    refused,
    start,
    state_of,
    types,
    window_for,
)


def send(
    table: Table, command: dict[str, Any], dice: list[int] | None = None, actor: Actor = GM
) -> list[Envelope]:
    return table.send(command, actor=actor, dice=dice)


def move(cid: str, to: tuple[int, int], **more: Any) -> dict[str, Any]:
    return {"type": "move", "combatant_id": cid, "to": list(to), **more}


def attack(cid: str, target: str, **more: Any) -> dict[str, Any]:
    return {"type": "attack", "combatant_id": cid, "target": target, **more}


def end_turn(cid: str) -> dict[str, Any]:
    return {"type": "end-turn", "combatant_id": cid}


def cell(x: int, y: int) -> dict[str, int]:
    return {"x": x, "y": y}


def moved_paths(envelopes: list[Envelope]) -> list[list[tuple[int, int]]]:
    return [[(c["x"], c["y"]) for c in e.data["path"]] for e in envelopes if e.type == "moved"]


def option(table: Table, kind: str, actor: Actor = GM) -> dict[str, Any]:
    for action in RULESET.legal_actions(state_of(table), actor):
        if action.type == kind:
            return action.params
    raise AssertionError(f"no {kind} among the legal actions")


def targets(table: Table, actor: Actor = GM) -> list[str]:
    """Whom the acting combatant's attack options offer, with any weapon."""
    actions = RULESET.legal_actions(state_of(table), actor)
    return [t for a in actions if a.type == "attack" for t in a.targets or []]


# --- Attacks of Opportunity: Alice and Bob --------------------------------------------------------


def alice_and_bob_in_melee() -> Table:
    """Alice (a PC) and Bob stand side by side with swords; Alice swung at Bob and missed, so
    the two are in melee. It is Bob's turn."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (3, 3), side="pcs", skills={"melee": 60})
    add(table, "bob", (4, 3), skills={"melee": 60})
    start(table, 1, 2)
    send(table, attack("alice", "bob"), dice=[95], actor=PLAYER)
    send(table, end_turn("alice"), actor=PLAYER)
    assert state_of(table).melee == (("alice", "bob"),)
    assert state_of(table).current == "bob"
    return table


def test_alice_and_bob_in_melee_bob_breaking_away_gives_alice_an_opportunity() -> None:
    table = alice_and_bob_in_melee()

    sent = send(table, move("bob", (6, 3)))

    assert types(sent) == ["action-begun", "opportunity-raised", "reaction-window-opened"]
    raised = first(sent, "opportunity-raised")
    assert raised["threateners"] == ["alice"]
    assert (raised["reason"], raised["cell"]) == ("leaves", cell(4, 3))
    opened = first(sent, "reaction-window-opened")
    assert opened["trigger"]["kind"] == "opportunity-attack"
    assert opened["eligible"] == {"alice": ["attack", "pass"]}
    assert position(table, "bob") == (4, 3)  # everything pauses


def test_alice_and_bob_with_a_successful_initiative_check_alice_attacks_bob_as_he_leaves() -> None:
    table = alice_and_bob_in_melee()
    send(table, move("bob", (6, 3)))

    seized = answer(table, "alice", "attack", dice=[30, 40])

    checked = first(seized, "opportunity-checked")
    assert (checked["combatant_id"], checked["check"]["skill"]) == ("alice", "initiative")
    assert checked["check"]["success"]
    rolled = first(seized, "attack-rolled")
    assert (rolled["attacker"], rolled["target"], rolled["weapon"]) == ("alice", "bob", "sword")
    assert rolled["opportunity"] and rolled["hit"]
    assert window_for(table, "bob")  # Bob may still defend against the hit
    assert position(table, "bob") == (4, 3)

    landed = answer(table, "bob", "pass", dice=[5])

    assert types(landed)[2:] == [
        "damage-dealt", "resource-adjusted", "action-resumed", "moved", "melee-ended", "moved",
    ]  # fmt: skip
    assert first(landed, "damage-dealt")["taken"] == 5
    assert first(landed, "melee-ended")["reason"] == "moved-apart"
    assert position(table, "bob") == (6, 3)
    assert state_of(table).melee == ()


def test_alice_and_bob_with_a_failed_initiative_check_alice_does_not_attack() -> None:
    table = alice_and_bob_in_melee()
    send(table, move("bob", (6, 3)))

    missed = answer(table, "alice", "attack", dice=[80])

    assert not first(missed, "opportunity-checked")["check"]["success"]
    assert "attack-rolled" not in types(missed)
    assert types(missed)[-4:] == ["action-resumed", "moved", "melee-ended", "moved"]
    assert position(table, "bob") == (6, 3)


def test_alice_and_bob_when_alice_lets_the_opportunity_pass_nothing_is_rolled() -> None:
    table = alice_and_bob_in_melee()
    send(table, move("bob", (6, 3)))

    passed = answer(table, "alice", "pass")

    assert "opportunity-checked" not in types(passed)
    assert position(table, "bob") == (6, 3)


# --- Attacks of Opportunity: Charlie slips past ---------------------------------------------------


def charlie_beside_alice_and_bob(fighting: bool) -> Table:
    """Alice and Bob side by side (in melee when `fighting`), Charlie, an enemy of both, below
    them; Charlie's turn."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (3, 3), side="pcs", skills={"melee": 60})
    add(table, "bob", (4, 3), skills={"melee": 60})
    add(table, "charlie", (3, 5), side="rogues")
    start(table, 1, 2, 3)
    if fighting:
        send(table, attack("alice", "bob"), dice=[95], actor=PLAYER)
    send(table, end_turn("alice"), actor=PLAYER)
    send(table, end_turn("bob"))
    assert state_of(table).current == "charlie"
    return table


# Charlie's way: (3, 4) is next to both, (4, 4) next to Bob only, (5, 4) next to neither.
PAST_THEM = [[3, 4], [4, 4], [5, 4]]


def test_charlie_slips_past_alice_and_bob_while_they_fight_and_neither_gets_an_opportunity() -> (
    None
):
    table = charlie_beside_alice_and_bob(fighting=True)

    sent = send(table, move("charlie", (5, 4), path=PAST_THEM))

    assert types(sent) == ["action-begun", "moved"]
    assert moved_paths(sent) == [[(3, 5), (3, 4), (4, 4), (5, 4)]]
    assert state_of(table).pending == ()


def test_charlie_slipping_past_alice_and_bob_when_they_are_not_fighting_gives_alice_a_chance() -> (
    None
):
    table = charlie_beside_alice_and_bob(fighting=False)

    sent = send(table, move("charlie", (5, 4), path=PAST_THEM))

    raised = first(sent, "opportunity-raised")
    assert (raised["threateners"], raised["cell"]) == (["alice"], cell(3, 4))


def test_charlie_while_alice_and_bob_fight_they_threaten_only_each_other() -> None:
    table = charlie_beside_alice_and_bob(fighting=True)

    threatened = option(table, "move")["threatened"]

    assert (threatened["foes"], threatened["pcs"]) == ([cell(3, 3)], [cell(4, 3)])


# --- Ranged Combat: the 60/180 ft bands -----------------------------------------------------------


def archer_and_target(cells: int) -> Table:
    """An archer with a 60/180 longbow (ranged 90) and an orc `cells` hexes (5 ft each) away
    along a row; the archer's turn."""
    table = encounter()
    hex_map(table, width=40, height=2)
    add(table, "archer", (0, 0), side="pcs", weapons=[BOW], skills={"ranged": 90})
    add(table, "orc", (cells, 0))
    start(table, 1, 2)
    return table


@pytest.mark.parametrize(
    ("cells", "dice", "band", "roll"),
    [
        pytest.param(12, [30], 0, 30, id="60ft"),
        pytest.param(13, [30, 5], 1, 50, id="65ft"),
        pytest.param(24, [30, 5], 1, 50, id="120ft"),
        pytest.param(25, [30, 5, 7], 2, 70, id="125ft"),
        pytest.param(36, [30, 5, 7], 2, 70, id="180ft"),
    ],
)
def test_the_60_180_bands_no_bane_to_60ft_one_to_120ft_two_to_180ft(
    cells: int, dice: list[int], band: int, roll: int
) -> None:
    table = archer_and_target(cells)

    sent = send(table, attack("archer", "orc"), dice=dice, actor=PLAYER)

    rolled = first(sent, "attack-rolled")
    assert (rolled["band"], rolled["distance_feet"]) == (band, cells * 5)
    assert (rolled["check"]["banes"], rolled["check"]["dice"]) == (band, dice)
    assert rolled["check"]["roll"] == roll
    assert rolled["hit"]


def test_the_60_180_bands_a_shot_at_5ft_puts_the_two_in_melee_and_allows_no_dodge() -> None:
    table = archer_and_target(1)

    sent = send(table, attack("archer", "orc"), dice=[30, 4], actor=PLAYER)

    assert types(sent)[1:] == ["attack-rolled", "melee-joined", "damage-dealt", "resource-adjusted"]
    assert first(sent, "attack-rolled")["response"]["dodge"] is None
    assert state_of(table).melee == (("archer", "orc"),)


def test_the_60_180_bands_no_attack_beyond_180ft() -> None:
    table = archer_and_target(37)

    error = refused(table, attack("archer", "orc"), actor=PLAYER, dice=[30, 5, 7])

    assert error.code == "attack/out-of-range"


@pytest.mark.parametrize(
    ("cells", "dodge", "dice", "dodged"),
    [
        pytest.param(12, "hard", [5, 20], True, id="60ft-hard"),
        pytest.param(12, "hard", [5, 26], False, id="60ft-hard-miss"),
        pytest.param(13, "very-hard", [5, 2, 10], True, id="65ft-very-hard"),
        pytest.param(13, "very-hard", [5, 2, 11], False, id="65ft-very-hard-miss"),
    ],
)
def test_the_60_180_bands_the_dodge_is_hard_inside_60ft_and_very_hard_beyond(
    cells: int, dodge: str, dice: list[int], dodged: bool
) -> None:
    table = archer_and_target(cells)
    attack_dice, dodge_die = dice[:-1], dice[-1]
    sent = send(table, attack("archer", "orc"), dice=attack_dice, actor=PLAYER)
    assert first(sent, "attack-rolled")["response"]["dodge"] == dodge
    assert first(sent, "reaction-window-opened")["eligible"] == {"orc": ["dodge", "pass"]}

    defended = answer(table, "orc", "dodge", dice=[dodge_die] + ([] if dodged else [4]))

    check = first(defended, "defended")["check"]
    assert (check["difficulty"], check["success"]) == (dodge, dodged)
    assert ("damage-dealt" in types(defended)) is not dodged


def test_the_60_180_bands_the_attack_option_lists_each_target_with_its_band() -> None:
    table = archer_and_target(25)

    targets = option(table, "attack", PLAYER)["targets"]

    assert targets == [
        {"id": "orc", "distance_feet": 125, "band": 2, "cover": None, "banes": 2,
         "in_melee": False, "can_dodge": True},
    ]  # fmt: skip


# --- Moving through Terrain Types: the shin-deep mud ----------------------------------------------


def runner_on_a_track(mud_from: int | None) -> Table:
    """A runner (30 ft: 6 cells a move) at the west end of a one-hex-wide track; from
    `mud_from` eastward the track is shin-deep mud (difficult terrain)."""
    table = encounter()
    terrain = []
    if mud_from is not None:
        mud = {"kind": "difficult", "tags": ["mud"]}
        terrain = [{"cell": [x, 0], "terrain": mud} for x in range(mud_from, 12)]
    hex_map(table, width=12, height=1, terrain=terrain)
    add(table, "runner", (0, 0), side="pcs")
    add(table, "orc", (11, 0))
    start(table, 1, 2)
    return table


def reachable_costs(table: Table) -> dict[tuple[int, int], int]:
    cells = option(table, "move", PLAYER)["reachable"]
    return {(c["cell"]["x"], c["cell"]["y"]): c["cost"] for c in cells}


def test_the_shin_deep_mud_a_cell_of_mud_costs_as_much_as_10ft_of_floor() -> None:
    floor = reachable_costs(runner_on_a_track(None))
    muddy = reachable_costs(runner_on_a_track(1))

    assert muddy[(1, 0)] == 2 == floor[(2, 0)]
    assert floor == {(x, 0): x for x in range(1, 7)}
    assert muddy == {(1, 0): 2, (2, 0): 4, (3, 0): 6}


def test_the_shin_deep_mud_the_move_through_it_costs_double() -> None:
    table = runner_on_a_track(2)

    sent = send(table, move("runner", (3, 0)), actor=PLAYER)

    assert first(sent, "moved")["cost"] == 1 + 2 + 2
    assert position(table, "runner") == (3, 0)


def test_the_shin_deep_mud_a_runner_cannot_cross_as_much_of_it_as_of_floor() -> None:
    table = runner_on_a_track(1)

    error = refused(table, move("runner", (4, 0)), actor=PLAYER)

    assert error.code == "move/too-far"


# --- Cover: the upturned table --------------------------------------------------------------------


def behind_the_upturned_table(hero_first: bool = False) -> Table:
    """The hero crouches at (5, 3) behind an upturned table at (4, 3); an orc with a longbow
    stands at (0, 3), 25 ft away, its shot passing the table's cell. The orc's turn unless
    `hero_first`."""
    table = encounter()
    hex_map(table)
    add(table, "hero", (5, 3), side="pcs")
    add(table, "orc", (0, 3), weapons=[BOW], skills={"ranged": 80})
    send(table, {"type": "place-cover", "cell": [4, 3], "name": "upturned table"})
    start(table, *((1, 2) if hero_first else (2, 1)))
    return table


def test_the_upturned_table_is_a_bane_on_the_shot_through_its_cell() -> None:
    table = behind_the_upturned_table()
    assert option(table, "attack")["targets"][0]["cover"] == "partial"

    sent = send(table, attack("orc", "hero"), dice=[30, 7])

    rolled = first(sent, "attack-rolled")
    assert (rolled["band"], rolled["check"]["banes"]) == (0, 1)
    assert rolled["check"]["roll"] == 70
    assert rolled["hit"]


def test_the_upturned_table_is_a_boon_on_the_dodge() -> None:
    table = behind_the_upturned_table()
    sent = send(table, attack("orc", "hero"), dice=[30, 1])
    assert first(sent, "attack-rolled")["response"]["dodge_boons"] == 1

    dodged = answer(table, "hero", "dodge", dice=[62, 2])

    check = first(dodged, "defended")["check"]
    assert (check["difficulty"], check["boons"], check["dice"]) == ("hard", 1, [62, 2])
    assert (check["roll"], check["success"]) == (22, True)
    assert "damage-dealt" not in types(dodged)


def test_the_upturned_table_a_shot_that_does_not_pass_it_takes_no_bane() -> None:
    table = behind_the_upturned_table()
    send(table, move("orc", (5, 0)))

    sent = send(table, attack("orc", "hero"), dice=[30])

    rolled = first(sent, "attack-rolled")
    assert (rolled["check"]["banes"], rolled["response"]["dodge_boons"]) == (0, 0)


def test_the_upturned_table_taking_cover_makes_it_total_until_the_heros_next_turn() -> None:
    table = behind_the_upturned_table(hero_first=True)

    taken = send(table, {"type": "take-cover", "combatant_id": "hero"}, dice=[30], actor=PLAYER)

    cover = first(taken, "cover-taken")
    assert (cover["cells"], cover["check"]["skill"], cover["check"]["success"]) == (
        [cell(4, 3)], "dodge", True,
    )  # fmt: skip
    send(table, end_turn("hero"), actor=PLAYER)
    assert refused(table, attack("orc", "hero"), dice=[30]).code == "attack/total-cover"
    send(table, end_turn("orc"))
    assert state_of(table).current == "hero"  # round 2: the hero's next turn
    assert state_of(table).taking_cover == {}
    send(table, end_turn("hero"), actor=PLAYER)

    sent = send(table, attack("orc", "hero"), dice=[30, 7])

    assert first(sent, "attack-rolled")["check"]["banes"] == 1


def test_the_upturned_table_a_failed_dodge_leaves_it_partial_cover() -> None:
    table = behind_the_upturned_table(hero_first=True)

    taken = send(table, {"type": "take-cover", "combatant_id": "hero"}, dice=[80], actor=PLAYER)

    assert not first(taken, "cover-taken")["check"]["success"]
    send(table, end_turn("hero"), actor=PLAYER)
    sent = send(table, attack("orc", "hero"), dice=[30, 7])
    assert first(sent, "attack-rolled")["check"]["banes"] == 1


def test_the_upturned_table_taking_cover_needs_partial_cover_next_to_you() -> None:
    table = behind_the_upturned_table(hero_first=True)
    send(table, {"type": "move", "combatant_id": "hero", "to": [8, 3]}, actor=PLAYER)

    error = refused(table, {"type": "take-cover", "combatant_id": "hero"}, actor=PLAYER, dice=[30])

    assert error.code == "cover/none-adjacent"


# --- Cover: the truck -----------------------------------------------------------------------------


def behind_the_truck() -> Table:
    """The hero at (5, 3) next to a truck (total cover) at (4, 3); an orc with a longbow at
    (0, 3) on the truck's far side; the orc's turn."""
    table = encounter()
    hex_map(table)
    add(table, "hero", (5, 3), side="pcs")
    add(table, "orc", (0, 3), weapons=[BOW], skills={"ranged": 80})
    send(table, {"type": "place-cover", "cell": [4, 3], "name": "truck", "kind": "total"})
    start(table, 2, 1)
    return table


def test_the_truck_no_ranged_attack_passes_through_its_cell() -> None:
    table = behind_the_truck()

    error = refused(table, attack("orc", "hero"), dice=[30])

    assert error.code == "attack/total-cover"
    assert targets(table) == []


def test_the_truck_a_shot_from_a_side_whose_line_misses_the_truck_is_allowed() -> None:
    table = behind_the_truck()
    send(table, move("orc", (5, 0)))

    sent = send(table, attack("orc", "hero"), dice=[30])

    rolled = first(sent, "attack-rolled")
    assert (rolled["check"]["banes"], rolled["hit"]) == (0, True)


# --- Moving Past an Enemy: the barbarians at the town gate ----------------------------------------


def barbarian_at_the_gate() -> Table:
    """A wall (impassable) runs down column x=5 but for the town gate, (5, 2) and (5, 3),
    where the hero and Alice stand. A barbarian comes from the west at (2, 3); its turn."""
    table = encounter()
    wall = [{"cell": [5, y], "terrain": {"kind": "impassable"}} for y in (0, 1, 4, 5)]
    hex_map(table, width=10, height=6, terrain=wall)
    add(table, "barbarian", (2, 3))
    add(table, "hero", (5, 2), side="pcs")
    add(table, "alice", (5, 3), side="pcs")
    start(table, 1, 2, 3)
    return table


def test_the_barbarians_at_the_gate_may_not_enter_a_defenders_cell() -> None:
    table = barbarian_at_the_gate()

    assert refused(table, move("barbarian", (5, 3))).code == "move/occupied"


def test_the_barbarians_at_the_gate_find_no_way_past_the_defenders() -> None:
    table = barbarian_at_the_gate()

    assert refused(table, move("barbarian", (7, 3))).code == "move/too-far"


def test_the_barbarians_at_the_gate_may_not_walk_a_path_through_a_defender() -> None:
    table = barbarian_at_the_gate()
    through = [[3, 3], [4, 3], [5, 3], [6, 3], [7, 3]]

    error = refused(table, move("barbarian", (7, 3), path=through))

    assert error.code == "move/blocked"


def pass_alice(to: tuple[int, int] = (6, 2)) -> dict[str, Any]:
    return {
        "type": "pass-enemy", "combatant_id": "barbarian", "enemy": "alice", "to": list(to),
        "skill": "athletics",
    }  # fmt: skip


def test_the_barbarians_at_the_gate_come_up_to_it_without_provoking() -> None:
    table = barbarian_at_the_gate()

    sent = send(table, move("barbarian", (4, 3)))

    assert types(sent) == ["action-begun", "moved"]


def test_the_barbarians_at_the_gate_pass_a_defender_with_the_gms_pass_enemy_and_a_check() -> None:
    table = barbarian_at_the_gate()
    send(table, move("barbarian", (4, 3)))

    sent = send(table, pass_alice(), dice=[15])

    tried = first(sent, "pass-attempted")
    assert (tried["enemy"], tried["check"]["skill"], tried["check"]["target"]) == (
        "alice", "athletics", 20,
    )  # fmt: skip
    assert tried["check"]["success"]
    assert moved_paths(sent) == [[(4, 3), (5, 3), (6, 2)]]
    assert "opportunity-raised" not in types(sent)
    assert position(table, "barbarian") == (6, 2)


def test_the_barbarians_at_the_gate_a_failed_check_spends_the_move() -> None:
    table = barbarian_at_the_gate()

    sent = send(table, pass_alice(), dice=[21])

    assert types(sent) == ["action-begun", "pass-attempted"]
    assert position(table, "barbarian") == (2, 3)
    assert state_of(table).turn.moves == 1


def test_the_barbarians_at_the_gate_a_player_cannot_approve_passing_an_enemy() -> None:
    table = barbarian_at_the_gate()

    error = refused(table, pass_alice(), actor=PLAYER, dice=[15])

    assert error.code == "auth/gm-only"

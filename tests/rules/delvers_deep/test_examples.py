"""The worked examples of delvers-deep 4.1, each a test named after it."""

from __future__ import annotations

from service.rules.delvers_deep.points import dc
from tests.rules.delvers_deep.given import (
    CLUB,
    PLAYER,
    creature,
    encounter,
    only,
    pc,
    pools,
    start,
    state_of,
    types,
)


def test_weylan_sprints_8_inches_for_2_fort_and_has_an_action_left_to_close_the_door():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 12, "height": 3}})
    pc(table, "weylan", fort=4, size="medium", position=(0, 1))
    start(table, 4)

    sprinted = table.send(
        {"type": "move", "combatant_id": "weylan", "to": [8, 1], "sprint": 2}, actor=PLAYER
    )

    moved = only(sprinted, "moved")[0]
    assert moved["distance"] == 8 and moved["cost"] == {"fort": 2}
    assert moved["path"][-1] == {"x": 8, "y": 1}
    assert pools(table, "weylan")["fort"] == 2
    assert state_of(table).turns["weylan"].actions_used == 1
    closed = table.send(
        {"type": "interact", "combatant_id": "weylan", "description": "close and lock the door"},
        actor=PLAYER,
    )
    assert types(closed)[0] == "interacted" and "turn-ended" in types(closed)


def test_bramli_braces_from_3_to_2():
    table = encounter()
    pc(table, "bramli", health_dc=3)
    creature(table, "orc")
    start(table, 2)
    table.send({"type": "move", "combatant_id": "bramli", "distance": 4}, actor=PLAYER)

    braced = table.send({"type": "brace", "combatant_id": "bramli"}, actor=PLAYER)

    assert only(braced, "braced") == [{"combatant_id": "bramli", "dc": 2, "cost": {"fort": 1}}]
    assert dc(state_of(table), "bramli", "health") == 2
    assert types(braced)[-1] == "turn-ended"  # both actions used
    table.send({"type": "pick", "combatant_ids": ["orc"]})
    assert dc(state_of(table), "bramli", "health") == 2  # still, through the orcs' turn
    table.send({"type": "end-turn", "combatant_id": "orc"})
    assert dc(state_of(table), "bramli", "health") == 3  # until the start of her next turn


def test_daerion_defends_from_5_to_4():
    table = encounter()
    pc(table, "daerion", dodge_dc=5)
    creature(table, "pirate")
    start(table, 5)

    defended = table.send({"type": "defend", "combatant_id": "daerion"}, actor=PLAYER)

    assert only(defended, "defended")[0]["dc"] == 4
    assert dc(state_of(table), "daerion", "dodge") == 4
    assert pools(table, "daerion")["ref"] == 3


def test_daerion_dodges_the_trolls_6_damage_blow():
    table = encounter()
    pc(table, "daerion", dodge_dc=4, ref=4)
    creature(table, "troll", name="the troll", weapons=[CLUB])
    start(table, 5)
    table.send({"type": "defend", "combatant_id": "daerion"}, actor=PLAYER)  # last turn
    table.send({"type": "end-turn", "combatant_id": "daerion"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["troll"]})

    blow = table.send(
        {"type": "attack", "combatant_id": "troll", "weapon": "greatclub", "target": "daerion"},
        dice=[5],
    )
    assert only(blow, "attack-rolled")[0]["damage"] == 6
    window = only(blow, "reaction-window-opened")[0]
    dodge = table.send(
        {
            "type": "answer-reaction",
            "window_id": window["window_id"],
            "combatant_id": "daerion",
            "option": "dodge",
        },
        actor=PLAYER,
        dice=[4],
    )

    assert only(dodge, "dodged")[0] == {
        "combatant_id": "daerion",
        "attacker": "troll",
        "weapon": "greatclub",
        "dice": [4],
        "dc": 3,
        "cost": {"ref": 1},
    }
    assert "damage-taken" not in types(dodge)
    assert pools(table, "daerion")["hp"] == 10 and pools(table, "daerion")["ref"] == 2
    line = next(e for e in dodge if e.type == "dodged")
    names = {"daerion": "Daerion", "troll": "the troll"}
    text = table.ruleset.narrate(line.type, line.data, lambda c: names.get(c or "", "?"))
    assert text == "Daerion dodges the troll's greatclub: rolled 4 against 3+."


def test_ani_focuses_a_5_plus_spell_to_4_plus():
    table = encounter()
    bolt = {"name": "arcane bolt", "will": 2, "dc": 5, "damage": "3", "tags": ["PROJECTILE"]}
    pc(table, "ani", will=5, spells=[bolt])
    creature(table, "ghost", ref=0)
    start(table, 1)

    table.send({"type": "focus", "combatant_id": "ani"}, actor=PLAYER)
    cast = table.send(
        {"type": "cast", "combatant_id": "ani", "spell": "arcane bolt", "target": "ghost"},
        actor=PLAYER,
        dice=[4],
    )

    spell = only(cast, "spell-cast")[0]
    assert (spell["roll"], spell["dc"], spell["success"]) == (4, 4, True)
    assert pools(table, "ani")["will"] == 2
    assert only(cast, "damage-taken")[0]["amount"] == 3  # a ghost without REF cannot dodge


def test_baldwin_encourages_two_allies_with_two_actions():
    table = encounter()
    pc(table, "baldwin")
    pc(table, "bramli")
    pc(table, "weylan")
    creature(table, "ghost")
    start(table, 6, 2, 1)

    first = table.send(
        {"type": "encourage", "combatant_id": "baldwin", "target": "bramli"}, actor=PLAYER
    )
    second = table.send(
        {"type": "encourage", "combatant_id": "baldwin", "target": "weylan"}, actor=PLAYER
    )

    assert only(first, "encouraged")[0]["dc"] == 3 and only(second, "encouraged")[0]["dc"] == 3
    state = state_of(table)
    assert dc(state, "bramli", "sanity") == 3 and dc(state, "weylan", "sanity") == 3
    assert pools(table, "baldwin")["will"] == 2
    assert "turn-ended" in types(second)
    # "until the end of their next turn": Bramli keeps it through her turn, then loses it
    table.send({"type": "pick", "combatant_ids": ["ghost"]})
    table.send({"type": "end-turn", "combatant_id": "ghost"})
    assert state_of(table).current == ("bramli",)
    assert dc(state_of(table), "bramli", "sanity") == 3
    table.send({"type": "end-turn", "combatant_id": "bramli"}, actor=PLAYER)
    assert dc(state_of(table), "bramli", "sanity") == 4
    assert dc(state_of(table), "weylan", "sanity") == 3

"""What combat-ii 1.1.0 decides otherwise than 1.0.0, which is kept for the streams recorded
with it (issue 27): `attack-rolled.sf` for the blows of the movement portion (no speed factor
places a fleer's free attack or a mover's blow on a surprised foe, so `sf` is null, as for
charges, counters, set weapons and covered areas; 1.0.0 said 0), and a weapon's
`damage-rolled.text`, which shows the faces rolled as a spell's does (1.0.0: the expression)."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from service.domain.ruleset import RulesetBase
from service.rules.combat_ii import RULESET
from service.rules.combat_ii.v1_0 import RULESET_1_0
from tests.rules.combat_ii.cast import FIGHTER, OGRE, of_type
from tests.rules.harness import Table

VERSIONS = [
    pytest.param(RULESET, None, id="1.1.0 on: null"),
    pytest.param(RULESET_1_0, 0, id="1.0.0: 0"),
]


def table_of(ruleset: RulesetBase[Any], ogre_at: tuple[int, int], **setup: Any) -> Table:
    table = Table(ruleset, {"dice": "table"})
    table.send({"type": "set-map", "map": {"kind": "square", "width": 30, "height": 5,
                                           "diagonals": "chebyshev"}})  # fmt: skip
    for cid, side, stats, at in (("fighter", "pcs", FIGHTER, (0, 0)),
                                 ("ogre", "ogres", OGRE, ogre_at)):  # fmt: skip
        table.send({"type": "add-combatant", "combatant_id": cid, "name": cid.capitalize(),
                    "side": side, "stats": stats, "position": list(at)})  # fmt: skip
    if setup:
        table.send({"type": "surprise", **setup})
    table.send({"type": "start-encounter"}, dice=[7, 3])
    return table


def rolled(envelopes: list[Envelope]) -> dict[str, Any]:
    (attack,) = of_type(envelopes, "attack-rolled")
    return attack


@pytest.mark.parametrize(("ruleset", "sf"), VERSIONS)
def test_attack_rolled_sf_is_null_for_a_free_attack_on_a_fleer(
    ruleset: RulesetBase[Any], sf: int | None
) -> None:
    table = table_of(ruleset, (1, 0))
    table.send({"type": "stand", "combatant_id": "ogre"})

    fled = table.send(
        {"type": "move", "combatant_id": "fighter", "to": [0, 4], "mode": "flee"}, dice=[12, 3]
    )

    assert (rolled(fled)["kind"], rolled(fled)["sf"]) == ("free", sf)
    assert table.replayed() == table.state


@pytest.mark.parametrize(("ruleset", "sf"), VERSIONS)
def test_attack_rolled_sf_is_null_for_a_move_then_attack_blow(
    ruleset: RulesetBase[Any], sf: int | None
) -> None:
    table = table_of(ruleset, (3, 0), surprised=["ogre"])

    moved = table.send(
        {"type": "move", "combatant_id": "fighter", "to": [2, 0], "attack": "ogre"}, dice=[15, 5]
    )

    assert (rolled(moved)["kind"], rolled(moved)["sf"]) == ("attack", sf)


def test_a_scheduled_attack_keeps_its_sf() -> None:
    table = table_of(RULESET, (1, 0))
    table.send({"type": "stand", "combatant_id": "ogre"})

    struck = table.send(
        {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}, dice=[15, 5]
    )

    assert rolled(struck)["sf"] == 5  # the long sword's SF


# --- damage-rolled.text ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "text"),
    [
        pytest.param(RULESET, "1d8 (6) = 6", id="1.1.0 on: the faces"),
        pytest.param(RULESET_1_0, "1d8", id="1.0.0: the expression"),
    ],
)
def test_weapon_damage_rolled_text_shows_the_faces_as_a_spells_does(
    ruleset: RulesetBase[Any], text: str
) -> None:
    table = table_of(ruleset, (1, 0))
    table.send({"type": "stand", "combatant_id": "ogre"})

    struck = table.send(
        {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}, dice=[15, 6]
    )

    (damage,) = of_type(struck, "damage-rolled")
    assert (damage["source"], damage["text"], damage["amount"]) == ("long sword", text, 6)

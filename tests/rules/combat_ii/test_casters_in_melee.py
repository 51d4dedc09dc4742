"""§1 G and §2 C: a caster in the midst of a spell measured in rounds is as stationary and
defenceless as one casting in CT units, and no caster at its incantation swings back at a
charger (§2 D)."""

from __future__ import annotations

from tests.rules.combat_ii.cast import FIGHTER, attack, of_type, only
from tests.rules.combat_ii.given import add, declare, encounter, line_map, start, state_of

STAFF = {"name": "staff", "speed": 4, "damage": "1d6"}
SPELLS = [
    {"name": "ritual", "level": 1, "rounds": 2, "components": "VS"},
    {"name": "chant", "level": 3, "ct": 9, "components": "VS"},
]
MAGE = {"hp": 40, "thac0": 20, "ac": 2, "mv": 12, "weapons": [STAFF], "spells": SPELLS}
"""AC 2: the fighter (THAC0 10) needs an 8, a 4 against the stationary target's +4."""
MISS = [2]


def test_a_caster_of_a_spell_in_rounds_may_be_attacked_each_phase() -> None:
    """§2 C: "spellcasters when invoking magicks requiring somatic components" are stationary
    and defenceless, "and may be attacked each phase", whether the spell takes CT units or
    rounds (§1 G). The fighter's one attack of the round goes in phase 1."""
    table = encounter()
    line_map(table)
    add(table, "fighter", "pcs", FIGHTER, at=(0, 0))
    add(table, "mage", "mages", MAGE, at=(1, 0))
    start(table, initiative=[7, 3])
    declare(table, "mage", "cast", spell="ritual")
    attack(table, "fighter", "mage", MISS)
    assert state_of(table).intentions["mage"].kind == "continue"

    second = only(attack(table, "fighter", "mage", MISS), "attack-rolled")

    assert second["needed"] == 10 - (2 + 4)
    assert table.replayed() == table.state


def test_a_caster_at_its_incantation_does_not_counter_a_charge() -> None:
    """§2 D: the charged defender "gets to counterattack ... only if it has not yet attacked
    this phase"; a caster mid-spell is stationary and defenceless (§2 C) and swings at no one.
    The mage begins `chant` (three phases) in phase 1; the fighter charges it in phase 2."""
    table = encounter()
    line_map(table)
    add(table, "fighter", "pcs", FIGHTER, at=(0, 0))
    add(table, "mage", "mages", MAGE, at=(6, 0))
    start(table, initiative=[7, 3])
    declare(table, "mage", "cast", spell="chant")
    declare(table, "fighter", "stand")
    assert state_of(table).intentions["mage"].kind == "continue"

    charged = declare(table, "fighter", "charge", target="mage", speed=2, dice=[20, 3])

    rolled = of_type(charged, "attack-rolled")
    assert [(r["attacker"], r["kind"]) for r in rolled] == [("fighter", "charge")]
    assert table.replayed() == table.state

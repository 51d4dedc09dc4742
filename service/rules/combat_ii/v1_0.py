"""combat-ii as it decided at 1.0.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): a move's attack on a surprised foe and
a free attack on a fleer said `sf: 0` in `attack-rolled` (1.1.0: null, as for every blow no
speed factor placed), and a weapon's or a touch's `damage-rolled.text` the dice expression
alone (1.1.0: each roll with its faces, as a spell's). Its paths are 1.1.0's (`v1_1.py`)."""

from __future__ import annotations

from service.rules.combat_ii.v1_1 import CombatIIV1_1


class CombatIIV1_0(CombatIIV1_1):
    version = "1.0.0"
    unplaced_sf_null = False
    damage_text_faces = False


RULESET_1_0 = CombatIIV1_0()

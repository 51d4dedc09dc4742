"""combat-ii as it decided at 1.1.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): of equally cheap paths, a `move`
without a declared `path` and `move-token` took the first the search found, which could
zig-zag ((5,4) to (9,4) on a Chebyshev map by (7,2)); 1.2.0 takes the one nearest the
straight line (service.domain.straight_paths)."""

from __future__ import annotations

from service.rules.combat_ii import CombatII


class CombatIIV1_1(CombatII):
    version = "1.1.0"
    straight_paths = False


RULESET_1_1 = CombatIIV1_1()

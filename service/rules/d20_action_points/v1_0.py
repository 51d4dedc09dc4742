"""d20-action-points as it decided at 1.0.0, kept for the streams recorded with it
(docs/architecture.md, "Bumping a ruleset version"): of equally cheap paths, a `move`, run
or charge to a cell and `move-token` took the first the search found, which could zig-zag
((5,4) to (9,4) on a Chebyshev map by (7,2)); 1.1.0 takes the one nearest the straight line
(service.domain.straight_paths)."""

from __future__ import annotations

from service.rules.d20_action_points import D20ActionPoints


class D20ActionPointsV1_0(D20ActionPoints):
    version = "1.0.0"
    straight_paths = False


RULESET_1_0 = D20ActionPointsV1_0()
